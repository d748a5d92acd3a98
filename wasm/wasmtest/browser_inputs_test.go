package wasmtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// hostileOpenLineage is an OpenLineage log whose job name and error message
// are markup: a failed run of job ns/<img ...>.
const hostileOpenLineage = `{"eventType":"START","eventTime":"2026-01-01T10:00:00Z","run":{"runId":"0192963f-929e-731b-a075-9bb14bf41d38"},"job":{"namespace":"ns","name":"<img src=x onerror=alert(1)>"},"producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}
{"eventType":"FAIL","eventTime":"2026-01-01T10:05:00Z","run":{"runId":"0192963f-929e-731b-a075-9bb14bf41d38","facets":{"errorMessage":{"_producer":"https://example.com/p","_schemaURL":"https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet","message":"<script>alert(2)</script> & <b>bold</b>","programmingLanguage":"python"}}},"job":{"namespace":"ns","name":"<img src=x onerror=alert(1)>"},"producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}
`

// pageNow is the moment the tests below judge logs at.
const pageNow = "2026-01-01T12:00:00Z"

// choose sets the page's inputs and picks files, in order: each entry of
// files is an input element's id and a path. Picking the log starts a check.
func choose(t *testing.T, ctx context.Context, values map[string]string, files ...[2]string) {
	t.Helper()
	var actions []chromedp.Action[chromedp.Void]
	for id, v := range values {
		actions = append(actions, chromedp.SetValue(chromedp.ID(id), v))
	}
	for _, f := range files {
		abs, err := filepath.Abs(f[1])
		if err != nil {
			t.Fatal(err)
		}
		actions = append(actions, chromedp.SetUploadFiles(chromedp.ID(f[0]), []string{abs}))
	}
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// again hides the shown result, runs js in the page (which starts another
// check) and waits for the new result.
func again(t *testing.T, ctx context.Context, js string) shown {
	t.Helper()
	reset := `document.getElementById("result").hidden = true; document.getElementById("error").hidden = true;`
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](reset+"{"+js+"}")); err != nil {
		t.Fatal(err)
	}
	return settle(t, ctx)
}

// viewerRow is a row of the viewer's runs table: a run, or a missed slot
// (Run nil).
type viewerRow struct {
	Run    *checker.RunReport
	Missed *checker.MissedSlot
	when   time.Time
}

// viewerRows lists a snapshot's rows in the viewer's order, the job
// summary's: the unhealthy rows (runs not succeeded, missed slots) first,
// then the succeeded runs, each latest first (the claimed slot, else the
// first event; ties: the later line first).
func viewerRows(s *checker.Snapshot) []viewerRow {
	var rows []viewerRow
	runs := s.Collect()
	for i := range runs {
		r := &runs[i]
		w := r.FirstEvent
		if r.ScheduledFor != nil {
			w = r.Slot
		}
		rows = append(rows, viewerRow{Run: r, when: w})
	}
	if s.Schedule != nil {
		for i := range s.Schedule.Missed {
			m := &s.Schedule.Missed[i]
			rows = append(rows, viewerRow{Missed: m, when: m.Slot})
		}
	}
	good := func(r viewerRow) int {
		if r.Run != nil && r.Run.State == checker.RunSucceeded {
			return 1
		}
		return 0
	}
	line := func(r viewerRow) int {
		if r.Run == nil {
			return -1
		}
		return r.Run.FirstLine
	}
	slices.SortStableFunc(rows, func(a, b viewerRow) int {
		if d := good(a) - good(b); d != 0 {
			return d
		}
		if c := b.when.Compare(a.when); c != 0 {
			return c
		}
		return line(b) - line(a)
	})
	return rows
}

// runStates lists a snapshot's rows' run ids ("(no run)" for a missed
// slot) and states ("missed") in the viewer's order.
func runStates(s *checker.Snapshot) (ids, states []string) {
	for _, r := range viewerRows(s) {
		if r.Run == nil {
			ids, states = append(ids, "(no run)"), append(states, "missed")
			continue
		}
		ids = append(ids, r.Run.RunID)
		states = append(states, string(r.Run.State))
	}
	return ids, states
}

