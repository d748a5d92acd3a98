package render

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// Duration renders seconds as a short human duration (1h2m3s), rounded to
// whole seconds; under a second it keeps milliseconds.
func Duration(seconds float64) string {
	d := time.Duration(math.Round(seconds*1000)) * time.Millisecond
	if d >= time.Second {
		d = d.Round(time.Second)
	}
	return d.String()
}

// StageLabel names a stage for people: "stage 2 (silver_to_gold)", or
// "stage 2" when it has no name. The name comes from the pipeline
// definition, which is trusted configuration, but is escaped all the same by
// the caller's sink function.
func StageLabel(s *checker.StageReport) string {
	if s.Name != nil {
		return fmt.Sprintf("stage %s (%s)", s.Stage, *s.Name)
	}
	return "stage " + s.Stage.String()
}

// Problem is the stage that decides an unhealthy run's state and the attempt
// that proves it: the first unknown stage, else failed, cancelled, stalled,
// running, in that order. Stage is nil for a run that is succeeded or incomplete with
// nothing in progress.
type Problem struct {
	Stage   *checker.StageReport
	Attempt *checker.AttemptReport
}

// RunProblem finds the Problem of a run.
func RunProblem(r *checker.RunReport) Problem {
	for _, want := range runview.Precedence() {
		for i := range r.Stages {
			s := &r.Stages[i]
			if string(s.State) == want && len(s.Attempts) > 0 {
				return Problem{Stage: s, Attempt: &s.Attempts[len(s.Attempts)-1]}
			}
		}
	}
	return Problem{}
}

// PendingStages lists the labels of a run's stages that never started.
func PendingStages(r *checker.RunReport) []string {
	var out []string
	for i := range r.Stages {
		if r.Stages[i].State == checker.StagePending && len(r.Stages[i].Attempts) == 0 {
			out = append(out, StageLabel(&r.Stages[i]))
		}
	}
	return out
}

// rerunStages lists the labels of a run's stages that did run but are
// pending again: a rerun from a stage upstream of them started after their
// latest attempt, so they are to run again (docs/recovery.md, Rerun from a
// node).
func rerunStages(r *checker.RunReport) []string {
	var out []string
	for i := range r.Stages {
		if r.Stages[i].State == checker.StagePending && len(r.Stages[i].Attempts) > 0 {
			out = append(out, StageLabel(&r.Stages[i]))
		}
	}
	return out
}

// SkippedStages lists a run's skipped stages for people, in declared
// order: "stage 2 (full_load) skipped: <reason>" for a stage that logged
// skipped (the reason is the log's text: the caller's sink escapes it), and
// "stage 3 after a skipped stage" for one that never logged below a skip
// (docs/contract.md, Skipped stages).
func SkippedStages(r *checker.RunReport) []string {
	var out []string
	for i := range r.Stages {
		st := &r.Stages[i]
		if st.State != checker.StageSkipped {
			continue
		}
		if n := len(st.Attempts); n > 0 && st.Attempts[n-1].Reason != nil {
			out = append(out, StageLabel(st)+" ("+*st.Attempts[n-1].Reason+")")
		} else {
			out = append(out, StageLabel(st)+" (after a skipped stage)")
		}
	}
	return out
}

func attemptCount(r *checker.RunReport) int {
	n := 0
	for _, s := range r.Stages {
		n += s.AttemptCount
	}
	return n
}

// countsLine summarizes state counts: "1 succeeded, 1 failed".
func countsLine(c checker.StateCounts) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.Succeeded, "succeeded")
	add(c.Unknown, "unknown")
	add(c.Failed, "failed")
	add(c.Cancelled, "cancelled")
	add(c.Stalled, "stalled")
	if c.Overdue != nil {
		add(*c.Overdue, "overdue")
	}
	add(c.Running, "running")
	add(c.Incomplete, "incomplete")
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Headline is the one-line verdict: "healthy: 3 runs (3 succeeded), gate all".
func Headline(s *checker.Snapshot) string {
	runs := words.Count(s.RunCount, "run")
	gate := string(s.Options.Gate)
	if p := s.Options.SinceSeconds; p != nil {
		gate += " since " + (time.Duration(*p) * time.Second).String()
	}
	h := fmt.Sprintf("%s: %s (%s), gate %s", s.Verdict, runs, countsLine(s.StateCounts), gate)
	if s.Schedule != nil {
		missed, judged := MissedCount(s)
		h = fmt.Sprintf("%s: %s (%s), %d of %s missed, gate %s", s.Verdict, runs, countsLine(s.StateCounts), missed, words.Count(judged, "slot"), gate)
	} else if s.RunCount == 0 {
		h = fmt.Sprintf("%s: no runs in the log, so nothing proves health", s.Verdict)
	}
	if IsStale(s) {
		h += fmt.Sprintf(", stale: no success within max_age %s", maxAgeText(*s.Freshness.MaxAgeSeconds))
	}
	if s.Schedule != nil && len(s.Schedule.DoubleExecutions) > 0 {
		h += ", " + words.Count(len(s.Schedule.DoubleExecutions), "double execution") + " of a non-idempotent stage"
	}
	h += requestsHeadline(s) // requests.go
	return h
}

