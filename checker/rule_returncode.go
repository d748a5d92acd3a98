package checker

import "fmt"

// The rules of an outcome's returncode.
const (
	RuleSuccessWithNonzeroReturncode RuleID = "success_with_nonzero_returncode"
	RuleFailureWithZeroReturncode    RuleID = "failure_with_zero_returncode"
)

var successWithNonzeroReturncodeRule = Rule{ID: RuleSuccessWithNonzeroReturncode, Family: familyReturncode,
	Summary: "succeeded with a returncode other than 0",
	Detail:  "A success whose process exited non-zero contradicts itself.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z","returncode":3}`,
	Statuses: []Status{StatusSucceeded}, on: onBoth,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if !ev.HasCode || ev.Returncode == 0 {
			return ""
		}
		return fmt.Sprintf("attempt %d of stage %s in run %s succeeded with returncode %d; a success exits 0", ev.Attempt, ev.Stage, string(ev.RunID), ev.Returncode)
	}}

var failureWithZeroReturncodeRule = Rule{ID: RuleFailureWithZeroReturncode, Family: familyReturncode,
	Summary: "failed with returncode 0",
	Detail:  "A failure whose process exited 0 contradicts itself; use null when there was no exit code.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"exit 1","returncode":0}`,
	Statuses: []Status{StatusFailed}, on: onBoth,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if !ev.HasCode || ev.Returncode != 0 {
			return ""
		}
		return fmt.Sprintf("attempt %d of stage %s in run %s failed with returncode 0; use null when there was no exit code", ev.Attempt, ev.Stage, string(ev.RunID))
	}}
