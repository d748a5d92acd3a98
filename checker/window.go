package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// Window bounds what a check keeps of each run in full (docs/window.md):
// a run that succeeded and lies outside the window is folded into a
// compact record (an unhealthy run is never folded, so it stays listed), which still counts it and still rejects
// the events that contradict it. The zero Window keeps every run in full.
// At most one of Duration and Runs is set.
type Window struct {
	// Duration, when > 0, keeps the runs whose last event is at most
	// Duration before the newest event read so far (the log's own clock,
	// not Options.Now): whole seconds, at most 36500 days.
	Duration time.Duration
	// Runs, when > 0, keeps the Runs runs first seen last, in order of
	// first line; at most maxWindowRuns.
	Runs int
}

// maxWindowRuns is the largest run count a Window may keep.
const maxWindowRuns = 1 << 30

// windowUnits are the units of a duration window, with their length.
var windowUnits = []struct {
	suffix string
	unit   time.Duration
}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}

// ParseWindow reads a window as --window takes it: a positive whole number
// followed by one unit, d (24 hours), h, m or s (7d, 36h, 90m), for a
// duration; or a positive whole number followed by runs (5000runs) for a
// run count. The error says what is wrong in words for the flag's user.
//
// It is not internal/limits.ParseDuration (max_age, --since, merge's
// --max-age) on purpose, and the two must not be merged: the flag also
// takes a run count; a duration is one whole number and one unit, which is
// the form the window is recorded in (the snapshot's window.window, a
// checkpoint's record of the option: Window.text), and docs/window.md
// refuses fractions and combinations (1h30m); and it reaches 36500 days,
// since a window bounds how much history a check keeps in full, while
// ParseDuration takes Go's compound syntax with fractions (1d12h, 1.5h) up
// to limits.MaxAge (366 days), the pattern schemas/pipeline.schema.json
// gives max_age.
func ParseWindow(s string) (Window, error) {
	num, unit := s, ""
	for i, c := range s {
		if (c < '0' || c > '9') && !(i == 0 && (c == '-' || c == '+')) {
			num, unit = s[:i], s[i:]
			break
		}
	}
	const syntax = "a duration such as 7d, 36h or 90m (units d, h, m, s), or a run count such as 5000runs"
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || unit == "" || strings.HasPrefix(num, "+") {
		return Window{}, fmt.Errorf("%q is not a window: give %s", s, syntax)
	}
	if n <= 0 {
		return Window{}, fmt.Errorf("%q is not a window: it must be positive (%s)", s, syntax)
	}
	if unit == "runs" {
		if n > maxWindowRuns {
			return Window{}, fmt.Errorf("%q is not a window: a run count is at most %d", s, maxWindowRuns)
		}
		return Window{Runs: int(n)}, nil
	}
	for _, u := range windowUnits {
		if unit == u.suffix {
			if n > int64(maxWindowDuration/u.unit) {
				return Window{}, fmt.Errorf("%q is not a window: a duration is at most %dd", s, int64(maxWindowDuration/(24*time.Hour)))
			}
			return Window{Duration: time.Duration(n) * u.unit}, nil
		}
	}
	return Window{}, fmt.Errorf("%q is not a window: give %s", s, syntax)
}

// maxWindowDuration is the longest duration window: 100 years of 365 days.
const maxWindowDuration = 100 * 365 * 24 * time.Hour

// isZero says the window keeps every run in full.
func (w Window) isZero() bool { return w.Duration <= 0 && w.Runs <= 0 }

// text is the window as ParseWindow reads it, in its largest whole unit
// ("7d", "36h", "5000runs"); "" for the zero Window: the snapshot's
// window.window and a checkpoint's record of the option.
func (w Window) text() string {
	switch {
	case w.Runs > 0:
		return strconv.Itoa(w.Runs) + "runs"
	case w.Duration > 0:
		for _, u := range windowUnits {
			if w.Duration%u.unit == 0 {
				return strconv.FormatInt(int64(w.Duration/u.unit), 10) + u.suffix
			}
		}
		return w.Duration.String()
	}
	return ""
}

