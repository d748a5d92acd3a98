package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// The rules of an outcome's returncode and error: a success that says it
// failed contradicts itself.
const (
	RuleSuccessWithNonzeroReturncode RuleID = "success_with_nonzero_returncode"
	RuleSuccessWithError             RuleID = "success_with_error"
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

// successWithErrorRule refuses a success that carries an error: a wrapper
// that logs "succeeded" with the traceback it caught has not proved the
// stage succeeded. A blank error (white space only, eventline.HasNonSpace)
// is no error, as on a failure. OpenLineage has its own form of this
// contradiction (a COMPLETE with an errorMessage facet), which the reader
// maps to a failed attempt instead (docs/openlineage.md).
var successWithErrorRule = Rule{ID: RuleSuccessWithError, Family: familyReturncode,
	Summary: "succeeded with an error",
	Detail:  "A success whose error field holds text (not null, absent or blank) contradicts itself: the stage may have caught and logged a failure, so the success proves nothing. Log failed with the error, or succeeded without one.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z","error":"Traceback (most recent call last): KeyError: 'id'"}`,
	Statuses: []Status{StatusSucceeded}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if !ev.HasError || !eventline.HasNonSpace(ev.Error) {
			return ""
		}
		return fmt.Sprintf("attempt %d of stage %s in run %s succeeded with an error; a success carries no error (log failed with it instead)", ev.Attempt, ev.Stage, string(ev.RunID))
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
