package render_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

func TestMermaid(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cm-2026-11-28", "cm-2026-11-28"},
		{"stage 2 (silver_to_gold)", "stage 2 (silver_to_gold)"},
		{"a: b; c # d", "a_ b_ c _ d"},
		{"x\n```\n%%{init: {'theme':'dark'}}%%", "x________init_ __theme___dark_____"},
		{"<img src=x onerror=alert(1)>", "_img src_x onerror_alert(1)_"},
		{"r-9,crit, done", "r-9_crit_ done"},
		{"été ü 数据", "été ü 数据"},
		{strings.Repeat("a", 81), strings.Repeat("a", 80) + "…"},
	} {
		if got := render.Mermaid(c.in); got != c.want {
			t.Errorf("Mermaid(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// at parses an RFC 3339 time of a fixture.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// withTimes gives a hand-built run report the time values that the fold
// sets beside its time texts (FirstEvent, Started, Ended...).
func withTimes(r *checker.RunReport) *checker.RunReport {
	if r.FirstEventAt != "" {
		r.FirstEvent = at(r.FirstEventAt)
	}
	if r.LastEventAt != "" {
		r.LastEvent = at(r.LastEventAt)
	}
	if r.ScheduledFor != nil {
		r.Slot = at(*r.ScheduledFor)
	}
	for i := range r.Stages {
		for k := range r.Stages[i].Attempts {
			a := &r.Stages[i].Attempts[k]
			a.Started = at(a.StartedAt)
			if a.EndedAt != nil {
				a.Ended = at(*a.EndedAt)
			}
		}
	}
	return r
}

// ganttRun is a run with a retried stage, a stalled stage and a pending one.
func ganttRun() *checker.RunReport {
	return withTimes(&checker.RunReport{
		RunID: "r-1: <b>", State: checker.RunStalled,
		FirstEventAt: "2026-01-01T10:00:00Z",
		Stages: []checker.StageReport{
			{Stage: checker.IntStage(1), Name: ptr("bronze"), State: checker.StageSucceeded, AttemptCount: 2, Attempts: []checker.AttemptReport{
				{Attempt: 1, Status: checker.StageFailed, StartedAt: "2026-01-01T10:00:00Z", EndedAt: ptr("2026-01-01T10:01:30.5Z")},
				{Attempt: 2, Status: checker.StageSucceeded, StartedAt: "2026-01-01T10:02:00Z", EndedAt: ptr("2026-01-01T10:05:00Z")},
			}},
			{Stage: checker.StrStage("gold"), State: checker.StageStalled, AttemptCount: 1, Attempts: []checker.AttemptReport{
				{Attempt: 1, Status: checker.StageStalled, StartedAt: "2026-01-01T10:05:00Z", SilentForSeconds: ptr(3600.0)},
			}},
			{Stage: checker.IntStage(3), State: checker.StagePending},
		},
	})
}

func TestGantt(t *testing.T) {
	got := render.Gantt(ganttRun(), at("2026-01-01T11:05:00Z"))
	want := "```mermaid\n" +
		"gantt\n" +
		"    title Run r-1_ _b_: stalled (UTC)\n" +
		"    dateFormat YYYY-MM-DD HH:mm:ss\n" +
		"    axisFormat %H:%M\n" +
		"    todayMarker off\n" +
		"    section stage 1 (bronze)\n" +
		"    attempt 1 failed :crit, s1a1, 2026-01-01 10:00:00, 2026-01-01 10:01:30\n" +
		"    attempt 2 succeeded :done, s1a2, 2026-01-01 10:02:00, 2026-01-01 10:05:00\n" +
		"    section stage gold\n" +
		"    attempt 1 stall candidate :s2a1, 2026-01-01 10:05:00, 2026-01-01 11:05:00\n" +
		"```\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// bigSnapshot has n failed runs, each with an error of errLen characters.
func bigSnapshot(n, errLen int) *checker.Snapshot {
	s := &checker.Snapshot{
		GeneratedAtUTC: "2026-01-01T12:00:00Z", Verdict: checker.VerdictUnhealthy,
		Source:   checker.Source{Path: "big.jsonl", SHA256: strings.Repeat("0", 64), EventCount: 2 * n},
		Options:  checker.SnapshotOptions{Gate: checker.GateAll},
		RunCount: n, StateCounts: checker.StateCounts{Failed: n},
	}
	var runs []checker.RunReport
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("r-%05d", i)
		runs = append(runs, checker.RunReport{
			RunID: id, State: checker.RunFailed, FirstEventAt: "2026-01-01T10:00:00Z", LastEventAt: "2026-01-01T10:01:00Z", DurationSeconds: 60,
			Stages: []checker.StageReport{{Stage: checker.IntStage(1), State: checker.StageFailed, AttemptCount: 1, Attempts: []checker.AttemptReport{
				{Attempt: 1, Status: checker.StageFailed, StartedAt: "2026-01-01T10:00:00Z", EndedAt: ptr("2026-01-01T10:01:00Z"), Returncode: ptr(int64(1)), Error: ptr(strings.Repeat("e", errLen))},
			}}},
		})
	}
	for i := range runs {
		withTimes(&runs[i])
	}
	s.GeneratedAt = at(s.GeneratedAtUTC)
	s.LatestRunID = &runs[n-1].RunID
	setRuns(s, runs)
	return s
}

// TestJobSummaryLimit: a summary that would be too big lists fewer runs,
// says so, stays under the limit, keeps the gantt chart and cuts long errors.
func TestJobSummaryLimit(t *testing.T) {
	s := bigSnapshot(400, 2000)
	logs := []render.LogResult{{File: "big.jsonl", Snapshot: s, Report: checker.NewReport()}}
	huge := []render.LogResult{{File: "huge.jsonl", Snapshot: bigSnapshot(3000, 600), Report: checker.NewReport()}}
	full := render.JobSummary(render.SummaryCheck, huge, 10_000_000)
	if len(full) > render.JobSummaryLimit-1024 || !strings.Contains(full, "Not shown: 2980 more unhealthy runs;") {
		t.Fatalf("a limit above the runner's is not capped at 1 MiB - 1 KiB: %d bytes", len(full))
	}
	const limit = 12_000
	got, complete := render.JobSummaryComplete(render.SummaryCheck, logs, limit)
	if len(got) > limit || complete {
		t.Errorf("summary is %d bytes (complete %v), over the limit %d", len(got), complete, limit)
	}
	if !strings.Contains(got, "Not shown: ") {
		t.Error("the cut tables do not say that runs were left out")
	}
	if !strings.Contains(got, "```mermaid\n") || !strings.HasSuffix(got, "```\n") {
		t.Error("the gantt chart of the latest run is missing")
	}
	if strings.Contains(got, strings.Repeat("e", render.MaxSummaryTextRunes+1)) || !strings.Contains(got, strings.Repeat("e", render.MaxSummaryTextRunes)+"…") {
		t.Error("long errors are not cut at MaxSummaryTextRunes")
	}
	if *s.Collect()[0].Stages[0].Attempts[0].Error != strings.Repeat("e", 2000) {
		t.Error("JobSummary modified the snapshot")
	}
}

// TestJobSummaryCut: when even one row per table is too big, the summary is
// cut at a line and says so.
func TestJobSummaryCut(t *testing.T) {
	var logs []render.LogResult
	for i := 0; i < 50; i++ {
		logs = append(logs, render.LogResult{File: fmt.Sprintf("log-%02d.jsonl", i), Snapshot: bigSnapshot(1, 400), Report: checker.NewReport()})
	}
	got := render.JobSummary(render.SummaryCheck, logs, 8000)
	if len(got) > 8000 {
		t.Errorf("summary is %d bytes, over 8000", len(got))
	}
	if !strings.HasSuffix(got, "\n_The job summary was cut here to stay under the runner's 1 MiB limit._\n") {
		t.Errorf("the cut is not announced:\n%s", got[len(got)-200:])
	}
}

func TestJobSummaryValidate(t *testing.T) {
	bad := checker.NewReport()
	bad.Add(checker.Violation{File: "b.jsonl", Line: 3, Rule: checker.RuleSchema, Message: "a <b>bad</b> line"}, 0)
	logs := []render.LogResult{
		{File: "a.jsonl", Snapshot: bigSnapshot(1, 10), Report: checker.NewReport()},
		{File: "b.jsonl", Report: bad},
	}
	got := render.JobSummary(render.SummaryValidate, logs, 0)
	want := "## ⛔ greenlight: invalid event log\n\n1 contract violation: nothing in this log is evidence until it is fixed.\n\n" +
		"| file | line | rule | message |\n|---|---|---|---|\n" +
		"| b\\.jsonl | 3 | `schema` | a &lt;b&gt;bad&lt;/b&gt; line |\n" +
		"\nChecked 2 logs: a\\.jsonl, b\\.jsonl.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if v := render.OverallVerdict(logs); v != render.VerdictInvalid {
		t.Errorf("OverallVerdict = %q, want invalid", v)
	}
}

func TestOverallVerdict(t *testing.T) {
	healthy := &checker.Snapshot{Verdict: checker.VerdictHealthy}
	unhealthy := &checker.Snapshot{Verdict: checker.VerdictUnhealthy}
	for _, c := range []struct {
		name string
		logs []render.LogResult
		want string
	}{
		{"no log", nil, checker.VerdictUnhealthy},
		{"all healthy", []render.LogResult{{Snapshot: healthy}, {Snapshot: healthy}}, checker.VerdictHealthy},
		{"one unhealthy", []render.LogResult{{Snapshot: healthy}, {Snapshot: unhealthy}}, checker.VerdictUnhealthy},
		{"one invalid", []render.LogResult{{Snapshot: unhealthy}, {Report: checker.NewReport()}}, render.VerdictInvalid},
	} {
		if got := render.OverallVerdict(c.logs); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestJobSummaryOfCheckedLog: the snapshot of a checked log, whose run
// reports are built as they are read, is cut like one held whole: errors at
// MaxSummaryTextRunes characters, and fewer rows until the summary fits.
// (With a streamed snapshot, JobSummary once sized its rows from the empty
// Snapshot.Runs and left long errors whole.)
func TestJobSummaryOfCheckedLog(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, `{"run_id":"r-%03d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n", i)
		fmt.Fprintf(&b, `{"run_id":"r-%03d","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"%s"}`+"\n", i, strings.Repeat("e", 3000))
	}
	def, err := checker.ParseDefinition([]byte("stages: [{id: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(b.String()), checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), File: "big.jsonl"})
	if err != nil || res.Snapshot == nil {
		t.Fatal(err, res.Report.Violations)
	}
	const limit = 100_000
	got := render.JobSummary(render.SummaryCheck, []render.LogResult{{File: "big.jsonl", Snapshot: res.Snapshot, Report: res.Report}}, limit)
	if len(got) > limit {
		t.Errorf("summary is %d bytes, over the limit %d", len(got), limit)
	}
	if strings.Contains(got, strings.Repeat("e", render.MaxSummaryTextRunes+1)) || !strings.Contains(got, strings.Repeat("e", render.MaxSummaryTextRunes)+"…") {
		t.Error("long errors are not cut at MaxSummaryTextRunes")
	}
	if !strings.Contains(got, "Not shown: 380 more unhealthy runs;") {
		t.Error("the note on the runs not shown is missing")
	}
}
