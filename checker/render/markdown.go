package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// MarkdownOptions bound a Markdown rendering. List says which rows the
// runs table lists (the zero value: the default listing, Select's, as the
// text output; List.All: every row in the log's order). MaxRuns caps the
// rows of the runs table and the unhealthy-run details further (0: no cap
// beyond List's). MaxErrorRunes cuts each attempt's error text after that
// many characters, marking the cut with "…" (0: no cut).
type MarkdownOptions struct {
	List          ListOptions
	MaxRuns       int
	MaxErrorRunes int
	// Selected, when not nil, gives the default listing's rows: a Selector
	// with the default caps that the caller offered every run of the
	// snapshot, so that the report reads no run itself. Ignored with
	// List.All.
	Selected *Selector
}

// MarkdownReport renders a snapshot as a Markdown report: the verdict
// headline, a table of the listed runs, a note on those not shown, the
// schedule, warnings and inconsistencies, and the details of every listed
// unhealthy run. All log text is escaped with Markdown.
// WriteMarkdownReport writes the same bytes without holding them.
func MarkdownReport(s *checker.Snapshot, o MarkdownOptions) string {
	var b strings.Builder
	WriteMarkdownReport(&b, s, o) // a strings.Builder never fails
	return b.String()
}

// WriteMarkdownReport writes MarkdownReport's bytes to w, and returns the
// first write error. By default the table lists Select's rows, the latest
// unhealthy rows then the latest runs, each group latest first, read in
// one pass over the runs that holds only them. With o.List.All a streamed
// snapshot stays streamed: the runs table and the unhealthy-run details
// are a pass over the runs each, and after a write error it stops reading
// runs.
func WriteMarkdownReport(w io.Writer, s *checker.Snapshot, o MarkdownOptions) error {
	return writeMarkdownReport(w, s, o, maxHeldDetails)
}

// markdownHead writes the verdict heading and the headline paragraph; it
// reports false, having said so and written the notices (noticesMarkdown),
// when there is no row to list.
func markdownHead(b *bufio.Writer, s *checker.Snapshot) bool {
	icon := "✅"
	if s.Verdict != checker.VerdictHealthy {
		icon = "❌"
	}
	fmt.Fprintf(b, "## %s greenlight: %s\n\n", icon, s.Verdict)
	digest := ""
	if len(s.Source.SHA256) >= 12 {
		// (a check with checker.Reading.ContractOnly leaves none)
		digest = ", sha256 " + s.Source.SHA256[:12]
	}
	fmt.Fprintf(b, "%s. Judged at %s; log %s (%s%s).\n\n",
		Markdown(Headline(s)), s.GeneratedAtUTC, Markdown(fileName(s.Source.Path)), words.Count(s.Source.EventCount, "event"), digest)
	if line := FreshnessLine(s, Markdown); line != "" {
		fmt.Fprintf(b, "Freshness: %s.\n\n", line)
	}
	if RowCount(s) == 0 {
		b.WriteString("No run in the log: an empty log proves nothing.\n")
		if s.Schedule != nil {
			markdownSchedule(b, s)
		}
		// A log of requests only has no row, but its stale requests
		// (and any warning) still need their section.
		if n := noticesMarkdown(s); n != "" {
			b.WriteString("\n" + n)
		}
		return false
	}
	b.WriteString("| run | state | stages succeeded | attempts | duration | detail |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	if IsStale(s) {
		fmt.Fprintf(b, "| _no run_ | %s %s | | | | %s |\n", stateIcon(StateMissed), StateStale, StaleSummary(s, Markdown))
	}
	return true
}

// writeMarkdownRow writes one row of the runs table; scratch is reused
// storage for its numbers. now is the check's now: a run still in progress
// has lasted until then (RunSeconds), not only until its last event.
func writeMarkdownRow(b *bufio.Writer, src *checker.Source, row Row, now time.Time, maxErrorRunes int, scratch *[]byte) {
	if row.Missed != nil {
		// The summary holds only slot times greenlight formatted, no log text.
		fmt.Fprintf(b, "| _no run_ | %s %s | | | | %s |\n", stateIcon(StateMissed), StateMissed, MissedSummary(row.Missed))
		return
	}
	r := clipErrors(row.Run, maxErrorRunes)
	ok, skipped := 0, 0
	for _, st := range r.Stages {
		switch st.State {
		case checker.StageSucceeded:
			ok++
		case checker.StageSkipped:
			skipped++
		}
	}
	// The row is written piece by piece: a report of a million runs
	// should leave little garbage behind each.
	b.WriteString("| ")
	b.WriteString(Markdown(r.RunID))
	b.WriteString(" | ")
	b.WriteString(stateIcon(string(r.State)))
	b.WriteByte(' ')
	b.WriteString(string(r.State))
	b.WriteString(" | ")
	num := strconv.AppendInt((*scratch)[:0], int64(ok), 10)
	num = append(num, '/')
	num = strconv.AppendInt(num, int64(len(r.Stages)), 10)
	if skipped > 0 {
		num = append(num, ", "...)
		num = strconv.AppendInt(num, int64(skipped), 10)
		num = append(num, " skipped"...)
	}
	num = append(num, " | "...)
	num = strconv.AppendInt(num, int64(attemptCount(r)), 10)
	*scratch = append(num, " | "...)
	b.Write(*scratch)
	b.WriteString(Duration(RunSeconds(r, now)))
	b.WriteString(" | ")
	if r.State != checker.RunSucceeded || skipped > 0 {
		d := Detail(src, r)
		b.WriteString(Markdown(d.Summary))
		if d.HasErr {
			b.WriteString(": " + Markdown(d.Error))
		}
	}
	b.WriteString(" |\n")
}