// WindowReport is the snapshot's window: written only by a check with a
// window, it says which runs the snapshot lists in full and how many it
// folded, by state. run_count and state_counts count the folded runs too.
type WindowReport struct {
	// Window is the window as given, normalized (Window.String).
	Window string `json:"window"`
	// DurationSeconds and Runs are the window's size; the other is null.
	DurationSeconds *int64 `json:"duration_seconds"`
	Runs            *int   `json:"runs"`
	// Cutoff is the moment a duration window starts at: the newest event's
	// time less the duration. A run whose last event is before it, and
	// whose attempts have all ended, is folded. Null for a run count, and
	// when the log has no event.
	Cutoff *string `json:"cutoff_utc"`
	// FoldedRunCount is how many runs were folded; FoldedStateCounts
	// counts them by state (a folded run has ended: it succeeded, failed,
	// was cancelled or is incomplete).
	FoldedRunCount    int               `json:"folded_run_count"`
	FoldedStateCounts FoldedStateCounts `json:"folded_state_counts"`
	// LastFoldedSuccess is the last event (UTC) of the folded run that
	// succeeded last, null when no folded run succeeded: the time of the
	// latest success of the log is the later of it and the listed runs'
	// (OpenMetrics' greenlight_last_success_timestamp_seconds).
	LastFoldedSuccess *string `json:"last_folded_success_utc"`
}

// FoldedStateCounts counts the folded runs by state.
type FoldedStateCounts struct {
	Failed     int `json:"failed"`
	Incomplete int `json:"incomplete"`
	Succeeded  int `json:"succeeded"`
	Cancelled  int `json:"cancelled"`
}

// The codes a FoldedRun keeps its run's state in.
const (
	foldedSucceeded uint8 = iota + 1
	foldedFailed
	foldedCancelled
	foldedIncomplete
)

// windowState is what a check with a window keeps besides the run store:
// the folded runs' records and counts, and what the snapshot needs of them.
type windowState struct {
	win Window
	// newest is the latest time of an event recorded so far: a duration
	// window is measured back from it.
	newest time.Time
	folded runstore.FoldedSet
	batch  runstore.FoldedBatch
	counts FoldedStateCounts
	total  int
	// lastSuccess is the latest last event of a folded run that
	// succeeded, zero while none did.
	lastSuccess time.Time
	// nextSweep is the store's size at which it is swept next.
	nextSweep int
	// latest is a copy of the folded run whose logical time is latest
	// (scheduled_for, else its first event; ties: the later line), a candidate for the snapshot's latest run.
	latest *runState
	// stubs are the folded runs without their attempts, in the order they
	// were folded, with their states: kept only with a schedule, which
	// judges every run's claim (docs/schedule.md).
	stubs []foldedStub
	// swept says no event was recorded since the last sweep (or since the
	// checkpoint the check resumed from, which is swept): another sweep
	// would fold nothing.
	swept bool
}

// foldedStub is a folded run kept for the schedule.
type foldedStub struct {
	run   *runState
	state RunState
}

// minSweep is the smallest store a window sweeps: below it, a sweep would
// cost more than the memory it frees.
const minSweep = 1 << 14

// cutoff is where the window starts now: runs whose last event is before
// t, or whose first line is before line, are outside it (zero values:
// none is).
func (c *contractState) cutoff() (t time.Time, line int) {
	w := c.window
	if w.win.Duration > 0 {
		if w.newest.IsZero() {
			return time.Time{}, 0
		}
		return w.newest.Add(-w.win.Duration), 0
	}
	if r := c.runs.FromEnd(w.win.Runs); r != nil {
		return time.Time{}, r.FirstLine()
	}
	return time.Time{}, 0
}

// outside says run lies outside the window that starts at t or line
// (cutoff).
func outside(run *runState, t time.Time, line int) bool {
	if !t.IsZero() {
		return run.LastAt().Before(t)
	}
	return line > 0 && run.FirstLine() < line
}

// foldable says the window may fold run: every attempt of run has ended
// with an outcome nobody need still settle (not in progress, not unknown),
// so its state can no longer change with time, only with a later event;
// and the run succeeded. An unhealthy run (failed, cancelled, incomplete)
// is never folded: the verdict counts it, so it stays listed by id with
// its detail, where a person can act on it.
func (c *contractState) foldable(run *runState) bool {
	for _, atts := range run.Stages() {
		for k := range atts {
			if o := atts[k].Outcome(); o == StatusStarted || o == StatusUnknown {
				return false
			}
		}
	}
	return runStateOf(run, c.opts.Definition, c.foldCfg, false) == RunSucceeded
}

