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
	// (issue 12: every requested_by counts, compared by identityKey).
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

// brakeReason is the stage's status_reason when the brake has tripped, "RETRY_BRAKE:<kind>x<count>", else "".
func brakeReason(atts []attemptState, threshold int) string {
	kind, count := brake(atts, 0)
	if count == 0 || count < threshold {
		return ""
	}
	return fmt.Sprintf("RETRY_BRAKE:%sx%d", kind, count)
}

// checkAttemptID enforces duplicate_attempt_id: one attempt_id names one
// attempt in the whole log, and an attempt keeps the id it was given.
func (c *contractState) checkAttemptID(run *runState, si int, ev *Event) (RuleID, string) {
	if ev.AttemptID == "" {
		return "", ""
	}
	key := attemptKey{run.id, si, ev.Attempt}
	if other, ok := c.attemptIDs[ev.AttemptID]; ok && other != key {
		return RuleDuplicateAttemptID, fmt.Sprintf("attempt_id %q already names attempt %d of stage %s in run %s; an attempt id is unique in the log",
			ev.AttemptID, other.attempt, c.opts.Definition.Stages[other.stage].ID, other.run)
	}
	atts := run.stages[si]
	if ev.Attempt <= int64(len(atts)) {
		if have := atts[ev.Attempt-1].rx().attemptID; have != "" && have != ev.AttemptID {
			return RuleDuplicateAttemptID, fmt.Sprintf("attempt %d of stage %s in run %s already has attempt_id %q, not %q", ev.Attempt, ev.Stage, run.id, have, ev.AttemptID)
		}
	}
	return "", ""
}

// checkRequester enforces self_approved_resolution from the other side: a
// requested_by, on any event of the run, that names someone who already
// approved a non-idempotent success resolution of the run, compared by
// identityKey.
func (c *contractState) checkRequester(run *runState, ev *Event) (RuleID, string) {
	if ev.RequestedBy == "" || run.ext == nil || len(run.ext.approvers.list) == 0 || run.ext.requesters.spelledBefore(ev.RequestedBy) {
		// A requested_by spelled as before was compared with every
		// approval when the approval was made.
		return "", ""
	}
	if a, ok := run.ext.approvers.byKey(identityKey(ev.RequestedBy)); ok {
		return RuleSelfApprovedResolution, fmt.Sprintf("run %s was requested by %q, who approved the resolution on line %d%s; the approver must be someone else", run.id, ev.RequestedBy, a.line, spelledAs(ev.RequestedBy, a))
	}
	return "", ""
}

// checkRetry applies the recovery rules to attempt n >= 2 starting after
// attempt n-1 (prev): retry_after_cancellation, retry_without_failure,
// retry_without_resolution and retry_past_brake. A brake passed without
// enforce is returned as a warning message.
func (c *contractState) checkRetry(run *runState, si int, ev *Event) (rule RuleID, msg, warning string) {
	atts := run.stages[si]
	prev := &atts[ev.Attempt-2]
	prevRes := prev.rx().resolution
	// who is built only for a message: a valid retry formats nothing.
	who := func() string { return fmt.Sprintf("attempt %d of stage %s in run %s", ev.Attempt, ev.Stage, run.id) }
	switch {
	case prev.outcome() == StatusCancelled:
		return RuleRetryAfterCancellation, fmt.Sprintf("%s started, but attempt %d was resolved cancelled on line %d; a cancelled stage is not retried", who(), ev.Attempt-1, prevRes.line), ""
	case prev.outcome() != StatusFailed:
		return RuleRetryWithoutFailure, fmt.Sprintf("%s started, but attempt %d %s; a retry follows a failed attempt", who(), ev.Attempt-1, attemptOutcome(*prev)), ""
	case prev.status == StatusFailed && prevRes == nil && !c.opts.Definition.Stages[si].Idempotent:
		return RuleRetryWithoutResolution, fmt.Sprintf("%s started, but stage %s is not idempotent and failed attempt %d has no resolved event; adjudicate it before a retry", who(), ev.Stage, ev.Attempt-1), ""
	}
	rb := c.opts.Definition.retryBrake()
	if _, count := brake(atts, rb.Threshold); count >= rb.Threshold && !ev.RerunFrom {
		if !rb.Enforce && len(c.warnings) >= c.opts.MaxViolations {
			return "", "", "" // the listed warnings are capped like violations
		}
		kind, count := brake(atts, 0)
		m := fmt.Sprintf("%s started after %d consecutive failures of kind %s (retry brake threshold %d) without rerun_from: true; fix the cause, then rerun deliberately", who(), count, kind, rb.Threshold)
		if rb.Enforce {
			return RuleRetryPastBrake, m, ""
		}
		return "", "", m
	}
	return "", "", ""
}

// heartbeat applies heartbeat_without_start and heartbeat_after_terminal and
// records the heartbeat as the attempt's latest evidence of life.
func (c *contractState) heartbeat(run *runState, si int, ev *Event) (RuleID, string) {
	atts := run.stages[si]
	who := func() string { return fmt.Sprintf("attempt %d of stage %s in run %s", ev.Attempt, ev.Stage, run.id) }
	if ev.Attempt > int64(len(atts)) {
		return RuleHeartbeatWithoutStart, who() + " sent a heartbeat, but it never started"
	}
	a := &atts[ev.Attempt-1]
	if a.status != StatusStarted {
		return RuleHeartbeatAfterTerminal, fmt.Sprintf("%s sent a heartbeat, but it already ended %s on line %d", who(), a.status, a.lastLine)
	}
	a.touch(ev.Time, ev.Line)
	if a.x != nil || !ev.LeaseExpiresAt.IsZero() || ev.Owner != "" {
		x := a.wx()
		x.lease = ev.LeaseExpiresAt
		if ev.Owner != "" {
			x.owner = ev.Owner
		}
	}
	return "", ""
}

