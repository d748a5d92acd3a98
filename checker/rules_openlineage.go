package checker

// Rules that only an OpenLineage log can break (docs/openlineage.md). An
// OpenLineage log is also held to the contract rules of Rules() that apply
// to it: the reading rules, schema (against
// schemas/openlineage-runevent.schema.json), unknown_stage,
// timestamp_in_future and the sequence rules.
const (
	RuleRunningWithoutStart RuleID = "running_without_start"
	RuleEventAfterTerminal  RuleID = "event_after_terminal"
	RuleAmbiguousAttempt    RuleID = "ambiguous_attempt"
	RuleConflictingRun      RuleID = "conflicting_run"
)

// OpenLineageRules returns the table of the rules only an OpenLineage log
// can break, in the same form as Rules().
func OpenLineageRules() []Rule {
	return []Rule{
		{RuleRunningWithoutStart, "a RUNNING event for a run that has not started",
			"RUNNING is liveness of a run in progress; before its START it is evidence of nothing greenlight can place.",
			`{"eventType": "RUNNING", "run": {"runId": "…-0001"}, ...}   (no START of …-0001 before it)`},
		{RuleEventAfterTerminal, "an event of a run after its terminal event",
			"After COMPLETE, FAIL or ABORT a run is over; a later RUNNING means the outcome was not final. (OTHER may come at any time; a second START or terminal is duplicate_start or duplicate_terminal.)",
			"COMPLETE of …-0001, then RUNNING of …-0001"},
		{RuleAmbiguousAttempt, "two runs of one job under one pipeline run cannot be told apart",
			"Under one root run, the runs of a job (and map index) are its attempts (try_number) or its repeats (no try_number). Two runs with the same try_number, or a job whose runs carry a try_number only sometimes, or a stage name (job#2, job[0]) that is another job's name, leave the attempt unknown.",
			"two runIds of airflow/dag.task, both with try_number 1"},
		{RuleConflictingRun, "the events of one runId disagree about who it is",
			"Every event of a runId must name the same job, parent, root, try_number and map_index; the message says where each side came from. A parent or root facet that names another run's job differently is an alias, not a conflict. A parent chain that loops has no root.",
			"START of …-0001 as job ns/a, COMPLETE of …-0001 as job ns/b"},
	}
}
