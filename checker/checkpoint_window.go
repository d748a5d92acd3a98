package checker

import (
	"cmp"
	"slices"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The window's part of a checkpoint (docs/state.md, "Format"), written by a
// check with Options.Window after its last sweep: the newest event read,
// the folded runs' count and counts by state, their compact records as
// fixed-size records (runstore.FoldedSet.Encode), the latest folded run in
// full, and with a schedule the folded runs' stubs, each with its state.
// The window itself is one of the checkpoint's settings.

// foldedStates are the RunStates of the folded codes, by code.
var foldedStates = [...]RunState{foldedSucceeded: RunSucceeded, foldedFailed: RunFailed, foldedCancelled: RunCancelled, foldedIncomplete: RunIncomplete}

// isFoldedCode says v is the code of a folded run's state.
func isFoldedCode(v uint8) bool { return v >= foldedSucceeded && v <= foldedIncomplete }

// codeOfState is the folded code of a folded run's state.
func codeOfState(st RunState) uint8 {
	for code, s := range foldedStates {
		if s == st && code > 0 {
			return uint8(code)
		}
	}
	return 0
}

// encodeWindow appends the window's state to e, after a sweep.
func (c *contractState) encodeWindow(e *runstore.Encoder) {
	w := c.window
	e.Bool(!w.newest.IsZero())
	if !w.newest.IsZero() {
		e.Time(w.newest)
	}
	e.Uvarint(uint64(w.total))
	e.Uvarint(uint64(w.counts.Succeeded))
	e.Uvarint(uint64(w.counts.Failed))
	e.Uvarint(uint64(w.counts.Cancelled))
	e.Uvarint(uint64(w.counts.Incomplete))
	e.Bool(!w.lastSuccess.IsZero())
	if !w.lastSuccess.IsZero() {
		e.Time(w.lastSuccess)
	}
	w.folded.Encode(e)
	e.Bool(w.latest != nil)
	if w.latest != nil {
		e.EncodeRuns([]*runState{w.latest}, len(c.opts.Definition.Stages))
	}
	// The stubs in first-line order, whichever sweep folded them.
	stubs := slices.SortedFunc(slices.Values(w.stubs), func(a, b foldedStub) int { return cmp.Compare(a.run.FirstLine(), b.run.FirstLine()) })
	runs := make([]*runState, len(stubs))
	e.Uvarint(uint64(len(stubs)))
	for i, s := range stubs {
		runs[i] = s.run
		e.Byte(codeOfState(s.state))
	}
	e.EncodeRuns(runs, 0)
}

// decodeWindow reads what encodeWindow wrote into c's window; a fault is
// left in d.
func (c *contractState) decodeWindow(d *runstore.Decoder) {
	w := c.window
	if d.Bool() {
		w.newest = d.Time()
	}
	w.total = d.Int()
	w.counts = FoldedStateCounts{Succeeded: d.Int(), Failed: d.Int(), Cancelled: d.Int(), Incomplete: d.Int()}
	if d.Bool() {
		w.lastSuccess = d.Time()
	}
	if d.Fault() != "" {
		return
	}
	fc := w.counts
	if sum := uint64(fc.Succeeded) + uint64(fc.Failed) + uint64(fc.Cancelled) + uint64(fc.Incomplete); sum != uint64(w.total) || w.total < 0 {
		d.Fail("folded state counts that do not add up")
		return
	}
	if (fc.Succeeded > 0) == w.lastSuccess.IsZero() {
		d.Fail("a last folded success without a folded success, or none with one")
		return
	}
	w.folded.Decode(d, isFoldedCode)
	if d.Fault() == "" && w.folded.Len() > w.total {
		d.Fail("more folded records than folded runs")
	}
	if d.Bool() {
		runs := d.DecodeRuns(len(c.opts.Definition.Stages), c.errorText)
		if len(runs) != 1 {
			d.Fail("a latest folded run that is not one run")
			return
		}
		w.latest = runs[0]
	}
	n := d.Count()
	codes := d.Fixed(n)
	runs := d.DecodeRuns(0, c.errorText)
	if d.Fault() != "" {
		return
	}
	if len(runs) != n {
		d.Fail("stubs and their states in other numbers")
		return
	}
	if c.opts.Definition.Schedule == nil && n > 0 {
		d.Fail("stubs without a schedule")
		return
	}
	w.stubs = make([]foldedStub, n)
	for i, run := range runs {
		if !isFoldedCode(codes[i]) {
			d.Fail("a stub's state out of range")
			return
		}
		if _, ok := w.folded.Find([]byte(run.ID())); !ok {
			d.Fail("a stub of no folded run")
			return
		}
		w.stubs[i] = foldedStub{run: run, state: foldedStates[codes[i]]}
	}
	w.swept = true // the checkpoint was written after a sweep
	w.nextSweep = max(2*c.runs.Len(), minSweep)
}
