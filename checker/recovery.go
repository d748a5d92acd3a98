package checker

import (
	"fmt"
	"time"
)

// This file holds the rules of the recovery model (docs/recovery.md): one
// function per rule family, each returning the rule id it enforces.

// recoveryAttempt is what the log has shown of one attempt under the recovery
// model; attemptState points to it once an event of the attempt carries a
// recovery field.
type recoveryAttempt struct {
	owner      string
	attemptID  string
	errorCode  string
	lease      time.Time // of the latest started/heartbeat; zero when it had none
	reason     string    // of the unknown event
	rerunFrom  bool
	resolution *resolutionState
	// adjudication from the job log, set by reconcile: outcome, the record's
	// time and line.
	jobOutcome Status
	jobAt      time.Time
	jobLine    int
}

// resolutionState is one resolved event: a person's adjudication.
type resolutionState struct {
	outcome          Status
	reason           string
	evidenceRef      string
	resolvedBy       string
	approvedBy       string
	manualCompletion bool
	compensated      bool
	at               time.Time
	line             int
}

// recoveryRun is what the log has shown of one run under the recovery model;
// runState embeds it.
type recoveryRun struct {
	// requesters are the requested_by of every event of the run, and
	// approvers the approved_by of its non-idempotent success resolutions
	// (outside review: every requested_by counts, compared by identityKey).
	requesters people
	approvers  people
}

// spelledAs is " (spelled %q there)" when a person named as name was
// written differently on the other line, else "".
func spelledAs(name string, other identity) string {
	if other.name == name {
		return ""
	}
	return fmt.Sprintf(" (spelled %q there)", other.name)
}

// attemptKey names one attempt of the log.
type attemptKey struct {
	run     string
	stage   int
	attempt int64
}

// rx returns the attempt's recovery fields for reading: the zero value when
// it has none.
func (a *attemptState) rx() recoveryAttempt {
	if a.x == nil {
		return recoveryAttempt{}
	}
	return *a.x
}

// wx returns the attempt's recovery fields for writing, allocating them on
// first use.
func (a *attemptState) wx() *recoveryAttempt {
	if a.x == nil {
		a.x = &recoveryAttempt{}
	}
	return a.x
}

// outcome is the attempt's effective status: a resolution's outcome, else a
// job-log adjudication, else what the orchestrator logged.
func (a *attemptState) outcome() Status {
	if a.x == nil {
		return a.status
	}
	if a.x.resolution != nil {
		return a.x.resolution.outcome
	}
	if a.x.jobOutcome != 0 {
		return a.x.jobOutcome
	}
	return a.status
}

// failureKind is the retry brake's failure kind of a failed attempt:
// its error_code, else its returncode; ok is false when it has neither (or
// did not fail), which ends the count.
type failureKind struct {
	code       string
	returncode int64
}

func (a *attemptState) failureKind() (k failureKind, ok bool) {
	if a.status != StatusFailed {
		return k, false
	}
	if code := a.rx().errorCode; code != "" {
		return failureKind{code: code}, true
	}
	if a.hasCode {
		return failureKind{returncode: a.returncode}, true
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
		if a.outcome() != StatusFailed {
			break
		}
		k, ok := a.failureKind()
		if !ok || (count > 0 && k != kind) {
			break
		}
		kind = k
		count++
	}
	return kind, count
}

// retryBrake is the definition's retry brake with the default threshold
// when it has none (a Definition built by hand, or Feed's empty one).
func (d *Definition) retryBrake() RetryBrake {
	rb := d.RetryBrake
	if rb.Threshold < 1 {
		rb.Threshold = DefaultRetryBrakeThreshold
	}
	return rb
}

// BrakeTrip is a tripped retry brake (docs/recovery.md): the trailing failed
// attempts of a stage, Count of them, all failed with one failure kind, Kind
// (the error_code, or returncode:<n>).
type BrakeTrip struct {
	Kind  string
	Count int
}

// String is the stage's status_reason: RETRY_BRAKE:<kind>x<count>.
func (b BrakeTrip) String() string { return fmt.Sprintf("RETRY_BRAKE:%sx%d", b.Kind, b.Count) }

// brakeTrip returns the stage's tripped brake, or nil when it has not
// tripped.
func brakeTrip(atts []attemptState, threshold int) *BrakeTrip {
	kind, count := brake(atts, 0)
	if count == 0 || count < threshold {
		return nil
	}
	return &BrakeTrip{Kind: kind.String(), Count: count}
}

// recordRecovery keeps the recovery fields of an event that broke no rule.
func (c *contractState) recordRecovery(run *runState, si int, ev *event) {
	if ev.RequestedBy != "" && (run.ext == nil || !run.ext.requesters.spelledBefore(ev.RequestedBy)) {
		run.wx().requesters.add(identity{ev.RequestedBy, identityKey(ev.RequestedBy), ev.Line})
	}
	atts := run.stages[si]
	if ev.Attempt > int64(len(atts)) {
		return
	}
	a := &atts[ev.Attempt-1]
	if ev.AttemptID != "" {
		a.wx().attemptID = ev.AttemptID
		c.attemptIDs[ev.AttemptID] = attemptKey{run.id, si, ev.Attempt}
	}
	switch {
	case ev.Status == StatusStarted && (ev.Owner != "" || !ev.LeaseExpiresAt.IsZero() || ev.RerunFrom):
		x := a.wx()
		x.owner, x.lease, x.rerunFrom = ev.Owner, ev.LeaseExpiresAt, ev.RerunFrom
	case ev.Status == StatusFailed && ev.ErrorCode != "":
		a.wx().errorCode = ev.ErrorCode
	case ev.Status == StatusUnknown:
		a.wx().reason = ev.Reason
	}
}