// InvalidHeadline is the one-line verdict on a log that breaks the event
// contract: "invalid: 2 contract violations; nothing in this log is
// evidence".
func InvalidHeadline(rep *checker.Report) string {
	n := rep.ViolationCount
	return fmt.Sprintf("invalid: %s; nothing in this log is evidence", words.Count(n, "contract violation"))
}

// RunDetail says in words why a run has its state: the failing attempt with
// its returncode and error, the stalled attempt's silence, or the stages
// never started. Log text in it is NOT escaped; each sink escapes the parts.
type RunDetail struct {
	Summary string // e.g. "stage 2 (silver_to_gold) attempt 2 failed, returncode 1"
	Error   string // the attempt's error text, untrusted; empty if none
	HasErr  bool
}

// Detail builds the RunDetail of r, a run of the snapshot whose Source is
// src. The lines it names are the log's lines in src.LineText's words: the
// line within its file, and the file when the log has several.
func Detail(src *checker.Source, r *checker.RunReport) RunDetail {
	if rec := &r.Recovery; rec.Action == checker.ActionInvestigateInconsistency && rec.Stage != nil && rec.Attempt != nil {
		return RunDetail{Summary: fmt.Sprintf("stage %s attempt %d: the job log disagrees with the event log on its outcome", rec.Stage, *rec.Attempt)}
	}
	p := RunProblem(r)
	if c := r.Close; p.Stage == nil && c != nil && c.NextStep != nil && r.State != checker.RunSucceeded {
		// Every stage succeeded, but the close did not finish (docs/recovery.md, The run's close).
		line := c.Line
		if c.AuditPendingLine != nil && c.ResultCode == checker.CloseAuditPending {
			line = *c.AuditPendingLine // the close that left the audit pending, not a repeated request
		}
		summary := fmt.Sprintf("closed %s (%s): %s", c.ResultCode, src.LineText(line), *c.NextStep)
		if c.LockProblemCode != nil && *c.LockProblemCode != c.ResultCode {
			// A lock problem a later close did not release stays outstanding.
			summary += fmt.Sprintf("; the lock is still held (%s, %s)", *c.LockProblemCode, src.LineText(*c.LockProblemLine))
		}
		return RunDetail{Summary: summary}
	}
	if p.Stage == nil {
		var d RunDetail
		pend, rerun := PendingStages(r), rerunStages(r)
		if len(pend)+len(rerun) > 0 && r.State != checker.RunSucceeded {
			var parts []string
			if len(pend) > 0 {
				parts = append(parts, "never started: "+strings.Join(pend, ", "))
			}
			if len(rerun) > 0 {
				parts = append(parts, "to run again in the rerun: "+strings.Join(rerun, ", "))
			}
			d.Summary = strings.Join(parts, "; ")
		} else {
			d.Summary = fmt.Sprintf("%s, %s, %s", words.Count(len(r.Stages), "stage"), words.Count(attemptCount(r), "attempt"), Duration(r.DurationSeconds))
		}
		if skipped := SkippedStages(r); len(skipped) > 0 {
			d.Summary += "; skipped: " + strings.Join(skipped, ", ")
		}
		return d
	}
	a := p.Attempt
	label := StageLabel(p.Stage)
	if a.Resolution != nil {
		return RunDetail{Summary: fmt.Sprintf("%s attempt %d resolved %s by %s (%s)", label, a.Attempt, a.Resolution.Resolution, a.Resolution.ResolvedBy, src.LineText(a.Resolution.Line))}
	}
	if a.AdjudicatedFrom != nil {
		return RunDetail{Summary: fmt.Sprintf("%s attempt %d %s per the job log (line %d)", label, a.Attempt, a.Status, *a.JobLogLine)}
	}
	switch a.Status {
	case checker.StageUnknown:
		d := RunDetail{Summary: fmt.Sprintf("%s attempt %d outcome unknown (%s)", label, a.Attempt, src.LineText(a.Line))}
		if a.Reason != nil {
			d.Error, d.HasErr = *a.Reason, true
		}
		return d
	case checker.StageFailed:
		d := RunDetail{Summary: fmt.Sprintf("%s attempt %d failed", label, a.Attempt)}
		if a.Returncode != nil {
			d.Summary += fmt.Sprintf(", returncode %d", *a.Returncode)
		}
		if t := a.Takeover; t != nil {
			by := ""
			if t.Owner != nil {
				by = " by " + *t.Owner
			}
			d.Summary += fmt.Sprintf(", taken over%s (%s; owner stopped per %s, %s: %s)", by, src.LineText(t.Line), t.StopConfirmedBy, t.StopMethod, t.StopEvidenceRef)
		}
		if a.Error != nil {
			d.Error, d.HasErr = *a.Error, true
		}
		return d
	case checker.StageStalled:
		return RunDetail{Summary: fmt.Sprintf("%s attempt %d silent for %s since %s: a stall candidate, not proof", label, a.Attempt, Duration(*a.SilentForSeconds), src.LineText(a.Line))}
	default:
		d := RunDetail{Summary: fmt.Sprintf("%s attempt %d running, last event %s ago (%s)", label, a.Attempt, Duration(*a.SilentForSeconds), src.LineText(a.Line))}
		if r.State == checker.RunOverdue && r.OverdueBySeconds != nil {
			d.Summary = fmt.Sprintf("in progress %s past the max runtime; %s", Duration(*r.OverdueBySeconds), d.Summary)
		}
		return d
	}
}

