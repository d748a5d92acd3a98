package checker

import "fmt"

// The rules of a heartbeat: liveness of an attempt in progress. An
// OpenLineage RUNNING event is a heartbeat too, held to its own two rules
// (rule_openlineage.go) with the same checks.
const (
	RuleHeartbeatWithoutStart  RuleID = "heartbeat_without_start"
	RuleHeartbeatAfterTerminal RuleID = "heartbeat_after_terminal"
)

var heartbeatWithoutStartRule = Rule{ID: RuleHeartbeatWithoutStart, Family: familyHeartbeat,
	Summary:  "a heartbeat for an attempt that never started",
	Detail:   "A heartbeat says a running attempt is alive; without its start it is evidence of nothing.",
	Example:  `{"run_id":"r-1","stage":"extract","attempt":1,"status":"heartbeat","timestamp_utc":"2026-01-01T10:00:00Z"}`,
	Statuses: []Status{StatusHeartbeat}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.attempt() == nil {
			return withoutStartText(x)
		}
		return ""
	}}

var heartbeatAfterTerminalRule = Rule{ID: RuleHeartbeatAfterTerminal, Family: familyHeartbeat,
	Summary: "a heartbeat after the attempt's outcome",
	Detail:  "After succeeded, failed or unknown the attempt is over; a heartbeat then means two processes think they own it. The one exception is a heartbeat of the owner that started the attempt after another owner took it over: evidence that the owner was alive (HEARTBEAT_ADVANCED), which makes the attempt's outcome unknown.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"exit 1"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"heartbeat","timestamp_utc":"2026-01-01T10:02:00Z"}`,
	Statuses: []Status{StatusHeartbeat}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if a := x.attempt(); a.Status() != StatusStarted && !heartbeatAdvances(a, x.ev) {
			return fmt.Sprintf("%s sent a heartbeat, but it already ended %s on %s", x.who(), a.Status(), c.lineText(a.LastLine()))
		}
		return ""
	}}

// recordHeartbeat keeps a heartbeat as attempt a's latest evidence of life,
// with its lease and owner.
func recordHeartbeat(a *attemptState, ev *event) {
	a.Touch(ev.Time, ev.Line)
	a.SetHeartbeatLease(ev.Owner, ev.LeaseExpiresAt)
}
