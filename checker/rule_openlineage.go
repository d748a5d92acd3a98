package checker

import "fmt"

// Rules that only an OpenLineage log can break (docs/openlineage.md). The
// importer (checker/openlineage) finds ambiguous_attempt and conflicting_run
// itself and reports them with Feed.Violate; Feed checks the other two on a
// RUNNING event, a heartbeat.
const (
	RuleRunningWithoutStart RuleID = "running_without_start"
	RuleEventAfterTerminal  RuleID = "event_after_terminal"
	RuleAmbiguousAttempt    RuleID = "ambiguous_attempt"
	RuleConflictingRun      RuleID = "conflicting_run"
)

var runningWithoutStartRule = Rule{ID: RuleRunningWithoutStart, Family: familyOpenLineage,
	Summary:  "a RUNNING event for a run that has not started",
	Detail:   "RUNNING is liveness of a run in progress; before its START it is evidence of nothing greenlight can place.",
	Example:  `{"eventType": "RUNNING", "run": {"runId": "…-0001"}, ...}   (no START of …-0001 before it)`,
	Statuses: []Status{StatusHeartbeat}, on: onFeed, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.attempt() == nil {
			return x.who() + " sent a heartbeat (RUNNING), but it never started"
		}
		return ""
	}}

var eventAfterTerminalRule = Rule{ID: RuleEventAfterTerminal, Family: familyOpenLineage,
	Summary:  "an event of a run after its terminal event",
	Detail:   "After COMPLETE, FAIL or ABORT a run is over; a later RUNNING means the outcome was not final. (OTHER may come at any time; a second START or terminal is duplicate_start or duplicate_terminal.)",
	Example:  "COMPLETE of …-0001, then RUNNING of …-0001",
	Statuses: []Status{StatusHeartbeat}, on: onFeed, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if a := x.attempt(); a.Status() != StatusStarted {
			return fmt.Sprintf("%s sent a heartbeat (RUNNING), but it already %s (%s)", x.who(), a.Status(), c.lineText(a.LastLine()))
		}
		return ""
	}}

var ambiguousAttemptRule = Rule{ID: RuleAmbiguousAttempt, Family: familyOpenLineage,
	Summary: "two runs of one job under one pipeline run cannot be told apart",
	Detail:  "Under one root run, the runs of a job (and map index) are its attempts (try_number) or its repeats (no try_number). Two runs with the same try_number, or a job whose runs carry a try_number only sometimes, or a stage name (job#2, job[0]) that is another job's name, leave the attempt unknown.",
	Example: "two runIds of airflow/dag.task, both with try_number 1"}

var conflictingRunRule = Rule{ID: RuleConflictingRun, Family: familyOpenLineage,
	Summary: "the events of one runId disagree about who it is",
	Detail:  "Every event of a runId must name the same job, parent, root, try_number and map_index; the message says where each side came from. A parent or root facet that names another run's job differently is an alias, not a conflict. A parent chain that loops has no root. A `parent.root` must name the root the parent chain reaches (or, where the chain ends at a run that never logged, one root for the whole chain, a run whose own events name no parent); the message names both roots.",
	Example: "START of …-0001 as job ns/a, COMPLETE of …-0001 as job ns/b"}
