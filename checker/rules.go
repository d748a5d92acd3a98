package checker

// RuleID is the stable id of a contract rule: the string users see in every
// output and grep for. The ids and texts live in one table, Rules.
type RuleID string

// The contract rules of DESIGN.md §2, in the order they are checked on a line.
const (
	RuleInvalidJSON                  RuleID = "invalid_json"
	RuleLineTooLong                  RuleID = "line_too_long"
	RuleDuplicateKey                 RuleID = "duplicate_key"
	RuleSchema                       RuleID = "schema"
	RuleUnknownField                 RuleID = "unknown_field"
	RuleUnknownStage                 RuleID = "unknown_stage"
	RuleSuccessWithNonzeroReturncode RuleID = "success_with_nonzero_returncode"
	RuleFailureWithZeroReturncode    RuleID = "failure_with_zero_returncode"
	RuleOutOfOrder                   RuleID = "out_of_order"
	RuleTimestampInFuture            RuleID = "timestamp_in_future"
	RuleConflictingScheduledFor      RuleID = "conflicting_scheduled_for"
	RuleDuplicateStart               RuleID = "duplicate_start"
	RuleSkippedAttempt               RuleID = "skipped_attempt"
	RuleRetryWithoutFailure          RuleID = "retry_without_failure"
	RuleStageBeforeDependency        RuleID = "stage_before_dependency"
	RuleTerminalWithoutStart         RuleID = "terminal_without_start"
	RuleDuplicateTerminal            RuleID = "duplicate_terminal"
)

// The rules of the recovery model (docs/recovery.md, checker/recovery.go).
const (
	RuleDuplicateAttemptID                RuleID = "duplicate_attempt_id"
	RuleHeartbeatWithoutStart             RuleID = "heartbeat_without_start"
	RuleHeartbeatAfterTerminal            RuleID = "heartbeat_after_terminal"
	RuleRetryAfterCancellation            RuleID = "retry_after_cancellation"
	RuleRetryWithoutResolution            RuleID = "retry_without_resolution"
	RuleRetryPastBrake                    RuleID = "retry_past_brake"
	RuleResolutionWithoutStart            RuleID = "resolution_without_start"
	RuleDuplicateResolution               RuleID = "duplicate_resolution"
	RuleResolutionOfRunningAttempt        RuleID = "resolution_of_running_attempt"
	RuleResolutionOfSucceededAttempt      RuleID = "resolution_of_succeeded_attempt"
	RuleResolutionOfIdempotentFailure     RuleID = "resolution_of_idempotent_failure"
	RuleResolutionWithoutEvidence         RuleID = "resolution_without_evidence"
	RuleResolutionWithoutManualCompletion RuleID = "resolution_without_manual_completion"
	RuleResolutionWithoutCompensation     RuleID = "resolution_without_compensation"
	RuleResolutionWithoutApproval         RuleID = "resolution_without_approval"
	RuleSelfApprovedResolution            RuleID = "self_approved_resolution"
)

// Rule documents one contract rule: its id, a one-line summary, a longer
// explanation and a tiny log that breaks it (Example, JSON Lines).
type Rule struct {
	ID      RuleID
	Summary string
	Detail  string
	Example string
}

