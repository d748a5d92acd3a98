package checker

import "fmt"

// The rules of the pipeline definition's stages.
const (
	RuleUnknownStage          RuleID = "unknown_stage"
	RuleSkipOfUnskippable     RuleID = "skip_of_unskippable_stage"
	RuleStageBeforeDependency RuleID = "stage_before_dependency"
)

var unknownStageRule = Rule{ID: RuleUnknownStage, Family: familyStage,
	Summary: "a stage the pipeline definition does not declare",
	Detail:  "Every stage in the log must be declared, so that stages that never logged are visible as pending.",
	Example: `{"run_id":"r-1","stage":"transform","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`,
	on:      onBoth,
	check: func(c *contractState, x *lineCheck) string {
		if x.ev.Status.RunLevel() {
			return "" // a run-level event names no stage
		}
		si, ok := c.stageOf(x.ev.Stage)
		if ok {
			x.si = si
			return ""
		}
		return fmt.Sprintf("stage %s is not declared by the pipeline definition (declared: %s)", x.ev.Stage, c.declared())
	}}

// skipOfUnskippableRule refuses a skipped event of a stage the definition
// does not declare skippable: a skip is healthy only where the pipeline's
// author said the stage may be left out (an Airflow branch or
// short-circuit), never because the orchestrator happened to log it.
var skipOfUnskippableRule = Rule{ID: RuleSkipOfUnskippable, Family: familyStage,
	Summary:  "a skipped event of a stage not declared skippable",
	Detail:   "Only a stage the pipeline definition declares skippable: true may end with skipped; any other stage must run for its run to succeed.",
	Example:  `{"run_id":"r-1","stage":"extract","attempt":1,"status":"skipped","timestamp_utc":"2026-01-01T10:00:00Z","reason":"branch chose full_load"}`,
	Statuses: []Status{StatusSkipped}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		if c.opts.Definition.Stages[x.si].Skippable {
			return ""
		}
		return fmt.Sprintf("attempt %d of stage %s in run %s was skipped, but the pipeline definition does not declare stage %s skippable (skippable: true)", x.ev.Attempt, x.ev.Stage, string(x.ev.RunID), x.ev.Stage)
	}}

var stageBeforeDependencyRule = Rule{ID: RuleStageBeforeDependency, Family: familyStage,
	Summary: "a stage started before its dependencies succeeded",
	Detail:  "A stage may start only after every stage it depends on (depends_on; by default the stage declared before it) has succeeded, or was skipped (a stage declared skippable, as the join after a branch runs), in the same run.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:01:00Z"}`,
	Statuses: []Status{StatusStarted}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		for _, dep := range c.opts.Definition.Stages[x.si].DependsOn {
			di, _ := c.stageOf(dep) // the definition declares every dependency
			d := x.run.Attempts(di)
			if len(d) == 0 || (d[len(d)-1].Outcome() != StatusSucceeded && d[len(d)-1].Outcome() != StatusSkipped) {
				state := "has not started"
				if len(d) > 0 {
					state = "is " + stageWord(d[len(d)-1].Outcome())
				}
				return fmt.Sprintf("stage %s started in run %s before stage %s, which it depends on, succeeded (stage %s %s)", x.ev.Stage, x.run.ID(), dep, dep, state)
			}
		}
		return ""
	}}