// Text renders a snapshot for a terminal with the default TextOptions (see
// WriteTextOptions). WriteText writes the same bytes without holding them.
func Text(s *checker.Snapshot) string {
	var b strings.Builder
	WriteText(&b, s) // a strings.Builder never fails
	return b.String()
}

// TextOptions shape the text output. List says which rows it lists (the
// zero value: the default listing, Select's; List.All: every row). Color
// paints the verdict of the first and last lines (green healthy, red
// otherwise) with ANSI SGR codes, for a terminal.
type TextOptions struct {
	List  ListOptions
	Color bool
}

// WriteText writes the text output with the default TextOptions.
func WriteText(w io.Writer, s *checker.Snapshot) error {
	return WriteTextOptions(w, s, TextOptions{})
}

// WriteTextOptions writes a snapshot for a terminal, like "go test": the
// headline (the verdict), one line per listed row with its state and, for
// an unhealthy row, what decides it (columns aligned as text/tabwriter
// would, two spaces apart), with a schedule the schedule line and its
// notes (late, early, duplicate, unscheduled runs), the recovery of each
// listed run that calls for one, the warnings and inconsistencies, and the
// headline again, so that the verdict is the first and the last line.
//
// By default the rows are Select's: the latest unhealthy rows (at most
// DefaultMaxUnhealthy) then the latest runs not among them (DefaultLatestRuns
// in all), each group latest first, each followed by a line counting what it
// left out ("... 6493 more unhealthy runs, see --format json", "... 196100
// more succeeded runs, see --all-runs"). Its memory is the listed rows';
// the snapshot's runs are read once. With o.List.All every row is listed in
// the log's order (EachRow: each missed slot in its place among the runs),
// written as it is read: the column widths come from a pass over the run ids
// alone (Snapshot.RunIDs, which builds no report) and the state counts, and
// the recovery blocks are kept while the rows are written up to
// maxHeldRecoveries bytes, past which a second pass writes them. It returns
// the first write error.
func WriteTextOptions(w io.Writer, s *checker.Snapshot, o TextOptions) error {
	if o.List.All {
		return writeText(w, s, maxHeldRecoveries, o.Color)
	}
	return writeTextListing(w, s, Select(s, o.List), o.Color)
}

// WriteTextListing is WriteText with the rows of l, a default listing of
// s the caller selected (a Selector offered s's runs), so that it reads
// no run of s itself.
func WriteTextListing(w io.Writer, s *checker.Snapshot, l Listing) error {
	return writeTextListing(w, s, l, false)
}