// resolve applies the resolution rules to a resolved event and records it.
func (c *contractState) resolve(run *runState, si int, ev *Event) (RuleID, string) {
	atts := run.stages[si]
	who := fmt.Sprintf("attempt %d of stage %s in run %s", ev.Attempt, ev.Stage, run.id)
	if ev.Attempt > int64(len(atts)) {
		return RuleResolutionWithoutStart, who + " was resolved, but it never started"
	}
	a := &atts[ev.Attempt-1]
	idempotent := c.opts.Definition.Stages[si].Idempotent
	fourEyes := ev.Resolution == StatusSucceeded && !idempotent
	var approver string
	if fourEyes {
		approver = identityKey(ev.ApprovedBy)
	}
	switch prev := a.rx().resolution; {
	case prev != nil:
		return RuleDuplicateResolution, fmt.Sprintf("%s was already resolved %s on line %d; a resolution is final", who, prev.outcome, prev.line)
	case a.status == StatusStarted:
		return RuleResolutionOfRunningAttempt, who + " was resolved while it has no outcome; only an unknown attempt, or a failed attempt of a non-idempotent stage, is resolved"
	case a.status == StatusSucceeded:
		return RuleResolutionOfSucceededAttempt, fmt.Sprintf("%s was resolved, but it succeeded on line %d", who, a.lastLine)
	case a.status == StatusFailed && idempotent:
		return RuleResolutionOfIdempotentFailure, fmt.Sprintf("%s was resolved, but stage %s is idempotent: a failed attempt is simply retried", who, ev.Stage)
	case !hasNonSpace([]byte(ev.EvidenceRef)):
		if ev.EvidenceRef != "" {
			return RuleResolutionWithoutEvidence, fmt.Sprintf("%s was resolved with evidence_ref %+q, which is only white space; a resolution names its evidence", who, ev.EvidenceRef)
		}
		return RuleResolutionWithoutEvidence, who + " was resolved without evidence_ref; a resolution names its evidence"
	case ev.Resolution == StatusSucceeded && !ev.ManualCompletion:
		return RuleResolutionWithoutManualCompletion, who + " was resolved succeeded without manual_completion: true"
	case ev.Resolution == StatusCancelled && !ev.Compensated:
		return RuleResolutionWithoutCompensation, who + " was resolved cancelled without compensated: true"
	case fourEyes && ev.ApprovedBy == "":
		return RuleResolutionWithoutApproval, fmt.Sprintf("%s was resolved succeeded, but stage %s is not idempotent and approved_by is missing", who, ev.Stage)
	case fourEyes && approver == "":
		// Blank (white space only) or made of characters that show nothing.
		return RuleResolutionWithoutApproval, fmt.Sprintf("%s was resolved succeeded, but stage %s is not idempotent and approved_by %+q names nobody (only white space or characters that show nothing)", who, ev.Stage, ev.ApprovedBy)
	case fourEyes && approver == identityKey(ev.ResolvedBy):
		if ev.ApprovedBy == ev.ResolvedBy {
			return RuleSelfApprovedResolution, fmt.Sprintf("%s was resolved and approved by the same person (%q); the approver must be someone else", who, ev.ResolvedBy)
		}
		return RuleSelfApprovedResolution, fmt.Sprintf("%s was resolved by %q and approved by %q, the same person in another spelling; the approver must be someone else", who, ev.ResolvedBy, ev.ApprovedBy)
	case fourEyes && ev.RequestedBy != "" && approver == identityKey(ev.RequestedBy):
		return RuleSelfApprovedResolution, fmt.Sprintf("%s was approved by %q, who requested the run on the same line%s; the approver must be someone else", who, ev.ApprovedBy, spelledAs(ev.ApprovedBy, identity{name: ev.RequestedBy}))
	case fourEyes && run.ext != nil && run.ext.requesters.has(approver):
		r, _ := run.ext.requesters.byKey(approver)
		return RuleSelfApprovedResolution, fmt.Sprintf("%s was approved by %q, who requested the run on line %d%s; the approver must be someone else", who, ev.ApprovedBy, r.line, spelledAs(ev.ApprovedBy, r))
	}
	a.wx().resolution = &resolutionState{
		outcome: ev.Resolution, reason: ev.Reason, evidenceRef: ev.EvidenceRef, resolvedBy: ev.ResolvedBy, approvedBy: ev.ApprovedBy,
		manualCompletion: ev.ManualCompletion, compensated: ev.Compensated, at: ev.Time, line: ev.Line,
	}
	if fourEyes {
		run.wx().approvers.add(identity{ev.ApprovedBy, approver, ev.Line})
	}
	return "", ""
}

// recordRecovery keeps the recovery fields of an event that broke no rule.
func (c *contractState) recordRecovery(run *runState, si int, ev *Event) {
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
