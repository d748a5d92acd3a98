package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// This file holds the rules of the recovery model (docs/recovery.md): one
// function per rule family, each returning the rule id it enforces.

// spelledAs is " (spelled %q there)" when a person named as name was
// written differently on the other line, else "".
func spelledAs(name string, other runstore.Identity) string {
	if other.Name == name {
		return ""
	}
	return fmt.Sprintf(" (spelled %q there)", other.Name)
}

// attemptKey names one attempt of the log.
type attemptKey struct {
	run     string
	stage   int
	attempt int64
}

// failureKind is the retry brake's failure kind of a failed attempt:
// its error_code, else its returncode; ok is false when it has neither (or
// did not fail), which ends the count.
type failureKind struct {
	code       string
	returncode int64
}

func failureKindOf(a *attemptState) (k failureKind, ok bool) {
	if a.Status() != StatusFailed {
		return k, false
	}
	if code := a.Recovery().ErrorCode; code != "" {
		return failureKind{code: code}, true
	}
	if rc, ok := a.Returncode(); ok {
		return failureKind{returncode: rc}, true
	}
	return k, false
}

// String writes the kind as status_reason does: the error code, or
// returncode:<n>.
func (k failureKind) String() string {
	if k.code != "" {
		return k.code
	}
	return fmt.Sprintf("returncode:%d", k.returncode)
}

// brake counts the trailing consecutive failed attempts that share one
// failure kind, and returns that kind and count; with limit > 0 it stops
// counting at limit, so that deciding whether the brake has tripped costs
// the threshold, not the length of a long retry loop.
func brake(atts []attemptState, limit int) (kind failureKind, count int) {
	for i := len(atts) - 1; i >= 0 && (limit <= 0 || count < limit); i-- {
		a := &atts[i]
		if a.Outcome() != StatusFailed {
			break
		}
		k, ok := failureKindOf(a)
		if !ok || (count > 0 && k != kind) {
			break
		}
		kind = k
		count++
	}
	return kind, count
}

// retryBrake is the definition's retry brake, the defaults (threshold
// defaultRetryBrakeThreshold, enforced) when it has none (a Definition
// built by hand).
func (d *Definition) retryBrake() RetryBrake {
	rb := d.RetryBrake
	if rb.Threshold < 1 {
		rb = RetryBrake{Threshold: defaultRetryBrakeThreshold, Enforce: true}
	}
	return rb
}

// brakeTrip is a tripped retry brake (docs/recovery.md): the trailing failed
// attempts of a stage, Count of them, all failed with one failure kind, Kind
// (the error_code, or returncode:<n>).
//
// Runs are the runs the failures happened in, oldest first, when they span
// more than one run (the brake across runs); nil when they are all the
// stage's own attempts in this run.
type brakeTrip struct {
	Kind  string
	Count int
	Runs  []string
}

// String is the stage's status_reason: RETRY_BRAKE:<kind>x<count>.
func (b brakeTrip) String() string { return fmt.Sprintf("RETRY_BRAKE:%sx%d", b.Kind, b.Count) }

// tripBrake returns the stage's tripped brake, or nil when it has not
// tripped.
func tripBrake(atts []attemptState, threshold int) *brakeTrip {
	kind, count := brake(atts, 0)
	if count == 0 || count < threshold {
		return nil
	}
	return &brakeTrip{Kind: kind.String(), Count: count}
}

// recordRecovery keeps the recovery fields of an event that broke no rule.
func (c *contractState) recordRecovery(run *runState, si int, ev *event) {
	if ev.RequestedBy != "" && !run.Requesters().SpelledBefore(ev.RequestedBy) {
		run.AddRequester(runstore.Identity{Name: ev.RequestedBy, Key: identityKey(ev.RequestedBy), Line: ev.Line})
	}
	a := run.Attempt(si, ev.Attempt)
	if a == nil {
		return
	}
	if ev.AttemptID != "" {
		a.SetAttemptID(ev.AttemptID)
		c.attemptIDs[ev.AttemptID] = attemptKey{run.ID(), si, ev.Attempt}
	}
	switch {
	case ev.Status == StatusStarted && (ev.Owner != "" || !ev.LeaseExpiresAt.IsZero() || ev.RerunFrom):
		a.SetLease(ev.Owner, ev.LeaseExpiresAt, ev.RerunFrom)
	case ev.Status == StatusFailed && ev.ErrorCode != "":
		a.SetErrorCode(ev.ErrorCode)
	case ev.Status == StatusUnknown || ev.Status == StatusSkipped:
		a.SetReason(ev.Reason)
	}
}
