package checker

import (
	"fmt"
	"time"

	"github.com/greenlight-ci/greenlight/internal/limits"
)

// The rules of a run's time line.
const (
	RuleOutOfOrder              RuleID = "out_of_order"
	RuleTimestampInFuture       RuleID = "timestamp_in_future"
	RuleConflictingScheduledFor RuleID = "conflicting_scheduled_for"
)

var outOfOrderRule = Rule{ID: RuleOutOfOrder, Family: familyTime,
	Summary: "a timestamp earlier than the previous event of the same run",
	Detail:  "One orchestrator writes a run's events in order; a step back in time means a clock or writer problem. It also keeps a heartbeat or a resolution from being dated before the start of its attempt (docs/recovery.md, evidence in time).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:05:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:04:00Z"}`,
	on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		last := x.run.LastAt()
		if cl, ok := x.run.Close(); ok && cl.At.After(last) {
			last = cl.At // a close does not move the run's last event (record)
		}
		if x.ev.Time.Before(last) {
			return outOfOrderText(x, last)
		}
		return ""
	}}

// outOfOrderText is out_of_order's message for the event of x, whose run's
// previous event was at last (a live or a folded run, judgeFolded).
func outOfOrderText(x *lineCheck, last time.Time) string {
	return fmt.Sprintf("timestamp %s is earlier than the previous event of run %s (%s)", formatTime(x.ev.Time), x.runID(), formatTime(last))
}

var timestampInFutureRule = Rule{ID: RuleTimestampInFuture, Family: familyTime,
	Summary: "a timestamp later than now plus the allowed clock skew",
	Detail:  "An event from the future (more than 300 s ahead of now by default) cannot be evidence yet: a heartbeat from 2099 keeps no attempt alive, and a resolution from 2099 settles none.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2099-01-01T00:00:00Z"}`,
	on:      onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.ev.Time.After(c.horizon) {
			return c.inFutureText(x)
		}
		return ""
	}}

// inFutureText is timestamp_in_future's message for the event of x.
func (c *contractState) inFutureText(x *lineCheck) string {
	return fmt.Sprintf("timestamp %s is more than %d s after now (%s)", formatTime(x.ev.Time), limits.ClockSkewSeconds, formatTime(c.opts.Now))
}

var conflictingScheduledForRule = Rule{ID: RuleConflictingScheduledFor, Family: familyTime,
	Summary: "an event's scheduled_for differs from an earlier event of the same run",
	Detail:  "A run fills one schedule slot; two events of one run that name different slots contradict each other (docs/schedule.md).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","scheduled_for":"2026-01-01T02:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z","scheduled_for":"2026-01-02T02:00:00Z"}`,
	on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		ev, run := x.ev, x.run
		if slot, line, ok := run.ScheduledFor(); ev.HasScheduledFor && ok && !ev.ScheduledFor.Equal(slot) {
			return fmt.Sprintf("scheduled_for %s differs from %s given on %s for run %s; a run fills one slot", formatTime(ev.ScheduledFor), formatTime(slot), c.lineText(line), run.ID())
		}
		return ""
	}}