// writeMarkdownListing writes the default Markdown report (Select's rows).
func writeMarkdownListing(b *bufio.Writer, s *checker.Snapshot, o MarkdownOptions) error {
	if !markdownHead(b, s) {
		return b.Flush()
	}
	lo := o.List
	maxUnhealthy, maxLatest := lo.caps()
	if o.MaxRuns > 0 {
		lo.MaxUnhealthy, lo.Latest = min(maxUnhealthy, o.MaxRuns), min(maxLatest, o.MaxRuns)
	}
	var l Listing
	if o.Selected != nil {
		l = o.Selected.Listing(lo)
	} else {
		l = Select(s, lo)
	}
	var scratch []byte
	rows := l.Rows()
	for _, row := range rows {
		writeMarkdownRow(b, &s.Source, row, s.GeneratedAt, o.MaxErrorRunes, &scratch)
	}
	if more := l.Left(true); len(more) > 0 {
		fmt.Fprintf(b, "\n_Listed: the latest unhealthy runs and missed slots, then the latest runs. Not shown: %s; `greenlight check --format json` lists every run._\n", strings.Join(more, ", "))
	}
	if s.Schedule != nil {
		markdownSchedule(b, s)
	}
	if n := noticesMarkdown(s); n != "" {
		b.WriteString("\n" + n)
	}
	first := true
	for _, row := range rows {
		if r := row.Run; r != nil && r.State != checker.RunSucceeded {
			writeUnhealthyRun(b, clipErrors(r, o.MaxErrorRunes), first)
			first = false
		}
	}
	return b.Flush()
}

// writeMarkdownReport is WriteMarkdownReport keeping at most maxHeld bytes
// of unhealthy-run details while it writes the runs table (List.All).
func writeMarkdownReport(w io.Writer, s *checker.Snapshot, o MarkdownOptions, maxHeld int) error {
	b := bufio.NewWriterSize(w, 64<<10)
	if !o.List.All {
		return writeMarkdownListing(b, s, o)
	}
	failed := func() bool { _, err := b.Write(nil); return err != nil }
	if !markdownHead(b, s) {
		return b.Flush()
	}
	// Without a row cap, the unhealthy-run details, which follow the
	// schedule and notices, are kept as the rows are written, up to
	// maxHeldDetails bytes; else a second pass over the runs writes them.
	var details strings.Builder
	held, unhealthy := o.MaxRuns == 0, 0
	shown := 0
	var scratch []byte
	EachRow(s, func(row Row) bool {
		if failed() {
			return false
		}
		if o.MaxRuns > 0 && shown == o.MaxRuns {
			what := "more run"
			if missed, _ := MissedCount(s); missed > 0 {
				what = "more row"
			}
			fmt.Fprintf(b, "\n_%s not shown._\n", words.Count(RowCount(s)-shown, what))
			return false
		}
		shown++
		writeMarkdownRow(b, &s.Source, row, s.GeneratedAt, o.MaxErrorRunes, &scratch)
		if r := row.Run; r != nil && held && r.State != checker.RunSucceeded {
			writeUnhealthyRun(&details, clipErrors(r, o.MaxErrorRunes), unhealthy == 0)
			unhealthy++
			if details.Len() > maxHeld {
				held, details = false, strings.Builder{}
			}
		}
		return true
	})
	if s.Schedule != nil {
		markdownSchedule(b, s)
	}
	if n := noticesMarkdown(s); n != "" {
		b.WriteString("\n" + n)
	}
	if held {
		b.WriteString(details.String())
		return b.Flush()
	}
	unhealthy = 0
	EachRow(s, func(row Row) bool {
		r := row.Run
		switch {
		case failed():
			return false
		case r == nil || r.State == checker.RunSucceeded:
			return true
		case o.MaxRuns > 0 && unhealthy == o.MaxRuns:
			b.WriteString("\n_More unhealthy runs not shown._\n")
			return false
		}
		writeUnhealthyRun(b, clipErrors(r, o.MaxErrorRunes), unhealthy == 0)
		unhealthy++
		return true
	})
	return b.Flush()
}

