package wasmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

// findBrowser returns a Chromium or Chrome binary; without one the browser
// tests skip loudly, or fail when GREENLIGHT_REQUIRE_BROWSER=1 (as in CI).
func findBrowser(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium or Chrome found on PATH, so the browser viewer is NOT tested (apt-get install chromium)"
	if os.Getenv("GREENLIGHT_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + "; GREENLIGHT_REQUIRE_BROWSER=1 makes this a failure")
	}
	fmt.Fprintln(os.Stderr, "SKIP: "+msg)
	t.Skip("SKIP: " + msg)
	return ""
}

// browser starts one headless browser for a test and returns its context.
func browser(t testing.TB) context.Context {
	t.Helper()
	exe := findBrowser(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return bctx
}

// tab opens a new tab in which window.alert only counts its calls, so a
// script that ran because log text became HTML shows up as a count.
func tab(t testing.TB, bctx context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: "window.__alerts = 0; window.alert = function () { window.__alerts++; };",
		})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// viewerModule builds the js module and returns it with wasm_exec.js.
func viewerModule(t testing.TB) (module, wasmExec []byte) {
	t.Helper()
	module, err := os.ReadFile(buildModule(t, "js", "./wasm/js"))
	if err != nil {
		t.Fatal(err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	wasmExec, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	return module, wasmExec
}

// serve serves the viewer as "greenlight view" does, with p and log
// preloaded, and returns the page's URL.
func serve(t testing.TB, p viewcmd.Preload, logPath string) string {
	t.Helper()
	module, wasmExec := viewerModule(t)
	var log []byte
	if logPath != "" {
		var err error
		if log, err = os.ReadFile(logPath); err != nil {
			t.Fatal(err)
		}
	}
	h, err := viewcmd.Handler(p, log, module, wasmExec)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// shown is what the page shows once a check is done.
type shown struct {
	Verdict    string   `json:"verdict"`
	Error      string   `json:"error"`
	Runs       []string `json:"runs"`    // run ids of the visible rows
	States     []string `json:"states"`  // their states
	Details    []string `json:"details"` // their detail cells
	Violations []struct {
		Line int    `json:"line"`
		Rule string `json:"rule"`
		Text string `json:"text"`
	} `json:"violations"`
	StageErrors []string `json:"stage_errors"`
	Bars        []string `json:"bars"` // class of each Gantt bar
	Images      int      `json:"images"`
	Alerts      int      `json:"alerts"`
	Status      string   `json:"status"`
	Schedule    []string `json:"schedule"`
	Summary     string   `json:"summary"`
	// Reconciliation is the job-log summary line, "" when the box is hidden;
	// Inconsistencies are its rows as "CODE attempt_id".
	Reconciliation  string   `json:"reconciliation"`
	Inconsistencies []string `json:"inconsistencies"`
	StageLabels     []string `json:"stage_labels"` // the Gantt charts' lane labels
}

const readPage = `(() => {
  const $ = (id) => document.getElementById(id);
  const rows = [...document.querySelectorAll("#runs tr.run-row")];
  return {
    verdict: $("result").hidden ? "" : $("verdict").textContent,
    error: $("error").hidden ? "" : $("error").textContent,
    runs: rows.map((r) => r.querySelector(".run-id").textContent),
    states: rows.map((r) => r.dataset.state),
    details: rows.map((r) => r.querySelector(".run-detail").textContent),
    violations: $("violations-box").hidden ? [] : [...document.querySelectorAll("#violations tr.violation")].map((r) => ({
      line: Number(r.querySelector(".line").textContent), rule: r.querySelector(".rule").textContent,
      text: r.querySelector(".line-text").textContent })),
    stage_errors: [...document.querySelectorAll("#runs pre.error-text")].map((p) => p.textContent),
    bars: [...document.querySelectorAll("#runs svg rect.bar")].map((b) => b.getAttribute("class")),
    images: document.images.length,
    alerts: window.__alerts,
    status: $("status").textContent,
    schedule: [...document.querySelectorAll("#schedule li")].map((li) => li.textContent),
    summary: $("summary").textContent,
    reconciliation: $("reconciliation-box").hidden ? "" : $("reconciliation-summary").textContent,
    inconsistencies: [...document.querySelectorAll("#inconsistencies tr.inconsistency")].map((r) =>
      r.querySelector(".code").textContent + " " + r.querySelector(".attempt-id").textContent),
    stage_labels: [...document.querySelectorAll("#runs svg.gantt > text")].map((t) => t.textContent).filter((t) => t.startsWith("stage ")),
  };
})()`

// settle waits until the page shows a result or an error and reads it.
func settle(t testing.TB, ctx context.Context) shown {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`!document.getElementById("result").hidden || !document.getElementById("error").hidden`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(settleTimeout)))
	if err != nil {
		t.Fatalf("the page showed no result: %v", err)
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[shown](readPage))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func screenshot(t testing.TB, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// nativeCheck is the reference result for a log checked with stages 1,2 at
// the corpus's now.
func nativeCheck(t testing.TB, path string, req checker.Request) *checker.Result {
	t.Helper()
	opts, err := req.Options()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestViewerInBrowser drives the viewer in headless Chromium: a log
// preloaded as by "greenlight view", logs chosen with the file picker, the
// state filter, hostile log text, and the self-contained report opened from
// a file:// URL.
func TestViewerInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	sample := root + "/testdata/sample/campaign_metrics.jsonl"
	pipeline, err := os.ReadFile(root + "/testdata/sample/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(pipeline)
	samplePreload := viewcmd.Preload{File: "campaign_metrics.jsonl", Pipeline: &text, PipelineName: "pipeline.yaml", Now: "2026-11-28T06:00:00Z", Gate: "all"}

	t.Run("preloaded sample, filtered by state", func(t *testing.T) {
		ctx := tab(t, bctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, samplePreload, sample)+"?preload=1")); err != nil {
			t.Fatal(err)
		}
		s := settle(t, ctx)
		want := nativeCheck(t, sample, checker.Request{Pipeline: pipeline, Now: samplePreload.Now}).Snapshot
		// Rows in the job summary's order: unhealthy first, latest first.
		wantRuns, wantStates := runStates(want)
		var wantErrors, wantDetails []string
		attempts := 0
		for _, row := range viewerRows(want) {
			if row.Run == nil {
				wantDetails = append(wantDetails, "slot "+row.Missed.ScheduledFor+": no run started by "+row.Missed.DueAt)
				continue
			}
			// The headline and each run's detail are Go's words
			// (render.Headline, render.Detail), not the page's.
			wantDetails = append(wantDetails, render.Detail(&want.Source, row.Run).Summary)
			for _, st := range row.Run.Stages {
				attempts += len(st.Attempts)
				if st.State == checker.StageFailed {
					wantErrors = append(wantErrors, *st.Attempts[len(st.Attempts)-1].Error)
				}
			}
		}
		if s.Verdict != string(want.Verdict) || strings.Join(s.Runs, " ") != strings.Join(wantRuns, " ") ||
			strings.Join(s.States, " ") != strings.Join(wantStates, " ") {
			t.Fatalf("page shows %+v\nnative: %s, runs %q, states %q", s, want.Verdict, wantRuns, wantStates)
		}
		if !strings.HasPrefix(s.Summary, render.Headline(want)+", judged at ") || !slices.Equal(s.Details, wantDetails) {
			t.Errorf("summary %q, details %q\nnative: headline %q, details %q", s.Summary, s.Details, render.Headline(want), wantDetails)
		}
		// The sample has a failed run and a stalled one: the page must show
		// the failure's error and draw the stalled attempt.
		if len(wantErrors) == 0 || strings.Join(s.StageErrors, "\n") != strings.Join(wantErrors, "\n") {
			t.Errorf("failed stage errors: page %q, native %q", s.StageErrors, wantErrors)
		}
		if len(s.Bars) != attempts || !contains(s.Bars, "bar bar-stalled") || !contains(s.Bars, "bar bar-failed") {
			t.Errorf("Gantt bars: %q, want one per attempt (%d)", s.Bars, attempts)
		}
		// The first row's timeline (the stalled run, drawn to now) has the
		// axis ticks Go picks for its span (render.AxisTicks).
		first := viewerRows(want)[0].Run
		var wantTicks []string
		for _, tk := range render.AxisTicks(render.RunSpan(first, want.GeneratedAt)) {
			wantTicks = append(wantTicks, tk.Label)
		}
		ticks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelector("#runs svg.gantt").querySelectorAll("text.tick")].map((t) => t.textContent)`))
		if err != nil || len(wantTicks) < 2 || !slices.Equal(ticks, wantTicks) {
			t.Errorf("axis ticks %q (%v), want %q", ticks, err, wantTicks)
		}
		// The sample's schedule has a missed night.
		if want.Schedule == nil || len(want.Schedule.Missed) == 0 {
			t.Fatal("the sample no longer has a missed slot; this test relies on one")
		}
		for _, m := range want.Schedule.Missed {
			line := "missed: the slot " + m.ScheduledFor + " had no run started by " + m.DueAt
			if !contains(s.Schedule, line) {
				t.Errorf("schedule list %q lacks %q", s.Schedule, line)
			}
		}
		if !strings.HasPrefix(s.Status, "checked campaign_metrics.jsonl in ") {
			t.Errorf("status %q", s.Status)
		}
		if out := os.Getenv("GREENLIGHT_VIEWER_SCREENSHOT"); out != "" {
			screenshot(t, ctx, out)
		}
		// A run's link (#run=ID) marks its row when the page opens at it.
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#runs tr.run-row[data-state=failed] a.run-id").getAttribute("href")`))
		if err != nil || href != "#run=cm-2026-11-27" {
			t.Fatalf("the failed run's link is %q (%v)", href, err)
		}
		linked := tab(t, bctx)
		if err := chromedp.Do(linked, chromedp.Navigate(serve(t, samplePreload, sample)+"?preload=1"+href)); err != nil {
			t.Fatal(err)
		}
		settle(t, linked)
		target, err := chromedp.Run(linked, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs tr.target")].map((r) => r.dataset.runId)`))
		if err != nil || !slices.Equal(target, []string{"cm-2026-11-27"}) {
			t.Errorf("opened at %s, the page marks %q (%v)", href, target, err)
		}
		screenshot(t, ctx, filepath.Join(t.TempDir(), "sample.png"))
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("state-filter"), "failed"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("state-filter").dispatchEvent(new Event("change"))`)); err != nil {
			t.Fatal(err)
		}
		s = settle(t, ctx)
		var failedRuns []string
		for _, row := range viewerRows(want) {
			if row.Run != nil && row.Run.State == checker.RunFailed {
				failedRuns = append(failedRuns, row.Run.RunID)
			}
		}
		if len(failedRuns) == 0 || strings.Join(s.Runs, " ") != strings.Join(failedRuns, " ") {
			t.Fatalf("filtered by failed, the page lists %q", s.Runs)
		}
	})

	t.Run("an early claim is listed in the schedule box", func(t *testing.T) {
		dir := t.TempDir()
		log := filepath.Join(dir, "early.jsonl")
		lines := `{"run_id":"r-27","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-27T02:00:04Z","scheduled_for":"2026-11-28T02:00:00Z"}
{"run_id":"r-27","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-11-27T02:10:00Z","returncode":0}
`
		if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		def := "stages: [{id: 1}]\nschedule:\n  cron: \"0 2 * * *\"\n"
		p := viewcmd.Preload{File: "early.jsonl", Pipeline: &def, PipelineName: "daily.yaml", Now: "2026-11-28T06:00:00Z", Gate: "all"}
		ctx := tab(t, bctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, p, log)+"?preload=1")); err != nil {
			t.Fatal(err)
		}
		s := settle(t, ctx)
		want := "early: run r-27 names the slot 2026-11-28T02:00:00Z but started at 2026-11-27T02:00:04Z, 23h59m56s before it; it fills no slot"
		if s.Verdict != checker.VerdictUnhealthy || !contains(s.Schedule, want) {
			t.Errorf("verdict %s, schedule list %q lacks %q", s.Verdict, s.Schedule, want)
		}
	})

	// upload checks a log chosen with the file picker, with stages 1,2 at
	// the corpus's now.
	upload := func(t *testing.T, log string) (context.Context, shown) {
		ctx := tab(t, bctx)
		abs, err := filepath.Abs(log)
		if err != nil {
			t.Fatal(err)
		}
		err = chromedp.Do(ctx,
			chromedp.Navigate(serve(t, viewcmd.Preload{}, "")),
			chromedp.WaitReady(chromedp.ID("log-file")),
			chromedp.SetValue(chromedp.ID("stages"), "1,2"),
			chromedp.SetValue(chromedp.ID("now"), "2026-01-01T12:00:00Z"),
			chromedp.SetUploadFiles(chromedp.ID("log-file"), []string{abs}))
		if err != nil {
			t.Fatal(err)
		}
		return ctx, settle(t, ctx)
	}
	corpusReq := checker.Request{Stages: "1,2", Now: "2026-01-01T12:00:00Z", File: "x"}

	t.Run("a log of 1200 runs lists 500 of each state, counted against the totals", func(t *testing.T) {
		var b strings.Builder
		for i := range 1200 {
			fmt.Fprintf(&b, `{"run_id": "r-%04d", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T10:00:00Z"}`+"\n", i)
			if i%2 == 0 {
				fmt.Fprintf(&b, `{"run_id": "r-%04d", "stage": 1, "attempt": 1, "status": "succeeded", "timestamp_utc": "2026-01-01T10:01:00Z"}`+"\n", i)
			} else {
				fmt.Fprintf(&b, `{"run_id": "r-%04d", "stage": 1, "attempt": 1, "status": "failed", "timestamp_utc": "2026-01-01T10:01:00Z", "error": "boom"}`+"\n", i)
			}
		}
		log := filepath.Join(t.TempDir(), "many.jsonl")
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := tab(t, bctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, viewcmd.Preload{File: "many.jsonl", Stages: "1", Now: "2026-01-01T12:00:00Z", Gate: "all"}, log)+"?preload=1")); err != nil {
			t.Fatal(err)
		}
		s := settle(t, ctx)
		note := func() string {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("runs-note").textContent`))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Unhealthy first, latest first: the 500 latest failed runs (the
		// view holds the latest 500 of each state), which fill the page.
		if len(s.Runs) != 500 || s.Runs[0] != "r-1199" || s.Runs[499] != "r-0201" ||
			note() != "showing 500 of 1200 rows, unhealthy first, then latest; 700 more not shown: filter by state or search by run id to narrow" {
			t.Fatalf("all states: %d rows (%v ... ), note %q", len(s.Runs), s.Runs[:min(3, len(s.Runs))], note())
		}
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("state-filter"), "failed"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("state-filter").dispatchEvent(new Event("change"))`)); err != nil {
			t.Fatal(err)
		}
		s = settle(t, ctx)
		if len(s.Runs) != 500 || s.Runs[0] != "r-1199" || s.Runs[499] != "r-0201" ||
			note() != "showing 500 of 600 rows, unhealthy first, then latest; 100 more not shown: filter by state or search by run id to narrow" {
			t.Fatalf("failed: %d rows, note %q", len(s.Runs), note())
		}
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("state-filter"), "succeeded"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("state-filter").dispatchEvent(new Event("change"))`)); err != nil {
			t.Fatal(err)
		}
		s = settle(t, ctx)
		if len(s.Runs) != 500 || s.Runs[0] != "r-1198" || s.Runs[499] != "r-0200" {
			t.Fatalf("succeeded: %d rows, from %v", len(s.Runs), s.Runs[:min(3, len(s.Runs))])
		}
		// Search by run id, among all states: a held run is found; one the
		// page does not hold is said to be outside what it holds.
		search := func(id string) {
			t.Helper()
			if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("state-filter"), ""), chromedp.SetValue(chromedp.ID("run-search"), id),
				chromedp.Evaluate[chromedp.Void](`document.getElementById("run-search").dispatchEvent(new Event("input"))`)); err != nil {
				t.Fatal(err)
			}
			s = settle(t, ctx)
		}
		search("r-0777")
		if !slices.Equal(s.Runs, []string{"r-0777"}) || s.States[0] != "failed" || note() != `1 of the 1000 rows this page holds match the run id "r-0777" (it holds the latest 1000 of 1200; greenlight check --format json lists every run)` {
			t.Fatalf("search r-0777: rows %q, states %q, note %q", s.Runs, s.States, note())
		}
		// A link to a held run past the cap searches for it and marks it.
		linked := tab(t, bctx)
		if err := chromedp.Do(linked, chromedp.Navigate(serve(t, viewcmd.Preload{File: "many.jsonl", Stages: "1", Now: "2026-01-01T12:00:00Z", Gate: "all"}, log)+"?preload=1#run=r-0300")); err != nil {
			t.Fatal(err)
		}
		if ls := settle(t, linked); !slices.Equal(ls.Runs, []string{"r-0300"}) {
			t.Errorf("opened at #run=r-0300, the page lists %q", ls.Runs)
		}
		target, err := chromedp.Run(linked, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs tr.target")].map((r) => r.dataset.runId)`))
		if err != nil || !slices.Equal(target, []string{"r-0300"}) {
			t.Errorf("opened at #run=r-0300, the page marks %q (%v)", target, err)
		}
		search("r-0003")
		if len(s.Runs) != 0 || !strings.HasPrefix(note(), `0 of the 1000 rows this page holds match the run id "r-0003"`) {
			t.Fatalf("search r-0003: rows %q, note %q", s.Runs, note())
		}
	})

	t.Run("healthy log from the file picker", func(t *testing.T) {
		_, s := upload(t, root+"/testdata/logs/retry_then_success.jsonl")
		want := nativeCheck(t, root+"/testdata/logs/retry_then_success.jsonl", corpusReq).Snapshot
		if s.Verdict != "healthy" || want.Verdict != "healthy" || len(s.Runs) != want.RunCount {
			t.Fatalf("page shows %+v; native: %s, %d runs", s, want.Verdict, want.RunCount)
		}
	})

	t.Run("invalid log lists its violations with the lines", func(t *testing.T) {
		log := root + "/testdata/logs/stage2_before_stage1.jsonl"
		_, s := upload(t, log)
		want := nativeCheck(t, log, corpusReq).Report
		data, _ := os.ReadFile(log)
		lines := strings.Split(string(data), "\n")
		if s.Verdict != "invalid" || len(s.Violations) != len(want.Violations) || len(want.Violations) == 0 {
			t.Fatalf("page shows %+v; native: %+v", s, want)
		}
		if s.Summary != render.InvalidHeadline(want)+"." {
			t.Errorf("summary %q, want %q", s.Summary, render.InvalidHeadline(want)+".")
		}
		for i, v := range want.Violations {
			got := s.Violations[i]
			if got.Line != v.Line || got.Rule != string(v.Rule) || got.Text != strings.TrimRight(lines[v.Line-1], "\r") {
				t.Errorf("violation %d: page %+v, native line %d rule %s text %q", i, got, v.Line, v.Rule, lines[v.Line-1])
			}
		}
	})

	t.Run("hostile log text stays text", func(t *testing.T) {
		log := root + "/testdata/logs/hostile_text.jsonl"
		ctx, s := upload(t, log)
		var first struct {
			RunID string `json:"run_id"`
		}
		var failed struct {
			Error string `json:"error"`
		}
		data, _ := os.ReadFile(log)
		lines := strings.Split(string(data), "\n")
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[1]), &failed); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(first.RunID, "<img src=x onerror=") || !strings.Contains(failed.Error, "<script>") {
			t.Fatal("hostile_text.jsonl no longer holds the markup this test relies on")
		}
		if len(s.Runs) != 1 || s.Runs[0] != first.RunID || len(s.StageErrors) != 1 || s.StageErrors[0] != failed.Error {
			t.Fatalf("the page does not show the log text verbatim: %+v", s)
		}
		if s.Images != 0 || s.Alerts != 0 {
			t.Fatalf("log text became markup: %d images, %d alerts", s.Images, s.Alerts)
		}
		screenshot(t, ctx, filepath.Join(t.TempDir(), "hostile.png"))
	})

	t.Run("a bidi override in log text shows as its escape", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "bidi.jsonl")
		ev := `{"run_id": "r-9 exe.\u202etxt", "stage": 1, "attempt": 1, "status": "%s", "timestamp_utc": "2026-01-01T10:0%d:00Z"%s}` + "\n"
		text := fmt.Sprintf(ev, "started", 0, "") + fmt.Sprintf(ev, "failed", 1, `, "returncode": 2, "error": "boom \u2066x"`)
		if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, s := upload(t, log)
		if len(s.Runs) != 1 || s.Runs[0] != `r-9 exe.\u202etxt` || len(s.StageErrors) != 1 || s.StageErrors[0] != `boom \u2066x` {
			t.Fatalf("the page does not show the bidi characters as escapes: runs %q, errors %q", s.Runs, s.StageErrors)
		}
	})

	t.Run("self-contained report from file://, with its static report for scripts off", func(t *testing.T) {
		module, wasmExec := viewerModule(t)
		log, err := os.ReadFile(sample)
		if err != nil {
			t.Fatal(err)
		}
		static := nativeCheck(t, sample, checker.Request{Pipeline: pipeline, Now: samplePreload.Now, File: "campaign_metrics.jsonl"})
		html, err := viewcmd.ReportWithStatic(samplePreload, log, module, wasmExec, static)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(path, html, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := tab(t, bctx)
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
			t.Fatal(err)
		}
		s := settle(t, ctx)
		want := nativeCheck(t, sample, checker.Request{Pipeline: pipeline, Now: samplePreload.Now}).Snapshot
		if s.Verdict != string(want.Verdict) || len(s.Runs) != want.RunCount+len(want.Schedule.Missed) || s.Error != "" {
			t.Fatalf("report shows %+v; native: %s, %d runs", s, want.Verdict, want.RunCount)
		}
		// With scripts on, the static report in its noscript element is not
		// part of the page.
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("article.run").length`)); err != nil || n != 0 {
			t.Errorf("the static report shows beside the viewer: %d run sections (%v)", n, err)
		}
		// With scripts off, the same file shows the static report.
		off := noScriptTab(t, bctx)
		if err := chromedp.Do(off, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("article.run"))); err != nil {
			t.Fatal(err)
		}
		if text := pageText(t, off); !strings.Contains(text, "greenlight: unhealthy") || !strings.Contains(text, "Start attempt 3 of stage 2 in run cm-2026-11-27.") ||
			!strings.Contains(text, "Scripts are off, so the viewer cannot run") {
			t.Errorf("with scripts off the interactive report does not show the static one:\n%s", text)
		}
		screenshot(t, ctx, filepath.Join(t.TempDir(), "report.png"))
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// How long a browser may live for one test, and a page may take to show a
// result.
const (
	browserTimeout = 2 * time.Minute
	settleTimeout  = 60 * time.Second
)

// TestViewerRecoveryStates: the recovery model's log (unknown, cancelled and
// blocked outcomes besides the core ones) shows the native run states, its
// unknown attempts drawn, and its blocked stages named.
func TestViewerRecoveryStates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	log := root + "/testdata/recovery/orders_daily.jsonl"
	pipeline, err := os.ReadFile(root + "/testdata/recovery/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(pipeline)
	p := viewcmd.Preload{File: "orders_daily.jsonl", Pipeline: &text, Now: "2026-01-01T12:00:00Z", Gate: "all"}
	ctx := tab(t, bctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, p, log)+"?preload=1")); err != nil {
		t.Fatal(err)
	}
	s := settle(t, ctx)
	want := nativeCheck(t, log, checker.Request{Pipeline: pipeline, Now: p.Now}).Snapshot
	runs, states := runStates(want)
	blocked := 0
	for _, r := range want.Collect() {
		for _, st := range r.Stages {
			if st.State == "blocked" {
				blocked++
			}
		}
	}
	if s.Verdict != string(want.Verdict) || strings.Join(s.Runs, " ") != strings.Join(runs, " ") || strings.Join(s.States, " ") != strings.Join(states, " ") {
		t.Fatalf("page shows %+v\nnative: %s, runs %q, states %q", s, want.Verdict, runs, states)
	}
	if !contains(s.States, "unknown") || !contains(s.States, "cancelled") || blocked == 0 {
		t.Fatalf("the recovery log no longer has unknown, cancelled and blocked outcomes (states %q, %d blocked)", states, blocked)
	}
	if !contains(s.Bars, "bar bar-unknown") {
		t.Errorf("no unknown attempt drawn: %q", s.Bars)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#runs p.stage-blocked").length`))
	if err != nil || n != blocked {
		t.Errorf("the page names %d blocked stages (%v), native has %d", n, err, blocked)
	}
	// Each unhealthy run shows its recovery action and steps, as the job
	// summary does, in the rows' order.
	var wantRecovery []string
	for _, row := range viewerRows(want) {
		r := row.Run
		if r == nil || (r.Recovery.Action == checker.ActionNone && len(r.Recovery.Steps) == 0) {
			continue
		}
		if len(r.Recovery.Actions) < 2 {
			wantRecovery = append(wantRecovery, "action "+string(r.Recovery.Action))
			wantRecovery = append(wantRecovery, r.Recovery.Steps...)
			continue
		}
		for _, a := range r.Recovery.Actions { // numbered, in the runbook's order
			wantRecovery = append(wantRecovery, "action "+string(a.Action))
			wantRecovery = append(wantRecovery, a.Steps...)
		}
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs .recovery-action, #runs .recovery-step")].map((e) =>
	  e.classList.contains("recovery-action") ? "action " + e.textContent : e.textContent)`))
	if err != nil || len(wantRecovery) < 4 || !slices.Equal(got, wantRecovery) {
		t.Errorf("recovery shown (%v):\n%q\nnative:\n%q", err, got, wantRecovery)
	}
	// The legend lists every state's mark, from render.StateMarks, each
	// drawn as an SVG icon (no emoji font needed) beside its word.
	legend, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#legend .mark")].map((e) => e.querySelector("svg.icon").getAttribute("aria-label") + ":" + e.textContent)`))
	var wantLegend []string
	for _, m := range render.StateMarks() {
		wantLegend = append(wantLegend, m.Word+": "+m.Word)
	}
	if err != nil || !slices.Equal(legend, wantLegend) {
		t.Errorf("legend %q (%v), want %q", legend, err, wantLegend)
	}
	checkLegendIcons(t, ctx, "#legend > .mark")
}

// TestViewerStaleRow: a pipeline whose newest success is older than its
// max_age shows the run-less stale finding as the first row of the runs
// table, with the detail the text output gives (render.StaleSummary).
func TestViewerStaleRow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	log := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(log, []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n"+
		`{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z","returncode":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	def := "stages: [{id: 1}]\nmax_age: 26h\n"
	ctx := tab(t, bctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, viewcmd.Preload{File: "old.jsonl", Pipeline: &def, PipelineName: "pipeline.yaml", Now: "2026-01-03T10:01:00Z", Gate: "all"}, log)+"?preload=1")); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs tbody tr")].map((r) => r.dataset.state + ": " + r.textContent)`))
	want := "stale: (no run) staleno success within max_age 26h0m0s: the newest success, run r-1, ended 2026-01-01T10:01:00Z"
	if err != nil || len(rows) < 2 || rows[0] != want || !strings.HasPrefix(rows[1], "succeeded: r-1 ") {
		t.Errorf("rows %q (%v), want first %q, then run r-1", rows, err, want)
	}
}