// Rules returns the table of every contract rule, in checking order. It is
// the one source of the rule ids and texts for the docs, the schemas'
// enumerations and any listing of rules.
func Rules() []Rule {
	return []Rule{
		{RuleInvalidJSON, "a line is not one JSON object",
			"Each line must hold exactly one JSON object in valid UTF-8, with nothing after it. A blank line (in the middle or an extra empty line at the end), a truncated last line, a byte-order mark and trailing data are violations; a last line without its newline is accepted. A byte-order mark at the start of the file is one violation and the first line is read past it, so nothing cascades from it; a gzip or zstd file (first bytes 1f 8b, or 28 b5 2f fd) is one violation that says so, and the rest of it is not read.",
			`{"run_id": "r-1", "stage": 1,`},
		{RuleLineTooLong, "a line is longer than the limit",
			"A line longer than --max-line-bytes (default 1 MiB) is reported and skipped; reading goes on with the next line.",
			``},
		{RuleDuplicateKey, "an object has the same key twice",
			"JSON readers disagree on which of two equal keys wins, so a repeated key at any depth is refused.",
			`{"run_id": "r-1", "status": "failed", "status": "succeeded", ...}`},
		{RuleSchema, "the event does not match schemas/event.schema.json",
			"A missing or mistyped field, an unknown status, a timestamp without an offset, a failed event without an error, or a key that equals a contract field in another letter case.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "done", "timestamp_utc": "2026-01-01T00:00:00Z"}`},
		{RuleUnknownField, "a field outside the contract, with --strict",
			"Without --strict other fields are carried through; with it they are refused.",
			`{"run_id": "r-1", ..., "host": "a"}`},
		{RuleUnknownStage, "a stage the pipeline definition does not declare",
			"Every stage in the log must be declared, so that stages that never logged are visible as pending.",
			`{"run_id": "r-1", "stage": 9, ...}   (pipeline declares stages 1 and 2)`},
		{RuleSuccessWithNonzeroReturncode, "succeeded with a returncode other than 0",
			"A success whose process exited non-zero contradicts itself.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "succeeded", "returncode": 3, ...}`},
		{RuleFailureWithZeroReturncode, "failed with returncode 0",
			"A failure whose process exited 0 contradicts itself; use null when there was no exit code.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "failed", "returncode": 0, "error": "x", ...}`},
		{RuleOutOfOrder, "a timestamp earlier than the previous event of the same run",
			"One orchestrator writes a run's events in order; a step back in time means a clock or writer problem. It also keeps a heartbeat or a resolution from being dated before the start of its attempt (docs/recovery.md, evidence in time).",
			"...\"timestamp_utc\": \"2026-01-01T00:05:00Z\"...\n...\"timestamp_utc\": \"2026-01-01T00:04:00Z\"... (same run)"},
		{RuleTimestampInFuture, "a timestamp later than now plus the allowed clock skew",
			"An event from the future (more than 300 s ahead of now by default) cannot be evidence yet: a heartbeat from 2099 keeps no attempt alive, and a resolution from 2099 settles none.",
			`{"run_id": "r-1", ..., "timestamp_utc": "2099-01-01T00:00:00Z"}`},
		{RuleConflictingScheduledFor, "an event's scheduled_for differs from an earlier event of the same run",
			"A run fills one schedule slot; two events of one run that name different slots contradict each other (docs/schedule.md).",
			"{\"run_id\": \"r-1\", ..., \"scheduled_for\": \"2026-01-01T02:00:00Z\"}\n{\"run_id\": \"r-1\", ..., \"scheduled_for\": \"2026-01-02T02:00:00Z\"}"},
		{RuleDuplicateStart, "a second started for the same run, stage and attempt",
			"Each attempt starts once; a retry is a new attempt number.",
			"{\"run_id\": \"r-1\", \"stage\": 1, \"attempt\": 1, \"status\": \"started\", ...}\n(the same line again)"},
		{RuleSkippedAttempt, "attempt n started when attempt n-1 never started",
			"Attempts of a stage count 1, 2, 3 without gaps.",
			`{"run_id": "r-1", "stage": 1, "attempt": 2, "status": "started", ...}   (attempt 1 never started)`},
		{RuleRetryWithoutFailure, "attempt n started when attempt n-1 did not fail",
			"A retry follows a failed attempt; starting another while the previous is running or after it succeeded is a double launch.",
			"attempt 1 started, attempt 2 started (attempt 1 has no terminal event)"},
		{RuleStageBeforeDependency, "a stage started before its dependencies succeeded",
			"A stage may start only after every stage it depends on (depends_on; by default the stage declared before it) has succeeded in the same run.",
			"stage 2 started while stage 1 is still running"},
		{RuleTerminalWithoutStart, "succeeded or failed for an attempt that never started",
			"An outcome needs the start it ends.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "succeeded", ...}   (first line of r-1)`},
		{RuleDuplicateTerminal, "a second terminal event for the same attempt",
			"An attempt ends once; a second outcome makes the first one unreliable.",
			"attempt 1 failed, then attempt 1 succeeded"},
		// The recovery model (docs/recovery.md).
		{RuleDuplicateAttemptID, "one attempt_id names two attempts, or an attempt changes its attempt_id",
			"attempt_id correlates an attempt with the job log, so it must name exactly one attempt in the whole log, and an attempt keeps the id it was first given.",
			"stage 1 attempt 1 started with \"attempt_id\": \"a-1\"; stage 2 attempt 1 started with \"attempt_id\": \"a-1\""},
		{RuleHeartbeatWithoutStart, "a heartbeat for an attempt that never started",
			"A heartbeat says a running attempt is alive; without its start it is evidence of nothing.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "heartbeat", ...}   (first line of r-1)`},
		{RuleHeartbeatAfterTerminal, "a heartbeat after the attempt's outcome",
			"After succeeded, failed or unknown the attempt is over; a heartbeat then means two processes think they own it.",
			"attempt 1 failed, then attempt 1 heartbeat"},
		{RuleRetryAfterCancellation, "a new attempt after a cancelled resolution",
			"A cancelled resolution ends the stage; it can never be made to succeed by retrying.",
			"attempt 1 unknown, resolved cancelled, then attempt 2 started"},
		{RuleRetryWithoutResolution, "a retry of a non-idempotent stage with no resolved event for the failed attempt",
			"A stage declared idempotent: false may have left partial effects; a person adjudicates the failed attempt (resolved, resolution failed) before it is retried.",
			"attempt 1 failed, attempt 2 started   (stage idempotent: false)"},
		{RuleRetryPastBrake, "a further attempt after the retry brake tripped, without rerun_from",
			"When the trailing failed attempts of a stage share one failure kind at least retry_brake.threshold times, retrying blindly repeats the failure; a further started needs \"rerun_from\": true. With retry_brake.enforce false this is a warning, not a violation.",
			"attempts 1-3 failed with \"error_code\": \"OOM\", then attempt 4 started   (threshold 3, enforce true)"},
		{RuleResolutionWithoutStart, "a resolution of an attempt that never started",
			"A resolution adjudicates an attempt that exists.",
			`{"run_id": "r-1", "stage": 1, "attempt": 1, "status": "resolved", ...}   (first line of r-1)`},
		{RuleDuplicateResolution, "a second resolution of the same attempt",
			"A resolution is final; a second one, even agreeing, makes the record ambiguous.",
			"attempt 1 resolved failed, then attempt 1 resolved succeeded"},
		{RuleResolutionOfRunningAttempt, "a resolution of an attempt that has no outcome yet",
			"A running or stalled attempt may still end by itself; confirm the owner stopped, wait for or write its outcome (unknown), then resolve.",
			"attempt 1 started, then attempt 1 resolved"},
		{RuleResolutionOfSucceededAttempt, "a resolution of a succeeded attempt",
			"A success needs no adjudication; overriding it hides evidence.",
			"attempt 1 succeeded, then attempt 1 resolved failed"},
		{RuleResolutionOfIdempotentFailure, "a resolution of a failed attempt of an idempotent stage",
			"Only unknown attempts and failed attempts of non-idempotent stages are resolved; an idempotent stage is simply retried.",
			"attempt 1 failed, then attempt 1 resolved   (stage idempotent: true)"},
		{RuleResolutionWithoutEvidence, "a resolution without evidence_ref",
			"A person's decision moves the pipeline only with evidence: evidence_ref names it (ticket, query, job-log line). A value made only of white space (any of ECMA-262's, the no-break space and U+3000 among them) is missing.",
			`{..., "status": "resolved", "resolution": "failed", "reason": "checked", "resolved_by": "ana"}`},
		{RuleResolutionWithoutManualCompletion, "a succeeded resolution without manual_completion: true",
			"Declaring an attempt succeeded says its work was completed by hand; manual_completion: true states it.",
			`{..., "status": "resolved", "resolution": "succeeded", "evidence_ref": "T-1", ...}`},
		{RuleResolutionWithoutCompensation, "a cancelled resolution without compensated: true",
			"Cancelling says the attempt's effects were undone; compensated: true states it.",
			`{..., "status": "resolved", "resolution": "cancelled", "evidence_ref": "T-1", ...}`},
		{RuleResolutionWithoutApproval, "a succeeded resolution of a non-idempotent stage without approved_by",
			"Declaring a non-idempotent stage succeeded needs a second person's approval. An approved_by made only of white space, or only of characters that show nothing (U+200B), is missing.",
			"stage idempotent: false; attempt 1 unknown, resolved succeeded with no approved_by"},
		{RuleSelfApprovedResolution, "a non-idempotent success resolution approved by its resolver or by the run's requester",
			"approved_by must name another person than resolved_by and than every requested_by of the run (on any event, before or after the approval). People are compared after white space, invisible characters, Unicode normalization and letter case are taken out, so \"ANA@corp.example\", \"ana \" and a decomposed spelling are all ana@corp.example (docs/recovery.md, Identities).",
			`{..., "resolution": "succeeded", "resolved_by": "ana", "approved_by": "ana", ...}`},
	}
}