// writeUnhealthyRun writes the details of one unhealthy run: its recovery
// and a table of its stages' attempts, under the section's heading when
// first is set. All log text is escaped with Markdown.
func writeUnhealthyRun(b io.Writer, r *checker.RunReport, first bool) {
	if first {
		io.WriteString(b, "\n### Unhealthy runs\n")
	}
	fmt.Fprintf(b, "\n#### %s run %s: %s\n\n", stateIcon(string(r.State)), Markdown(r.RunID), r.State)
	if rec := recoveryMarkdown(&r.Recovery); rec != "" {
		io.WriteString(b, rec+"\n")
	}
	io.WriteString(b, "| stage | state | attempt | status | started | ended | returncode | error |\n")
	io.WriteString(b, "|---|---|---|---|---|---|---|---|\n")
	for k := range r.Stages {
		st := &r.Stages[k]
		if len(st.Attempts) == 0 {
			fmt.Fprintf(b, "| %s | %s %s | | | | | | |\n", Markdown(StageLabel(st)), stateIcon(string(st.State)), st.State)
			continue
		}
		for _, a := range st.Attempts {
			ended, rc, errText := "", "", ""
			if a.EndedAt != nil {
				ended = *a.EndedAt
			} else if a.SilentForSeconds != nil {
				ended = "silent " + Duration(*a.SilentForSeconds)
			}
			if a.Returncode != nil {
				rc = fmt.Sprint(*a.Returncode)
			}
			if a.Error != nil {
				errText = Markdown(*a.Error)
			}
			fmt.Fprintf(b, "| %s | %s %s | %d | %s | %s | %s | %s | %s |\n",
				Markdown(StageLabel(st)), stateIcon(string(st.State)), st.State, a.Attempt, a.Status, a.StartedAt, ended, rc, errText)
		}
	}
}

// maxHeldDetails bounds the unhealthy-run details WriteMarkdownReport keeps
// while it writes the runs table (bytes); past it they are written from a
// second pass over the runs.
const maxHeldDetails = 16 << 20

// clipErrors returns r, or, when an attempt's error is longer than max
// characters (max > 0), a copy of r whose errors are cut there; r itself is
// never modified.
func clipErrors(r *checker.RunReport, max int) *checker.RunReport {
	if max <= 0 {
		return r
	}
	long := false
	for _, st := range r.Stages {
		for _, a := range st.Attempts {
			if a.Error != nil && clip(*a.Error, max) != *a.Error {
				long = true
			}
		}
	}
	if !long {
		return r
	}
	c := *r
	c.Stages = make([]checker.StageReport, len(r.Stages))
	for k, st := range r.Stages {
		atts := make([]checker.AttemptReport, len(st.Attempts))
		for j, a := range st.Attempts {
			if a.Error != nil {
				e := clip(*a.Error, max)
				a.Error = &e
			}
			atts[j] = a
		}
		st.Attempts = atts
		c.Stages[k] = st
	}
	return &c
}

// ViolationsMarkdown renders a violations report as a Markdown table, listing
// at most max rows (0: all that the report lists).
func ViolationsMarkdown(r *checker.Report, max int) string {
	var b strings.Builder
	if r.Valid {
		b.WriteString("## ✅ greenlight: the event logs follow the contract\n\nNo violation found.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "## ⛔ greenlight: invalid event log\n\n%s: nothing in this log is evidence until %s fixed.\n\n", words.Count(r.ViolationCount, "contract violation"), words.Plural(r.ViolationCount, "it is"))
	b.WriteString("| file | line | rule | message |\n|---|---|---|---|\n")
	listed := 0
	for _, v := range r.Violations {
		if max > 0 && listed == max {
			break
		}
		listed++
		fmt.Fprintf(&b, "| %s | %d | `%s` | %s |\n", Markdown(fileName(v.File)), v.Line, v.Rule, Markdown(v.Message))
	}
	if rest := r.ViolationCount - listed; rest > 0 {
		fmt.Fprintf(&b, "\n_%s not listed._\n", words.Count(rest, "more violation"))
	}
	return b.String()
}

// markdownSchedule renders the schedule section: the schedule line, a table
// of the judged slots with their runs' states and the notes on late,
// duplicate and unscheduled runs.
func markdownSchedule(b *bufio.Writer, s *checker.Snapshot) {
	sr := s.Schedule
	fmt.Fprintf(b, "\n### Schedule\n\n%s.\n", ScheduleLine(s, Markdown))
	if len(sr.Slots) > 0 {
		// The states of the runs that fill judged slots (at most
		// lookback_slots of them), in one pass over the runs.
		states := map[string]string{}
		for _, sl := range sr.Slots {
			if sl.RunID != nil {
				states[*sl.RunID] = ""
			}
		}
		for r := range s.Runs() {
			if st, ok := states[r.RunID]; ok && st == "" {
				states[r.RunID] = string(r.State)
			}
		}
		b.WriteString("\n| slot | due by | slot status | run | run state |\n|---|---|---|---|---|\n")
		for _, sl := range sr.Slots {
			if sl.RunID == nil {
				fmt.Fprintf(b, "| %s | %s | %s %s | | |\n", sl.ScheduledFor, sl.DueAt, stateIcon(StateMissed), StateMissed)
				continue
			}
			st := states[*sl.RunID]
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s |\n", sl.ScheduledFor, sl.DueAt, strings.ReplaceAll(sl.Status, "_", " "), Markdown(*sl.RunID), stateIcon(st), st)
		}
	}
	if notes := ScheduleNotes(s, Markdown); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
}