func writeTextListing(w io.Writer, s *checker.Snapshot, l Listing, color bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	headline := textHeadline(s, color)
	bw.WriteString(headline)
	runWidth, stateWidth := 0, 0
	for _, row := range l.Rows() {
		id, state := NoRun, StateMissed
		if row.Run != nil {
			id, state = Terminal(row.Run.RunID), string(row.Run.State)
		}
		runWidth = max(runWidth, utf8.RuneCountInString(id))
		stateWidth = max(stateWidth, len(state))
	}
	if IsStale(s) {
		runWidth, stateWidth = max(runWidth, utf8.RuneCountInString(NoRun)), max(stateWidth, len(StateStale))
		writeStaleRow(bw, s, runWidth, stateWidth)
	}
	for _, row := range l.Unhealthy {
		writeTextRow(bw, &s.Source, row, runWidth, stateWidth)
	}
	if more := l.Left(false); len(more) > 0 {
		fmt.Fprintf(bw, "  ... %s, see --format json\n", strings.Join(more, " and "))
	}
	for _, row := range l.Latest {
		writeTextRow(bw, &s.Source, row, runWidth, stateWidth)
	}
	if l.MoreSucceeded > 0 {
		fmt.Fprintf(bw, "  ... %s, see --all-runs\n", words.Count(l.MoreSucceeded, "more succeeded run"))
	}
	writeScheduleText(bw, s)
	writeFreshnessText(bw, s)
	var rec strings.Builder
	header := true
	for _, row := range l.Rows() {
		if row.Run != nil && writeRecovery(&rec, row.Run, header) {
			header = false
		}
	}
	bw.WriteString(rec.String())
	bw.WriteString(noticesText(s))
	if len(l.Unhealthy)+len(l.Latest) > 0 || s.Schedule != nil || s.Freshness != nil {
		bw.WriteString(headline)
	}
	return bw.Flush()
}

// textHeadline is the first (and last) line of the text output.
func textHeadline(s *checker.Snapshot, color bool) string {
	h := Headline(s)
	if color {
		sgr := "\x1b[1;31m" // bold red
		if s.Verdict == checker.VerdictHealthy {
			sgr = "\x1b[1;32m" // bold green
		}
		h = sgr + string(s.Verdict) + "\x1b[0m" + strings.TrimPrefix(h, string(s.Verdict))
	}
	return "greenlight: " + h + "\n"
}

// writeTextRow writes one row of the runs listing, its run and state cells
// padded to the widths (characters) and two spaces.
// A row with neither a run nor a missed slot is the stale finding, whose
// detail is stale.
func writeTextRow(bw *bufio.Writer, src *checker.Source, row Row, runWidth, stateWidth int, stale ...string) {
	const gap = 2 // the padding between columns
	pad := func(cell string, width int) {
		bw.WriteString(cell)
		for n := utf8.RuneCountInString(cell); n < width+gap; n++ {
			bw.WriteByte(' ')
		}
	}
	bw.WriteString("  ")
	if row.Run == nil && row.Missed == nil {
		pad(NoRun, runWidth)
		pad(StateStale, stateWidth)
		bw.WriteString(stale[0])
		bw.WriteByte('\n')
		return
	}
	if row.Missed != nil {
		pad(NoRun, runWidth)
		pad(StateMissed, stateWidth)
		bw.WriteString(MissedSummary(row.Missed))
		bw.WriteByte('\n')
		return
	}
	r := row.Run
	pad(Terminal(r.RunID), runWidth)
	pad(string(r.State), stateWidth)
	d := Detail(src, r)
	bw.WriteString(Terminal(d.Summary))
	if d.HasErr {
		bw.WriteString(": " + Terminal(d.Error))
	}
	bw.WriteByte('\n')
}

// writeStaleRow writes the run-less stale finding as a row, first among
// the unhealthy rows.
func writeStaleRow(bw *bufio.Writer, s *checker.Snapshot, runWidth, stateWidth int) {
	writeTextRow(bw, &s.Source, Row{}, runWidth, stateWidth, StaleSummary(s, Terminal))
}

// writeFreshnessText writes the freshness line, if the snapshot has one.
func writeFreshnessText(bw *bufio.Writer, s *checker.Snapshot) {
	if line := FreshnessLine(s, Terminal); line != "" {
		fmt.Fprintf(bw, "freshness: %s\n", line)
	}
}

