package checker

import (
	"fmt"
	"time"
)

// DoubleExecution is a schedule slot that two runs claim and in which both
// ran a stage the pipeline definition declares idempotent: false: the
// stage's effects (appended invoices, sent mails) may exist twice. Two
// controllers that start one cron slot do this (argoproj/argo-workflows
// #2694). It makes the slot unhealthy: gate all is unhealthy with any, gate
// latest with one of the latest judged slot. Within one run, the same double
// execution is a retry that needs a resolution (retry_without_resolution);
// across two runs, a person adjudicates it in the same way (Recovery).
type DoubleExecution struct {
	ScheduledFor string  `json:"scheduled_for"`
	Stage        StageID `json:"stage"`
	// RunID is the duplicate run, FilledBy the run that fills the slot
	// (ScheduleReport.Duplicates).
	RunID    string `json:"run_id"`
	FilledBy string `json:"filled_by"`
	// Recovery are the steps to take, one sentence each.
	Recovery []string `json:"recovery"`
	// Slot is ScheduledFor as a value (UTC).
	Slot time.Time `json:"-"`
}

// ran says the run executed stage i: an attempt of it started (a skip of
// a stage that never started is no execution).
func ran(run *runState, i int) bool {
	for _, a := range run.Attempts(i) {
		if a.Status() != StatusSkipped || a.StartLine() != a.LastLine() {
			return true
		}
	}
	return false
}

// doubleExecutions finds, for every duplicate run of the schedule, each
// stage declared idempotent: false that both it and the run that fills its
// slot ran, in the order of the duplicates, then of the stages. Runs fed
// with stages of their own (Feed) have no definition to say which stage is
// idempotent and are left out.
func (j *scheduleJudgement) doubleExecutions(def *Definition, runs []*runState) {
	sr := j.report
	sr.DoubleExecutions = []DoubleExecution{}
	byID := make(map[string]*runState, len(runs))
	for _, r := range runs {
		byID[r.ID()] = r
	}
	for _, d := range sr.Duplicates {
		dup, fill := byID[d.RunID], byID[d.FilledBy]
		if dup == nil || fill == nil || dup.Definition() > 0 || fill.Definition() > 0 {
			continue
		}
		for i := range def.Stages {
			sd := &def.Stages[i]
			if sd.Idempotent || i >= len(dup.Stages()) || i >= len(fill.Stages()) || !ran(dup, i) || !ran(fill, i) {
				continue
			}
			sr.DoubleExecutions = append(sr.DoubleExecutions, DoubleExecution{
				ScheduledFor: d.ScheduledFor, Slot: d.Slot, Stage: sd.ID, RunID: d.RunID, FilledBy: d.FilledBy,
				Recovery: []string{
					fmt.Sprintf("Runs %s and %s both ran stage %s for slot %s, and the stage is not idempotent: its effects may exist twice.", d.FilledBy, d.RunID, sd.ID, d.ScheduledFor),
					"Adjudicate, with evidence from the business data, which run's effects stand.",
					"Compensate (undo) the other run's effects, and record the decision and its evidence before the next run.",
					"Stop the second trigger (two schedulers or controllers on one schedule) so that a slot starts one run.",
				},
			})
		}
	}
}

// doubleInLatest says a double execution concerns the latest judged slot.
func (j *scheduleJudgement) doubleInLatest() bool {
	sr := j.report
	if len(sr.Slots) == 0 {
		return false
	}
	last := sr.Slots[len(sr.Slots)-1].ScheduledFor
	for _, d := range sr.DoubleExecutions {
		if d.ScheduledFor == last {
			return true
		}
	}
	return false
}
