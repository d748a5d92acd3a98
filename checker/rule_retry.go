package checker

import "fmt"

// The rules of a retry: attempt n >= 2 starting after attempt n-1, in the
// recovery model (docs/recovery.md). They run after duplicate_start and
// skipped_attempt passed, so attempt n-1 exists and n is the next attempt.
const (
	RuleRetryAfterCancellation RuleID = "retry_after_cancellation"
	RuleRetryWithoutFailure    RuleID = "retry_without_failure"
	RuleRetryWithoutResolution RuleID = "retry_without_resolution"
	RuleRetryPastBrake         RuleID = "retry_past_brake"
)

// previous is attempt n-1 of a retry's stage; nil for attempt 1.
func (x *lineCheck) previous() *attemptState {
	if x.ev.Attempt < 2 {
		return nil
	}
	return &x.run.Attempts(x.si)[x.ev.Attempt-2]
}

var retryAfterCancellationRule = Rule{ID: RuleRetryAfterCancellation, Family: familyRetry,
	Summary: "a new attempt after a cancelled resolution",
	Detail:  "A cancelled resolution ends the stage; it can never be made to succeed by retrying.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"cancelled","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7","compensated":true}
{"run_id":"r-1","stage":"extract","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:03:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if prev := x.previous(); prev != nil && prev.Outcome() == StatusCancelled {
			return fmt.Sprintf("%s started, but attempt %d was resolved cancelled on %s; a cancelled stage is not retried", x.who(), x.ev.Attempt-1, c.lineText(prev.Recovery().Resolution.Line))
		}
		return ""
	}}

var retryWithoutFailureRule = Rule{ID: RuleRetryWithoutFailure, Family: familyRetry,
	Summary: "attempt n started when attempt n-1 did not fail",
	Detail:  "A retry follows a failed attempt; starting another while the previous is running or after it succeeded is a double launch. The one exception is a rerun from a node: a started with \"rerun_from\": true reruns its stage and opens a rerun of every stage downstream of it, whose next attempts may follow a success.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:01:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if prev := x.previous(); prev != nil && prev.Outcome() != StatusFailed {
			if prev.Outcome() == StatusSucceeded && x.feed == nil && (x.ev.RerunFrom || rerunDue(x.run, x.si, prev, c.planOf(x.run))) {
				return "" // a rerun from this stage or one upstream of it (rerun.go)
			}
			return fmt.Sprintf("%s started, but attempt %d %s; a retry follows a failed attempt", x.who(), x.ev.Attempt-1, attemptOutcome(*prev))
		}
		return ""
	}}

var retryWithoutResolutionRule = Rule{ID: RuleRetryWithoutResolution, Family: familyRetry,
	Summary: "a retry of a non-idempotent stage with no resolved event for the failed attempt",
	Detail:  "A stage declared idempotent: false may have left partial effects; a person adjudicates the failed attempt (resolved, resolution failed) before it is retried.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:03:00Z","error":"exit 1"}
{"run_id":"r-1","stage":"load","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:04:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		prev := x.previous()
		if prev != nil && prev.Status() == StatusFailed && prev.Recovery().Resolution == nil && !c.opts.Definition.Stages[x.si].Idempotent {
			return fmt.Sprintf("%s started, but stage %s is not idempotent and failed attempt %d has no resolved event; adjudicate it before a retry", x.who(), x.ev.Stage, x.ev.Attempt-1)
		}
		return ""
	}}

var retryPastBrakeRule = Rule{ID: RuleRetryPastBrake, Family: familyRetry,
	Summary: "a further attempt after the retry brake tripped, without rerun_from",
	Detail:  "When the trailing failed attempts of a stage share one failure kind at least retry_brake.threshold times, retrying blindly repeats the failure; a further started needs \"rerun_from\": true. The failures are counted within the run and across the pipeline's runs in logical-time order (scheduled_for, else the first event), so a stage that failed the same way on three nights is braked in the fourth night's run (the runbook: do not pile up attempts of a deterministically failing query every night). retry_brake.enforce is true by default; with enforce false this is a warning, not a violation.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"exit 1","error_code":"OOM"}
{"run_id":"r-1","stage":"extract","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":"extract","attempt":2,"status":"failed","timestamp_utc":"2026-01-01T10:03:00Z","error":"exit 1","error_code":"OOM"}
{"run_id":"r-1","stage":"extract","attempt":3,"status":"started","timestamp_utc":"2026-01-01T10:04:00Z"}
{"run_id":"r-1","stage":"extract","attempt":3,"status":"failed","timestamp_utc":"2026-01-01T10:05:00Z","error":"exit 1","error_code":"OOM"}
{"run_id":"r-1","stage":"extract","attempt":4,"status":"started","timestamp_utc":"2026-01-01T10:06:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.ev.RerunFrom {
			return ""
		}
		rb := c.opts.Definition.retryBrake()
		m := ""
		if atts := x.attempts(); x.ev.Attempt >= 2 {
			if _, count := brake(atts, rb.Threshold); count >= rb.Threshold {
				kind, count := brake(atts, 0)
				m = fmt.Sprintf("%s started after %d consecutive failures of kind %s (retry brake threshold %d) without rerun_from: true; fix the cause, then rerun deliberately", x.who(), count, kind, rb.Threshold)
			}
		}
		if m == "" && x.feed == nil && x.run.Definition() == 0 {
			at := x.run.LogicalAt()
			if x.ev.HasScheduledFor {
				at = x.ev.ScheduledFor
			}
			kind, count, others := c.streaksFor()[x.si].countFor(x.run.ID(), at)
			if count >= rb.Threshold && len(others) > 0 {
				m = fmt.Sprintf("%s started after %d consecutive failures of kind %s across runs %s (retry brake threshold %d) without rerun_from: true; the stage stays braked in later runs: fix the cause, then start it with rerun_from: true", x.who(), count, kind, joinWords(others), rb.Threshold)
			}
		}
		if m == "" {
			return ""
		}
		if !rb.Enforce && len(c.warnings) >= c.opts.MaxViolations {
			return "" // the listed warnings are capped like violations
		}
		if rb.Enforce {
			return m
		}
		x.warning = m // recorded with the start, once every rule passed
		return ""
	}}