// writeScheduleText writes the schedule line and its notes, if any.
func writeScheduleText(bw *bufio.Writer, s *checker.Snapshot) {
	if line := ScheduleLine(s, Terminal); line != "" {
		fmt.Fprintf(bw, "schedule: %s\n", line)
		for _, n := range ScheduleNotes(s, Terminal) {
			fmt.Fprintf(bw, "  %s\n", n)
		}
	}
}

// writeText writes every row (WriteTextOptions with List.All), keeping at
// most maxHeld bytes of recovery text.
func writeText(w io.Writer, s *checker.Snapshot, maxHeld int, color bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	headline := textHeadline(s, color)
	bw.WriteString(headline)
	runWidth, stateWidth := textColumns(s)
	rows := 0
	if IsStale(s) {
		runWidth, stateWidth = max(runWidth, utf8.RuneCountInString(NoRun)), max(stateWidth, len(StateStale))
		writeStaleRow(bw, s, runWidth, stateWidth)
		rows++
	}
	var recoveries strings.Builder
	held := true // recoveries holds every recovery block so far
	EachRow(s, func(row Row) bool {
		rows++
		writeTextRow(bw, &s.Source, row, runWidth, stateWidth)
		if r := row.Run; r != nil && held {
			writeRecovery(&recoveries, r, recoveries.Len() == 0)
			if recoveries.Len() > maxHeld {
				held = false
				recoveries = strings.Builder{}
			}
		}
		return true
	})
	writeScheduleText(bw, s)
	writeFreshnessText(bw, s)
	if held {
		bw.WriteString(recoveries.String())
	} else {
		header := true
		var rec strings.Builder
		EachRow(s, func(row Row) bool {
			if row.Run == nil {
				return true
			}
			rec.Reset()
			if writeRecovery(&rec, row.Run, header) {
				header = false
				bw.WriteString(rec.String())
			}
			return true
		})
	}
	bw.WriteString(noticesText(s))
	if rows > 0 || s.Schedule != nil || s.Freshness != nil {
		bw.WriteString(headline)
	}
	return bw.Flush()
}

// maxHeldRecoveries bounds the recovery text WriteText keeps while it
// writes the rows (bytes).
const maxHeldRecoveries = 16 << 20

// textColumns returns the widths in characters of the run and state
// columns of the text rows, without building a run report: the longest
// escaped run id (or the missed-slot placeholder) and the longest state
// that some row has (every run's state is counted in the state counts).
func textColumns(s *checker.Snapshot) (run, state int) {
	missed, _ := MissedCount(s)
	if missed > 0 {
		run, state = utf8.RuneCountInString(NoRun), len(StateMissed)
	}
	v := views(s)
	for i := range s.Len() {
		run = max(run, utf8.RuneCountInString(Terminal(v.ID(i))))
	}
	for _, st := range runStates {
		if stateCount(s.StateCounts, st) > 0 {
			state = max(state, len(st))
		}
	}
	return run, state
}

// stateCount is the number of runs in state that c counts (0 for overdue
// when c has no schedule, or for a name that is no run state).
func stateCount(c checker.StateCounts, state string) int {
	switch state {
	case checker.RunFailed:
		return c.Failed
	case checker.RunStalled:
		return c.Stalled
	case checker.RunOverdue:
		if c.Overdue != nil {
			return *c.Overdue
		}
	case checker.RunRunning:
		return c.Running
	case checker.RunIncomplete:
		return c.Incomplete
	case checker.RunSucceeded:
		return c.Succeeded
	case checker.RunUnknown:
		return c.Unknown
	case checker.RunCancelled:
		return c.Cancelled
	}
	return 0
}

// ViolationsText renders violations one per line as FILE:LINE: rule: message,
// then how many were not listed.
func ViolationsText(r *checker.Report) string {
	var b strings.Builder
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "%s:%d: %s: %s\n", Terminal(fileName(v.File)), v.Line, v.Rule, TerminalMessage(v.Message))
	}
	if r.OmittedCount > 0 {
		fmt.Fprintf(&b, "... and %s not listed\n", words.Count(r.OmittedCount, "more violation"))
	}
	return b.String()
}

func fileName(f string) string {
	if f == "" || f == "-" {
		return "<stdin>"
	}
	return f
}
