package render_test

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// hostileSchedule checks a log whose run ids carry a quote, a bidi override,
// HTML and Markdown, against a daily schedule: one late run, one duplicate, one
// unscheduled run and two missed slots.
func hostileSchedule(t *testing.T) *checker.Snapshot {
	t.Helper()
	def, err := checker.ParseDefinition([]byte("stages: [{id: 1}]\nschedule:\n  cron: \"0 2 * * *\"\n  lookback_slots: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := `{"run_id":"late\"\u202e","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-26T03:00:00Z","scheduled_for":"2026-11-26T02:00:00Z"}
{"run_id":"late\"\u202e","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-11-26T03:10:00Z"}
{"run_id":"[dup](http://x)","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-26T02:00:05Z"}
{"run_id":"[dup](http://x)","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-11-26T02:10:00Z"}
{"run_id":"<b>noon</b>","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-27T12:00:00Z"}
{"run_id":"<b>noon</b>","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-11-27T12:10:00Z"}
{"run_id":"n-28","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-28T02:00:05Z"}
{"run_id":"n-28","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-11-28T02:10:00Z"}
`
	res, err := checker.Check(strings.NewReader(log), checker.Options{Definition: def, Now: time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC), File: "x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil {
		t.Fatalf("log refused: %+v", res.Report.Violations)
	}
	return res.Snapshot
}

// TestScheduleText pins the terminal output: missed slots as rows, listed
// with the unhealthy rows first (latest first by logical time: "late"
// names its slot, 02:00, in scheduled_for, "dup" started at 02:00:05) by
// default and in time order
// among the runs with --all-runs, the schedule line, and notes with every
// run id escaped.
func TestScheduleText(t *testing.T) {
	const notes = `schedule: cron "0 2 * * *" in UTC, 4 slots judged, 2 missed; next slot 2026-11-29T02:00:00Z (due by 2026-11-29T02:30:00Z)
  late: run "late\"\u202e" claims slot 2026-11-26T02:00:00Z by scheduled_for but started 30m0s after it was due (first event 2026-11-26T03:00:00Z)
  duplicate: run [dup](http://x) is a second run for slot 2026-11-26T02:00:00Z, which run "late\"\u202e" fills
  unscheduled: run <b>noon</b> started at 2026-11-27T12:00:00Z, outside every slot's window; it fills no slot
freshness: judged by the schedule's latest due slot; the newest success, run n-28, ended 2026-11-28T02:10:00Z, 3h50m0s ago
greenlight: unhealthy: 4 runs (4 succeeded), 2 of 4 slots missed, gate all
`
	for _, c := range []struct {
		name string
		o    render.ListOptions
		want string
	}{
		{"default", render.ListOptions{}, `greenlight: unhealthy: 4 runs (4 succeeded), 2 of 4 slots missed, gate all
  (no run)         missed     slot 2026-11-27T02:00:00Z: no run started by 2026-11-27T02:30:00Z
  (no run)         missed     slot 2026-11-25T02:00:00Z: no run started by 2026-11-25T02:30:00Z
  n-28             succeeded  1 stage, 1 attempt, 9m55s
  <b>noon</b>      succeeded  1 stage, 1 attempt, 10m0s
  [dup](http://x)  succeeded  1 stage, 1 attempt, 9m55s
  "late\"\u202e"   succeeded  1 stage, 1 attempt, 10m0s
` + notes},
		{"all runs", render.ListOptions{All: true}, `greenlight: unhealthy: 4 runs (4 succeeded), 2 of 4 slots missed, gate all
  n-28             succeeded  1 stage, 1 attempt, 9m55s
  <b>noon</b>      succeeded  1 stage, 1 attempt, 10m0s
  (no run)         missed     slot 2026-11-27T02:00:00Z: no run started by 2026-11-27T02:30:00Z
  [dup](http://x)  succeeded  1 stage, 1 attempt, 9m55s
  "late\"\u202e"   succeeded  1 stage, 1 attempt, 10m0s
  (no run)         missed     slot 2026-11-25T02:00:00Z: no run started by 2026-11-25T02:30:00Z
` + notes},
	} {
		var b strings.Builder
		if err := render.WriteTextOptions(&b, hostileSchedule(t), render.TextOptions{List: c.o}); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != c.want {
			t.Errorf("%s: got:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

// TestScheduleMarkdown pins the Markdown rows and schedule section: no run
// id can form a link, tag or escape.
func TestScheduleMarkdown(t *testing.T) {
	got := render.MarkdownReport(hostileSchedule(t), render.MarkdownOptions{})
	for _, want := range []string{
		"| _no run_ | 🚫 missed | | | | slot 2026-11-25T02:00:00Z: no run started by 2026-11-25T02:30:00Z |\n",
		"| \\[dup\\]\\(http\\://x\\) | ✅ succeeded | 1/1 | 1 | 9m55s |  |\n",
		"\n### Schedule\n\ncron \"0 2 \\* \\* \\*\" in UTC, 4 slots judged, 2 missed; next slot 2026-11-29T02:00:00Z (due by 2026-11-29T02:30:00Z).\n",
		"| 2026-11-26T02:00:00Z | 2026-11-26T02:30:00Z | late | late&quot;'\\u202e' | ✅ succeeded |\n",
		"| 2026-11-27T02:00:00Z | 2026-11-27T02:30:00Z | 🚫 missed | | |\n",
		"- unscheduled: run &lt;b&gt;noon&lt;/b&gt; started at 2026-11-27T12:00:00Z, outside every slot's window; it fills no slot\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"\u202e", "<b>", "](http"} {
		if strings.Contains(got, bad) {
			t.Errorf("report holds unescaped %q", bad)
		}
	}
}

// TestRowsWithoutSchedule: without a schedule the rows are the runs,
// latest first whatever their order in the snapshot.
func TestRowsWithoutSchedule(t *testing.T) {
	s := &checker.Snapshot{}
	early, late := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.SetRuns([]checker.RunReport{
		{RunID: "b", FirstEventAt: "2025-01-01T00:00:00Z", FirstEvent: early, FirstLine: 1},
		{RunID: "a", FirstEventAt: "2026-01-01T00:00:00Z", FirstEvent: late, FirstLine: 2},
	})
	var rows []render.Row
	render.EachRow(s, func(r render.Row) bool { rows = append(rows, r); return true })
	if len(rows) != 2 || rows[0].Run.RunID != "a" || rows[1].Run.RunID != "b" || rows[0].Missed != nil {
		t.Errorf("rows = %+v", rows)
	}
	if line := render.ScheduleLine(s, render.Terminal); line != "" {
		t.Errorf("ScheduleLine = %q, want empty", line)
	}
}
