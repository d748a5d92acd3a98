package checker

import "fmt"

// The rules of an attempt's life: it starts once, in turn, and ends once;
// and its attempt_id names it alone.
const (
	RuleDuplicateStart       RuleID = "duplicate_start"
	RuleSkippedAttempt       RuleID = "skipped_attempt"
	RuleTerminalWithoutStart RuleID = "terminal_without_start"
	RuleDuplicateTerminal    RuleID = "duplicate_terminal"
	RuleDuplicateAttemptID   RuleID = "duplicate_attempt_id"
)

// outcomes are the statuses that end an attempt. A skipped event ends
// one too, and is the one outcome that may stand without a start, for
// attempt 1 (terminal_without_start).
var outcomes = []Status{StatusSucceeded, StatusFailed, StatusUnknown, StatusSkipped}

var duplicateStartRule = Rule{ID: RuleDuplicateStart, Family: familyAttempts,
	Summary: "a second started for the same run, stage and attempt",
	Detail:  "Each attempt starts once; a retry is a new attempt number.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:01:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if a := x.attempt(); a != nil {
			if a.Status() == StatusSkipped {
				return x.who() + " started, but it was skipped on " + c.lineText(a.LastLine()) + "; a skipped stage does not run"
			}
			return x.who() + " started a second time (first start on " + c.lineText(a.StartLine()) + "); a retry is a new attempt number"
		}
		return ""
	}}

var skippedAttemptRule = Rule{ID: RuleSkippedAttempt, Family: familyAttempts,
	Summary:  "attempt n started when attempt n-1 never started",
	Detail:   "Attempts of a stage count 1, 2, 3 without gaps.",
	Example:  `{"run_id":"r-1","stage":"extract","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.ev.Attempt > int64(len(x.attempts()))+1 {
			return skippedText(x)
		}
		return ""
	}}

var terminalWithoutStartRule = Rule{ID: RuleTerminalWithoutStart, Family: familyAttempts,
	Summary:  "succeeded or failed for an attempt that never started",
	Detail:   "An outcome needs the start it ends. Only skipped may stand alone, for attempt 1 of a stage that was never tried (a branch that skips it never starts it).",
	Example:  `{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:00:00Z"}`,
	Statuses: outcomes, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.attempt() != nil || (x.ev.Status == StatusSkipped && x.ev.Attempt == 1) {
			return ""
		}
		if x.ev.Status == StatusSkipped {
			return x.who() + " was skipped, but it never started; only attempt 1 may be skipped without a start"
		}
		return withoutStartText(x)
	}}

var duplicateTerminalRule = Rule{ID: RuleDuplicateTerminal, Family: familyAttempts,
	Summary: "a second terminal event for the same attempt",
	Detail:  "An attempt ends once; a second outcome makes the first one unreliable.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"exit 1"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:02:00Z"}`,
	Statuses: outcomes, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if a := x.attempt(); a != nil && a.Status() != StatusStarted {
			return fmt.Sprintf("%s %s, but it already %s on %s", x.who(), x.ev.Status, a.Status(), c.lineText(a.LastLine()))
		}
		return ""
	}}

var duplicateAttemptIDRule = Rule{ID: RuleDuplicateAttemptID, Family: familyAttempts,
	Summary: "one attempt_id names two attempts, or an attempt changes its attempt_id",
	Detail:  "attempt_id correlates an attempt with the job log, so it must name exactly one attempt in the whole log, and an attempt keeps the id it was first given.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","attempt_id":"a-1"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","attempt_id":"a-1"}`,
	on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		ev, run := x.ev, x.run
		if ev.AttemptID == "" {
			return ""
		}
		key := attemptKey{run.ID(), x.si, ev.Attempt}
		if other, ok := c.attemptIDs[ev.AttemptID]; ok && other != key {
			return fmt.Sprintf("attempt_id %q already names attempt %d of stage %s in run %s; an attempt id is unique in the log",
				ev.AttemptID, other.attempt, c.opts.Definition.Stages[other.stage].ID, other.run)
		}
		if a := x.attempt(); a != nil {
			if have := a.Recovery().AttemptID; have != "" && have != ev.AttemptID {
				return fmt.Sprintf("attempt %d of stage %s in run %s already has attempt_id %q, not %q", ev.Attempt, ev.Stage, run.ID(), have, ev.AttemptID)
			}
		}
		return ""
	}}

// skippedText is skipped_attempt's message for the event of x (a live or a
// folded run, judgeFolded).
func skippedText(x *lineCheck) string {
	return fmt.Sprintf("%s started, but attempt %d never started", x.who(), x.ev.Attempt-1)
}

// withoutStartText is the message of an event of an attempt that never
// started: terminal_without_start for an outcome, and the heartbeat's and
// resolution's rules with their own verbs ("sent a heartbeat", "was
// resolved").
func withoutStartText(x *lineCheck) string {
	switch x.ev.Status {
	case StatusHeartbeat:
		return x.who() + " sent a heartbeat, but it never started"
	case StatusResolved:
		return x.who() + " was resolved, but it never started"
	}
	return fmt.Sprintf("%s %s, but it never started", x.who(), x.ev.Status)
}
