package wasmtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

// openLog opens a tab on the viewer with log preloaded, checked with the
// pipeline definition def at now, and waits for its result.
func openLog(t *testing.T, bctx context.Context, log, def, now string) (context.Context, shown) {
	t.Helper()
	ctx := tab(t, bctx)
	p := viewcmd.Preload{File: filepath.Base(log), Pipeline: &def, PipelineName: "pipeline.yaml", Now: now, Gate: "all"}
	if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, p, log)+"?preload=1")); err != nil {
		t.Fatal(err)
	}
	return ctx, settle(t, ctx)
}

// evaluate runs js in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// requestRows are the requests box's rows, one string each: request_id,
// state, slot, claimed_by, claimed_at, lease end and line, tab-separated;
// then its steps, in order.
const requestRows = `[...document.querySelectorAll("#requests tr.request")].map((r) => [...r.cells].map((c) => c.textContent).join("\t"))`
const requestSteps = `[...document.querySelectorAll("#requests .request-step")].map((li) => li.textContent)`

// TestViewerRequestsAndClose drives the viewer on claimed requests and on
// runs whose close did not finish (docs/recovery.md, The run's close and
// Claimed requests): the requests box shows the counts by state and every
// stale and unclaimed request with its identifiers and numbered steps, as
// the snapshot has them; a hostile request_id and claimed_by stay text; a
// run's unfinished close shows its code, line and next step with the run's
// problems, and its finish_close action is numbered after the stages'.
func TestViewerRequestsAndClose(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	recoveryDef, err := os.ReadFile(root + "/testdata/recovery/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	corpusDef, err := os.ReadFile(root + "/testdata/logs/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const now = "2026-01-01T12:00:00Z"

	t.Run("requests", func(t *testing.T) {
		log := root + "/testdata/recovery/stale_request.jsonl"
		ctx, s := openLog(t, bctx, log, string(recoveryDef), now)
		want := nativeCheck(t, log, checker.Request{Pipeline: recoveryDef, Now: now}).Snapshot
		if s.Verdict != "unhealthy" || want.Requests == nil || want.Requests.Counts.Stale != 1 {
			t.Fatalf("page verdict %q; the log no longer has one stale request: %+v", s.Verdict, want.Requests)
		}
		if got := evaluate[string](t, ctx, `document.getElementById("requests-counts").textContent`); got != "requests: 1 stale, 1 reconciled, 2 done" {
			t.Errorf("counts %q", got)
		}
		rows, steps := nativeRequests(want)
		if got := evaluate[[]string](t, ctx, requestRows); !slices.Equal(got, rows) || len(rows) != 1 {
			t.Errorf("request rows\n%q\nnative\n%q", got, rows)
		}
		if got := evaluate[[]string](t, ctx, requestSteps); !slices.Equal(got, steps) || len(steps) != 4 {
			t.Errorf("request steps\n%q\nnative\n%q", got, steps)
		}
	})

	t.Run("no requests", func(t *testing.T) {
		ctx, s := openLog(t, bctx, root+"/testdata/logs/retry_then_success.jsonl", string(corpusDef), now)
		if s.Verdict == "" || !evaluate[bool](t, ctx, `document.getElementById("requests-box").hidden`) {
			t.Errorf("a log without requests shows the requests box (verdict %q)", s.Verdict)
		}
	})

	t.Run("hostile request", func(t *testing.T) {
		log := root + "/testdata/action/hostile_request.jsonl"
		ctx, s := openLog(t, bctx, log, string(corpusDef), now)
		want := nativeCheck(t, log, checker.Request{Pipeline: corpusDef, Now: now}).Snapshot
		rows, steps := nativeRequests(want)
		if got := evaluate[[]string](t, ctx, requestRows); !slices.Equal(got, rows) || len(rows) != 2 {
			t.Errorf("request rows\n%q\nnative\n%q", got, rows)
		}
		if got := evaluate[[]string](t, ctx, requestSteps); !slices.Equal(got, steps) || len(steps) != 8 {
			t.Errorf("request steps\n%q\nnative\n%q", got, steps)
		}
		// The ids hold <img onerror=alert(1)>, <b> and <i>: as text, no
		// element is made of them and no script runs.
		ids := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#requests .request-id")].map((c) => c.textContent)`)
		if !slices.Contains(ids, "rq::error::forged%0A##[error]x,title=y:<img src=x onerror=alert(1)>") || !slices.Contains(ids, "rq-%25-unclaimed,<i>") {
			t.Errorf("request ids %q", ids)
		}
		if n := evaluate[int](t, ctx, `document.querySelectorAll("#requests img, #requests b, #requests i").length`); n != 0 || s.Images != 0 || s.Alerts != 0 {
			t.Errorf("log text became markup: %d elements in the requests box, %d images, %d alerts", n, s.Images, s.Alerts)
		}
	})

	t.Run("close", func(t *testing.T) {
		log := root + "/testdata/recovery/close.jsonl"
		ctx, _ := openLog(t, bctx, log, string(recoveryDef), now)
		want := nativeCheck(t, log, checker.Request{Pipeline: recoveryDef, Now: now}).Snapshot
		// In the runs whose stages all succeeded (incomplete), the run's
		// detail is the close (render.Detail), and the page says the same
		// with the run's problems; a run archived with a failed stage
		// shows its close after the stage's trouble.
		var closes []string
		for _, row := range viewerRows(want) {
			if r := row.Run; r != nil && r.Close != nil && r.Close.NextStep != nil {
				if r.State == checker.RunIncomplete {
					closes = append(closes, r.RunID+": "+render.Detail(&want.Source, r).Summary)
				} else {
					closes = append(closes, fmt.Sprintf("%s: closed %s (line %d): %s", r.RunID, r.Close.ResultCode, r.Close.Line, *r.Close.NextStep))
				}
			}
		}
		got := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#runs tr.run-row")].flatMap((r) =>
		  [...r.nextElementSibling.querySelectorAll("p.run-close")].map((p) => r.dataset.runId + ": " + p.textContent))`)
		if !slices.Equal(got, closes) || len(closes) != 7 {
			t.Errorf("closes shown\n%q\nnative\n%q", got, closes)
		}
	})

	t.Run("close after a failed stage", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "failed_close.jsonl")
		lines := []string{
			`{"run_id": "cf-1", "stage": "extract", "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T02:00:00Z"}`,
			`{"run_id": "cf-1", "stage": "extract", "attempt": 1, "status": "failed", "timestamp_utc": "2026-01-01T02:05:00Z", "returncode": 1, "error": "boom"}`,
			`{"run_id": "cf-1", "status": "closed", "timestamp_utc": "2026-01-01T02:20:00Z", "result_code": "LOCK_CONFLICT", "owner": "runner://etl-c"}`,
		}
		if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, s := openLog(t, bctx, log, string(recoveryDef), now)
		want := nativeCheck(t, log, checker.Request{Pipeline: recoveryDef, Now: now}).Snapshot
		r := want.Collect()[0]
		if s.Verdict != "unhealthy" || r.State != checker.RunFailed || r.Close == nil || r.Close.NextStep == nil {
			t.Fatalf("page verdict %q; native run %s, close %+v", s.Verdict, r.State, r.Close)
		}
		wantClose := fmt.Sprintf("closed LOCK_CONFLICT (line 3): %s", *r.Close.NextStep)
		if got := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#runs p.run-close")].map((p) => p.textContent)`); !slices.Equal(got, []string{wantClose}) {
			t.Errorf("close shown %q, want %q", got, wantClose)
		}
		// The actions, numbered in the runbook's order: finish_close last.
		var acts []string
		for _, a := range r.Recovery.Actions {
			acts = append(acts, string(a.Action))
		}
		got := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#runs ol.recovery-actions > li > .recovery-action")].map((e) => e.textContent)`)
		if !slices.Equal(got, acts) || len(acts) < 2 || acts[len(acts)-1] != string(checker.ActionFinishClose) {
			t.Errorf("actions shown %q, native %q", got, acts)
		}
	})
}

// nativeRequests are the rows and steps the requests box should show for
// s: each request with steps, as requestRows reads them.
func nativeRequests(s *checker.Snapshot) (rows, steps []string) {
	opt := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, r := range s.Requests.Requests {
		if len(r.Steps) == 0 {
			continue
		}
		slot := "ad hoc"
		if r.ScheduledFor != nil {
			slot = *r.ScheduledFor
		}
		rows = append(rows, strings.Join([]string{r.RequestID, string(r.State), slot, opt(r.ClaimedBy), opt(r.ClaimedAt), opt(r.LeaseExpiresAt), fmt.Sprint(render.RequestLine(&r))}, "\t"))
		steps = append(steps, r.Steps...)
	}
	return rows, steps
}
