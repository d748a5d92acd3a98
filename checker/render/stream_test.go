package render_test

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// tabwriterText is the text output of rows as it was written with
// text/tabwriter, which holds every row until it flushes: the reference
// that WriteTextOptions's padding must match byte for byte.
func tabwriterText(s *checker.Snapshot, rows []render.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "greenlight: %s\n", render.Headline(s))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		if row.Missed != nil {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", render.NoRun, render.StateMissed, render.MissedSummary(row.Missed))
			continue
		}
		d := render.Detail(&s.Source, row.Run)
		detail := render.Terminal(d.Summary)
		if d.HasErr {
			detail += ": " + render.Terminal(d.Error)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", render.Terminal(row.Run.RunID), row.Run.State, detail)
	}
	tw.Flush()
	return b.String()
}

// streamedLog checks log twice, with the run reports held whole
// (runview.SetRuns of Collect) and built as they are read.
func streamedLog(t *testing.T, log string, def *checker.Definition, now time.Time) (whole, streamed *checker.Snapshot) {
	t.Helper()
	for _, stream := range []bool{false, true} {
		res, err := checker.Check(strings.NewReader(log), checker.Options{Definition: def, Now: now, File: "x.jsonl"})
		if err != nil || res.Snapshot == nil {
			t.Fatalf("log refused: %v %+v", err, res.Report.Violations)
		}
		if !stream {
			setRuns(res.Snapshot, res.Snapshot.Collect())
		}
		if stream {
			streamed = res.Snapshot
		} else {
			whole = res.Snapshot
		}
	}
	return whole, streamed
}

// TestWriteTextMatchesTabwriter: the streamed text aligns its columns as
// text/tabwriter did, with run ids of several widths in characters
// (multi-byte letters, a quoted id, a long one) and missed-slot rows, and is
// the same for a streamed snapshot (outside review).
func TestWriteTextMatchesTabwriter(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("stages: [{id: 1}]\nschedule:\n  cron: \"0 2 * * *\"\n  lookback_slots: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ids := []string{"é-日本語", `q\"\u202e`, "a", strings.Repeat("long-", 12)}
	for i, id := range ids {
		day := 24 + 2*i // every other night: the nights between are missed
		status := "succeeded"
		extra := ""
		if i == 1 {
			status, extra = "failed", `,"error":"tab\there"`
		}
		fmt.Fprintf(&b, `{"run_id":"%s","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-%02dT02:00:05Z"}`+"\n", id, day)
		fmt.Fprintf(&b, `{"run_id":"%s","stage":1,"attempt":1,"status":"%s","timestamp_utc":"2026-11-%02dT02:10:00Z"%s}`+"\n", id, status, day, extra)
	}
	whole, streamed := streamedLog(t, b.String(), def, time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC))
	// Every row, in the log's order, padded from a pass over the ids.
	var rows []render.Row
	render.EachRow(whole, func(r render.Row) bool { rows = append(rows, r); return true })
	all := func(s *checker.Snapshot) string {
		var b strings.Builder
		if err := render.WriteTextOptions(&b, s, render.TextOptions{List: render.ListOptions{All: true}}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := all(whole)
	if want := tabwriterText(whole, rows); !strings.HasPrefix(got, want) {
		t.Fatalf("rows differ from text/tabwriter's:\n%s\nwant:\n%s", got, want)
	}
	if s := all(streamed); s != got {
		t.Errorf("streamed snapshot:\n%s\nheld:\n%s", s, got)
	}
	if !strings.Contains(got, "  (no run)   ") {
		t.Errorf("no missed row in\n%s", got)
	}
	// The default listing, padded from the rows it lists.
	l := render.Select(whole, render.ListOptions{})
	got = render.Text(whole)
	if want := tabwriterText(whole, l.Rows()); !strings.HasPrefix(got, want) {
		t.Fatalf("default rows differ from text/tabwriter's:\n%s\nwant:\n%s", got, want)
	}
	if s := render.Text(streamed); s != got {
		t.Errorf("streamed snapshot:\n%s\nheld:\n%s", s, got)
	}
}

// TestWriteMarkdownMatchesString: the Markdown report written to a writer
// is MarkdownReport's string, for held and streamed snapshots alike.
func TestWriteMarkdownMatchesString(t *testing.T) {
	s := hostileSchedule(t)
	want := render.MarkdownReport(s, render.MarkdownOptions{})
	var b strings.Builder
	if err := render.WriteMarkdownReport(&b, s, render.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("WriteMarkdownReport:\n%s\nMarkdownReport:\n%s", b.String(), want)
	}
}

// TestJobSummaryStreamed: the job summary of a streamed snapshot, as the
// action makes it, is that of the held one, whole and cut to a limit that
// leaves runs out.
func TestJobSummaryStreamed(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 60 {
		status, extra := "succeeded", ""
		if i%3 == 0 {
			status, extra = "failed", `,"returncode":1,"error":"`+strings.Repeat("e", 700)+`"`
		}
		day := time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC).AddDate(0, 0, i)
		fmt.Fprintf(&b, `{"run_id":"r-%02d","stage":1,"attempt":1,"status":"started","timestamp_utc":"%s"}`+"\n", i, day.Format(time.RFC3339))
		fmt.Fprintf(&b, `{"run_id":"r-%02d","stage":1,"attempt":1,"status":"%s","timestamp_utc":"%s"%s}`+"\n", i, status, day.Add(time.Minute).Format(time.RFC3339), extra)
	}
	whole, streamed := streamedLog(t, b.String(), def, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	for _, limit := range []int{0, 9_000} {
		want := render.JobSummary(render.SummaryCheck, []render.LogResult{{File: "x.jsonl", Snapshot: whole, Report: checker.NewReport()}}, limit)
		got := render.JobSummary(render.SummaryCheck, []render.LogResult{{File: "x.jsonl", Snapshot: streamed, Report: checker.NewReport()}}, limit)
		if got != want {
			t.Errorf("limit %d: streamed summary differs:\n%s\nheld:\n%s", limit, got, want)
		}
		if limit > 0 && (len(got) > limit || !strings.Contains(got, "Not shown: ")) {
			t.Errorf("limit %d: %d bytes, cut note missing", limit, len(got))
		}
		if strings.Contains(got, strings.Repeat("e", render.MaxSummaryTextRunes+1)) {
			t.Errorf("limit %d: an error is not cut at %d characters", limit, render.MaxSummaryTextRunes)
		}
	}
}
