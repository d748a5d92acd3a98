package checker

import (
	"fmt"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// RuleFoldedRunEvent is the rule of an event for a folded run that its
// compact record cannot judge (docs/window.md).
const RuleFoldedRunEvent RuleID = "folded_run_event"

const familyWindow = "window"

var foldedRunEventRule = Rule{ID: RuleFoldedRunEvent, Family: familyWindow,
	Summary: "with --window, an event for a run folded out of the window that its compact record cannot judge",
	Detail: "A check with --window keeps of a run that succeeded and whose last event is older than the window only a compact record (docs/window.md); an unhealthy run is never folded. " +
		"A later event for such a run that contradicts the record breaks the rule a full check names (out_of_order, duplicate_start, duplicate_terminal, ...); " +
		"one the record cannot judge (a resolution of an attempt that failed before its retry succeeded, a first start of a skipped stage) is this violation, never a silent green: check without --window, or with a wider one.",
}

// judgeFolded judges an event for a run the window folded, from its
// compact record f, in checking order from out_of_order on: it returns the
// rule a full check reports when the record can tell, else
// folded_run_event. No event for a folded run is recorded.
func (c *contractState) judgeFolded(x *lineCheck, f *runstore.FoldedRun) (RuleID, string) {
	ev := x.ev
	who := x.who()
	folded := fmt.Sprintf("run %s was folded out of the window (last event %s)", ev.RunID, formatTime(f.LastAt()))
	if f.Ambiguous() {
		return RuleFoldedRunEvent, fmt.Sprintf("%s is for run %s, whose id shares its key with another folded run: its compact record cannot judge it; check without --window", who, ev.RunID)
	}
	if last := f.LastAt(); ev.Time.Before(last) {
		return RuleOutOfOrder, outOfOrderText(x, last)
	}
	if ev.Time.After(c.horizon) {
		return RuleTimestampInFuture, c.inFutureText(x)
	}
	if ev.HasScheduledFor && f.HasSlot() {
		slot, ok := c.slotOf(x)
		if ok && !ev.ScheduledFor.Equal(slot) {
			return RuleConflictingScheduledFor, fmt.Sprintf("scheduled_for %s differs from %s given before the window for run %s; a run fills one slot (%s)", formatTime(ev.ScheduledFor), formatTime(slot), ev.RunID, folded)
		}
	}
	cannot := func(what string) (RuleID, string) {
		return RuleFoldedRunEvent, fmt.Sprintf("%s %s, but %s and its compact record cannot judge %s; check without --window, or with a wider one", who, ev.Status, folded, what)
	}
	if ev.Status.RunLevel() {
		// The record keeps no close: a folded run succeeded, and whether
		// it was closed RUN_ARCHIVED (event_after_close) it cannot tell.
		return RuleFoldedRunEvent, fmt.Sprintf("run %s was closed %s, but %s and its compact record cannot judge a close; check without --window, or with a wider one", ev.RunID, ev.ResultCode, folded)
	}
	k, outcome, ok := f.Stage(x.si)
	if !ok {
		return cannot("an event of this stage")
	}
	n := ev.Attempt
	switch ev.Status {
	case StatusStarted:
		switch {
		case n <= int64(k):
			return RuleDuplicateStart, fmt.Sprintf("%s started a second time (first start before the window: %s); a retry is a new attempt number", who, folded)
		case n > int64(k)+1:
			return RuleSkippedAttempt, skippedText(x)
		case k == 0:
			return cannot("a first start of a stage")
		case outcome == StatusCancelled:
			return RuleRetryAfterCancellation, fmt.Sprintf("%s started, but attempt %d was resolved cancelled before the window (%s); a cancelled stage is not retried", who, n-1, folded)
		case outcome == StatusSucceeded:
			return RuleRetryWithoutFailure, fmt.Sprintf("%s started, but attempt %d succeeded; a retry follows a failed attempt", who, n-1)
		}
		return cannot("a retry")
	case StatusSucceeded, StatusFailed, StatusUnknown:
		if n > int64(k) {
			return RuleTerminalWithoutStart, withoutStartText(x)
		}
		return RuleDuplicateTerminal, fmt.Sprintf("%s %s, but it already ended before the window (%s)", who, ev.Status, folded)
	case StatusHeartbeat:
		if n > int64(k) {
			return RuleHeartbeatWithoutStart, withoutStartText(x)
		}
		return RuleHeartbeatAfterTerminal, fmt.Sprintf("%s sent a heartbeat, but it already ended before the window (%s)", who, folded)
	case StatusResolved:
		if n > int64(k) {
			return RuleResolutionWithoutStart, withoutStartText(x)
		}
		return cannot("a resolution")
	}
	return cannot("this event")
}

// foldedRun tells whether the window folded the event's run, found live
// in the store as run (nil: not in it), and if so puts its compact record
// in x.folded.
func (c *contractState) foldedRun(x *lineCheck, run *runState) bool {
	var f runstore.FoldedRun
	var ok bool
	if run != nil {
		f, ok = c.asFolded(run)
	} else {
		f, ok = c.window.folded.Find(x.ev.RunID)
	}
	if ok {
		rec := f // only a folded run's record is moved to the heap
		x.folded = &rec
	}
	return ok
}

// slotOf is the slot named by the events of the event's run, folded or
// live (a run the window folds at this line without a sweep yet).
func (c *contractState) slotOf(x *lineCheck) (time.Time, bool) {
	if run := c.runs.Lookup(x.ev.RunID); run != nil {
		slot, _, ok := run.ScheduledFor()
		return slot, ok
	}
	return c.window.folded.Slot(x.ev.RunID)
}
