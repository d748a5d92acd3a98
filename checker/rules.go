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
			"Each line must hold exactly one JSON object in valid UTF-8, with nothing after it. Blank lines in the middle, a truncated last line, a byte-order mark and trailing data are violations.",
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
			"One orchestrator writes a run's events in order; a step back in time means a clock or writer problem.",
			"...\"timestamp_utc\": \"2026-01-01T00:05:00Z\"...\n...\"timestamp_utc\": \"2026-01-01T00:04:00Z\"... (same run)"},
		{RuleTimestampInFuture, "a timestamp later than now plus the allowed clock skew",
			"An event from the future (more than 300 s ahead of now by default) cannot be evidence yet.",
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
	}
}