// sameRuns fails the test unless the page lists the snapshot's runs with
// their states, in order, under its verdict.
func sameRuns(t *testing.T, s shown, want *checker.Snapshot) {
	t.Helper()
	if want == nil {
		t.Fatalf("the native check found the log invalid; the page shows %+v", s)
	}
	ids, states := runStates(want)
	if s.Error != "" || s.Verdict != string(want.Verdict) || !slices.Equal(s.Runs, ids) || !slices.Equal(s.States, states) {
		t.Fatalf("page shows %+v\nnative: %s, runs %q, states %q", s, want.Verdict, ids, states)
	}
}

// TestViewerInputs drives the viewer's format choice and its job-log input
// in headless Chromium: OpenLineage logs (a real capture from the file
// picker, and one preloaded as by greenlight view whose job name and error
// are markup) and the recovery log with its job log give the
// native checker's runs and states, the job log's inconsistencies are
// listed, forgetting the job log checks without it, and a job log beside an
// OpenLineage log gets the CLI's refusal.
func TestViewerInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	open := func(t *testing.T) context.Context {
		ctx := tab(t, bctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, viewcmd.Preload{}, "")), chromedp.WaitReady(chromedp.ID("log-file"))); err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	olOptions := func(t *testing.T) checker.Options {
		o, err := checker.Request{InputFormat: checker.FormatOpenLineage, Now: pageNow, File: "x"}.Options()
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	nativeOL := func(t *testing.T, path string) *checker.Snapshot {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := openlineage.Check(bytes.NewReader(data), olOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		return res.Snapshot
	}

	t.Run("an OpenLineage capture", func(t *testing.T) {
		log := openLineageSamples + "/airflow.jsonl"
		if _, err := os.Stat(log); err != nil {
			msg := fmt.Sprintf("SKIP: %s is missing, so the viewer is NOT tested on a real OpenLineage capture", log)
			fmt.Fprintln(os.Stderr, msg)
			t.Skip(msg)
		}
		ctx := open(t)
		choose(t, ctx, map[string]string{"input-format": "openlineage", "now": pageNow}, [2]string{"log-file", log})
		s := settle(t, ctx)
		want := nativeOL(t, log)
		sameRuns(t, s, want)
		if n := *want.Source.ReorderedEvents; n > 0 && !strings.Contains(s.Summary, fmt.Sprintf("; %d events put back in eventTime order within their pipeline run", n)) {
			t.Errorf("summary %q does not say that %d events were put back in order", s.Summary, n)
		}
		if s.Reconciliation != "" {
			t.Errorf("a job-log box without a job log: %q", s.Reconciliation)
		}
	})

	t.Run("OpenLineage log text stays text", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "hostile.jsonl")
		if err := os.WriteFile(log, []byte(hostileOpenLineage), 0o644); err != nil {
			t.Fatal(err)
		}
		// Preloaded, as by greenlight view --input-format openlineage.
		ctx := tab(t, bctx)
		p := viewcmd.Preload{File: "hostile.jsonl", InputFormat: checker.FormatOpenLineage, Now: pageNow, Gate: "all"}
		if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, p, log)+"?preload=1")); err != nil {
			t.Fatal(err)
		}
		s := settle(t, ctx)
		want := nativeOL(t, log)
		sameRuns(t, s, want)
		st := want.Collect()[0].Stages[0]
		label := "stage " + st.Stage.String()
		wantErr := *st.Attempts[len(st.Attempts)-1].Error
		if !strings.Contains(label, "<img src=x onerror=alert(1)>") || !strings.Contains(wantErr, "<script>") {
			t.Fatalf("the native check no longer carries the markup this test relies on: %q, %q", label, wantErr)
		}
		if !slices.Equal(s.StageLabels, []string{label}) || !slices.Equal(s.StageErrors, []string{wantErr}) {
			t.Fatalf("the page does not show the log text verbatim: labels %q, errors %q", s.StageLabels, s.StageErrors)
		}
		if s.Images != 0 || s.Alerts != 0 {
			t.Fatalf("log text became markup: %d images, %d alerts", s.Images, s.Alerts)
		}
	})

	t.Run("a job log from its own file picker", func(t *testing.T) {
		dir := root + "/testdata/recovery/"
		log, jobLog, pipeline := dir+"orders_daily.jsonl", dir+"orders_daily.joblog.jsonl", dir+"pipeline.yaml"
		def, err := os.ReadFile(pipeline)
		if err != nil {
			t.Fatal(err)
		}
		jobData, err := os.ReadFile(jobLog)
		if err != nil {
			t.Fatal(err)
		}
		req := checker.Request{Pipeline: def, Now: pageNow, File: "x", JobLogFile: filepath.Base(jobLog)}
		opts, err := req.Options()
		if err != nil {
			t.Fatal(err)
		}
		opts.JobLog = bytes.NewReader(jobData)
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		res, err := checker.Check(bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		with := res.Snapshot
		without := nativeCheck(t, log, checker.Request{Pipeline: def, Now: pageNow})
		_, withStates := runStates(with)
		_, withoutStates := runStates(without.Snapshot)
		rc := with.Reconciliation
		if slices.Equal(withStates, withoutStates) || rc == nil || len(rc.Inconsistencies) == 0 || rc.AdoptedCount == 0 {
			t.Fatal("the recovery log's job log no longer changes run states, adopts attempts and disagrees somewhere; this test relies on all three")
		}
		var incs []string
		for _, inc := range rc.Inconsistencies {
			incs = append(incs, inc.Code+" "+inc.AttemptID)
		}
		summary := fmt.Sprintf("%s: %d records, %d attempts adjudicated from it, %d inconsistencies", rc.JobLog, rc.RecordCount, rc.AdoptedCount, len(rc.Inconsistencies))
		if rc.AdoptedCount == 1 {
			summary = strings.Replace(summary, "1 attempts", "1 attempt", 1)
		}
		if len(rc.Inconsistencies) == 1 {
			summary = strings.Replace(summary, "1 inconsistencies", "1 inconsistency", 1)
		}

		ctx := open(t)
		choose(t, ctx, map[string]string{"now": pageNow},
			[2]string{"pipeline-file", pipeline}, [2]string{"joblog-file", jobLog}, [2]string{"log-file", log})
		s := settle(t, ctx)
		sameRuns(t, s, with)
		if s.Reconciliation != summary || !slices.Equal(s.Inconsistencies, incs) {
			t.Fatalf("job-log box: %q, rows %q\nnative: %q, rows %q", s.Reconciliation, s.Inconsistencies, summary, incs)
		}
		screenshot(t, ctx, filepath.Join(t.TempDir(), "joblog.png"))

		// A job log beside an OpenLineage log: the checker's refusal, in
		// the js module's option names (job_log, input_format).
		s = again(t, ctx, `const f = document.getElementById("input-format"); f.value = "openlineage"; f.dispatchEvent(new Event("change"));`)
		_, refusal := (checker.Request{InputFormat: checker.FormatOpenLineage, JobLogFile: "j",
			Knob: func(field string) string { return words.Knob(field, "", '_') }}).Options()
		if refusal == nil || s.Error != refusal.Error() || s.Verdict != "" {
			t.Fatalf("openlineage with a job log: page shows %+v, want the error %v", s, refusal)
		}

		// Forgotten, the job log no longer counts.
		s = again(t, ctx, `const f = document.getElementById("input-format"); f.value = "native";
document.getElementById("joblog-clear").click(); document.getElementById("check").click();`)
		sameRuns(t, s, without.Snapshot)
		if s.Reconciliation != "" || len(s.Inconsistencies) != 0 {
			t.Fatalf("the forgotten job log still shows: %q %q", s.Reconciliation, s.Inconsistencies)
		}
	})
}