// asFolded returns the compact record of run when the window folds it at
// this line (outside the window, every attempt ended), whether or not a
// sweep dropped it yet: so a check gives the same violations however often
// it sweeps.
func (c *contractState) asFolded(run *runState) (runstore.FoldedRun, bool) {
	t, line := c.cutoff()
	if !outside(run, t, line) || !c.foldable(run) {
		return runstore.FoldedRun{}, false
	}
	return runstore.NewFoldedRun(run, foldedSucceeded), true
}

// noteEvent keeps what the window needs of an event just recorded, and
// sweeps the store once it has grown enough.
func (c *contractState) noteEvent(t time.Time) {
	w := c.window
	if t.After(w.newest) {
		w.newest = t
	}
	w.swept = false
	if c.runs.Len() >= w.nextSweep {
		c.sweep()
	}
}

// sweep folds every run outside the window whose attempts have all ended.
func (c *contractState) sweep() {
	w := c.window
	t, line := c.cutoff()
	var latest *runState // the latest folded now, still in the old slabs
	c.runs.Sweep(func(run *runState) bool {
		if !outside(run, t, line) || !c.foldable(run) {
			return false
		}
		c.fold(run)
		if l := cmp.Or(latest, w.latest); l == nil || run.LogicalAt().After(l.LogicalAt()) || (run.LogicalAt().Equal(l.LogicalAt()) && run.FirstLine() > l.FirstLine()) {
			latest = run
		}
		return true
	})
	if latest != nil {
		w.latest = runstore.Clone(latest) // once a sweep, not once a run
	}
	w.folded.Add(&w.batch)
	w.nextSweep = max(2*c.runs.Len(), minSweep)
	w.swept = true
}

// sweepOnce sweeps unless nothing was recorded since the last sweep.
func (c *contractState) sweepOnce() {
	if !c.window.swept {
		c.sweep()
	}
}

// fold records run, about to be dropped from the store, as folded (sweep
// keeps the latest folded run).
func (c *contractState) fold(run *runState) {
	w := c.window
	w.batch.Fold(run, runstore.NewFoldedRun(run, foldedSucceeded))
	w.total++
	w.counts.Succeeded++ // only a run that succeeded is folded (foldable)
	if t := run.LastAt(); t.After(w.lastSuccess) {
		w.lastSuccess = t
	}
	if c.opts.Definition.Schedule != nil {
		w.stubs = append(w.stubs, foldedStub{runstore.Stub(run), RunSucceeded})
	}
}

// report is the snapshot's window section.
func (w *windowState) report(cutoff time.Time) *WindowReport {
	r := &WindowReport{Window: w.win.text(), FoldedRunCount: w.total, FoldedStateCounts: w.counts}
	if !w.lastSuccess.IsZero() {
		v := formatTime(w.lastSuccess)
		r.LastFoldedSuccess = &v
	}
	if w.win.Runs > 0 {
		n := w.win.Runs
		r.Runs = &n
	} else {
		secs := int64(w.win.Duration / time.Second)
		r.DurationSeconds = &secs
		if !cutoff.IsZero() {
			v := formatTime(cutoff)
			r.Cutoff = &v
		}
	}
	return r
}

// scheduleRuns are the runs the schedule judges: the folded runs' stubs
// and the runs in the store, in order of first line, with the index of
// each run of the store among them and the stubs' states.
func (w *windowState) scheduleRuns(live []*runState) (all []*runState, liveAt []int, states map[*runState]RunState) {
	stubs := append([]foldedStub(nil), w.stubs...)
	slices.SortFunc(stubs, func(a, b foldedStub) int { return cmp.Compare(a.run.FirstLine(), b.run.FirstLine()) })
	states = make(map[*runState]RunState, len(stubs))
	all = make([]*runState, 0, len(stubs)+len(live))
	liveAt = make([]int, 0, len(live))
	i := 0
	for _, run := range live {
		for ; i < len(stubs) && stubs[i].run.FirstLine() < run.FirstLine(); i++ {
			all = append(all, stubs[i].run)
			states[stubs[i].run] = stubs[i].state
		}
		liveAt = append(liveAt, len(all))
		all = append(all, run)
	}
	for ; i < len(stubs); i++ {
		all = append(all, stubs[i].run)
		states[stubs[i].run] = stubs[i].state
	}
	return all, liveAt, states
}
