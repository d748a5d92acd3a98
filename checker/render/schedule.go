package render

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// StateMissed is the state column of a missed slot's row: a missed slot is
// listed like a run, as visible as a failed one.
const StateMissed = "missed"

// NoRun stands in the run column of a missed slot's row.
const NoRun = "(no run)"

// Row is one row of a runs listing: a run (Run set) or a judged slot that no
// run filled (Missed set).
type Row struct {
	Run    *checker.RunReport
	Missed *checker.MissedSlot
}

// EachRow calls yield with every row of a runs listing until it returns
// false, in the one order of every listing (docs/contract.md, "The order
// of runs"): latest first by logical time (the scheduled_for a run's
// events name, else its first event; a missed slot's scheduled time), ties
// to the later first line. It reads each run's order key once (its run
// view's Order: no report), sorts the keys (16 bytes a run), and builds
// the reports in that order one at a time in reused storage: a row's
// report is valid until yield returns. Without a schedule the rows are the
// runs.
func EachRow(s *checker.Snapshot, yield func(Row) bool) {
	var missed []checker.MissedSlot
	if s.Schedule != nil {
		missed = s.Schedule.Missed
	}
	n, v := s.Len(), views(s)
	keys := make([]rowKey, n)
	for i := range keys {
		at, _, _ := v.Order(i)
		keys[i] = rowKey{sec: at.Unix(), nsec: int32(at.Nanosecond()), place: int32(i)}
	}
	// A snapshot lists its runs in the order of their first line, so the
	// later place is the later first line.
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(b.sec, a.sec), cmp.Compare(b.nsec, a.nsec), cmp.Compare(b.place, a.place))
	})
	places := make([]int, 0, 1024)
	// The missed slots are in slot order (the schedule judges the slots
	// in order): the next one, latest first, is missed[m], m counting down.
	m := len(missed) - 1
	// A missed slot goes before the first run earlier than it; a run at
	// the slot's own time comes first.
	slotsBefore := func(k rowKey) bool {
		for ; m >= 0; m-- {
			sl := missed[m].Slot
			if sl.Unix() < k.sec || (sl.Unix() == k.sec && int32(sl.Nanosecond()) <= k.nsec) {
				return true
			}
			if !yield(Row{Missed: &missed[m]}) {
				return false
			}
		}
		return true
	}
	for start := 0; start < len(keys); start += cap(places) {
		places = places[:0]
		for _, k := range keys[start:min(start+cap(places), len(keys))] {
			places = append(places, int(k.place))
		}
		j := start
		for r := range v.Reports(places) {
			if !slotsBefore(keys[j]) || !yield(Row{Run: r}) {
				return
			}
			j++
		}
	}
	for ; m >= 0; m-- {
		if !yield(Row{Missed: &missed[m]}) {
			return
		}
	}
}

// rowKey orders a run in EachRow: its logical time and its place.
type rowKey struct {
	sec   int64
	nsec  int32
	place int32
}

// RowCount is how many rows EachRow yields: the runs and the missed slots.
func RowCount(s *checker.Snapshot) int {
	missed, _ := MissedCount(s)
	return s.RunCount + missed
}

// MissedSummary says why a missed slot is a problem:
// "slot 2026-11-24T02:00:00Z: no run started by 2026-11-24T02:30:00Z".
func MissedSummary(m *checker.MissedSlot) string {
	return fmt.Sprintf("slot %s: no run started by %s", m.ScheduledFor, m.DueAt)
}

// MissedCount returns how many judged slots were missed and how many were
// judged; both are 0 without a schedule.
func MissedCount(s *checker.Snapshot) (missed, judged int) {
	if s.Schedule == nil {
		return 0, 0
	}
	return len(s.Schedule.Missed), s.Schedule.ExpectedSlots
}

// ScheduleLine describes the schedule in one line: what it is, how many
// slots were judged and missed, and the next slot. Empty without a schedule.
// The cron expression and zone come from the pipeline definition; esc
// escapes them for the sink all the same.
func ScheduleLine(s *checker.Snapshot, esc func(string) string) string {
	sr := s.Schedule
	if sr == nil {
		return ""
	}
	what := fmt.Sprintf("every %s", Duration(float64(derefInt(sr.EverySeconds))))
	if sr.Cron != nil {
		what = fmt.Sprintf("cron \"%s\" in %s", esc(*sr.Cron), esc(sr.Timezone))
	}
	line := fmt.Sprintf("%s, %s judged, %d missed", what, words.Count(sr.ExpectedSlots, "slot"), len(sr.Missed))
	if sr.NextSlot != nil {
		line += fmt.Sprintf("; next slot %s (due by %s)", *sr.NextSlot, *sr.NextDueAt)
	}
	return line
}

// ScheduleNotes lists what the schedule reports besides missed slots, one
// sentence each: late runs, early runs, duplicate runs, double executions
// and unscheduled runs.
// Run ids are log text and go through esc, the sink's escaping function.
func ScheduleNotes(s *checker.Snapshot, esc func(string) string) []string {
	sr := s.Schedule
	if sr == nil {
		return nil
	}
	var notes []string
	for _, l := range sr.Late {
		notes = append(notes, fmt.Sprintf("late: run %s claims slot %s by scheduled_for but started %s after it was due (first event %s)",
			esc(l.RunID), l.ScheduledFor, Duration(l.LateBySeconds), l.FirstEventAt))
	}
	for _, e := range sr.Early {
		notes = append(notes, fmt.Sprintf("early: run %s names slot %s in scheduled_for but started %s before it (first event %s); it fills no slot",
			esc(e.RunID), e.ScheduledFor, Duration(e.EarlyBySeconds), e.FirstEventAt))
	}
	for _, d := range sr.Duplicates {
		notes = append(notes, fmt.Sprintf("duplicate: run %s is a second run for slot %s, which run %s fills",
			esc(d.RunID), d.ScheduledFor, esc(d.FilledBy)))
	}
	for _, d := range sr.DoubleExecutions {
		notes = append(notes, DoubleExecutionSummary(d, esc))
	}
	for _, u := range sr.Unscheduled {
		notes = append(notes, fmt.Sprintf("unscheduled: run %s started at %s, outside every slot's window; it fills no slot",
			esc(u.RunID), u.FirstEventAt))
	}
	return notes
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// HealthDoubleExecution is the health rule of a double execution in the
// CI formats.
const HealthDoubleExecution = "double_execution"

// DoubleExecutionSummary is one double execution in a sentence, with what
// to do: "double execution: runs a and b both ran stage load (idempotent:
// false) for slot ...". Run ids are log text and go through esc.
func DoubleExecutionSummary(d checker.DoubleExecution, esc func(string) string) string {
	return fmt.Sprintf("double execution: runs %s and %s both ran stage %s (idempotent: false) for slot %s; adjudicate which run's effects stand and compensate the other's",
		esc(d.FilledBy), esc(d.RunID), esc(d.Stage.String()), d.ScheduledFor)
}
