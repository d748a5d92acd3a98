package checker

import (
	"fmt"
	"sort"
	"strings"
)

// This file orders a run's recovery actions as the fail-closed runner's
// runbook orders its work (docs/recovery.md, "The runbook's order of
// work"): a live lease means wait, then confirm stopped for stale leases,
// then adjudicate unknown outcomes, then the retry brake, then rerun or
// resume.

// phase is a step of the runbook's order of work; a run's actions are
// listed by phase, then by the stages' declared order.
type phase int

const (
	phaseWait       phase = iota // a live lease: wait
	phaseConfirm                 // a stale lease: confirm the owner stopped
	phaseAdjudicate              // an unknown outcome, a job-log mismatch
	phaseBrake                   // a tripped retry brake: fix, then rerun from
	phaseRerun                   // resolve a non-idempotent failure, rerun, resume
	phaseClose                   // finish the run's close (rule_close.go)
	phaseNone                    // a cancelled stage: nothing to do
)

// pendingAction is one stage's action before it is numbered: its phase,
// the stage's index in the run (-1 for a job-log mismatch, first in its
// phase) and the action.
type pendingAction struct {
	phase phase
	index int
	act   RecoveryAction
}

// RecoveryAction is one numbered action of a run's recovery
// (Recovery.Actions): Order from 1 in the runbook's order, the action, the
// identifiers to copy (nil where they do not apply or the log has none)
// and ordered steps in plain words. Steps quote log text unescaped: every
// sink escapes them.
type RecoveryAction struct {
	Order     int      `json:"order"`
	Action    Action   `json:"action"`
	Stage     *StageID `json:"stage"`
	Attempt   *int64   `json:"attempt"`
	AttemptID *string  `json:"attempt_id"`
	Owner     *string  `json:"owner"`
	Steps     []string `json:"steps"`
}

// runbookOrder numbers the actions by phase, then stage order. While an
// attempt of the run holds a live lease (a wait action), every other
// action but none is deferred: it becomes wait, with steps that say what
// it waits for, since the runbook neither adjudicates, nor takes over,
// nor reruns anything in a run one of whose attempts may still be
// writing. A stage that has not started yet is not listed then, nor in a
// run with a cancelled stage (a cancelled run is not resumed).
func runbookOrder(todo []pendingAction) []RecoveryAction {
	sort.SliceStable(todo, func(i, j int) bool {
		if todo[i].phase != todo[j].phase {
			return todo[i].phase < todo[j].phase
		}
		return todo[i].index < todo[j].index
	})
	var live []string
	cancelled := false
	for _, p := range todo {
		switch p.phase {
		case phaseWait:
			live = append(live, fmt.Sprintf("attempt %d of stage %s", *p.act.Attempt, p.act.Stage))
		case phaseNone:
			cancelled = true
		}
	}
	out := make([]RecoveryAction, 0, len(todo))
	for _, p := range todo {
		act := p.act
		if (len(live) > 0 || cancelled) && act.Attempt == nil && act.Action == ActionRerun {
			continue // not started yet, in a run in progress or a cancelled run
		}
		if len(live) > 0 && p.phase != phaseWait && p.phase != phaseNone {
			act = deferred(act, live)
		}
		act.Order = len(out) + 1
		out = append(out, act)
	}
	return out
}

// deferred turns act into wait while the attempts live hold a live lease:
// its first step still says what the stage shows, the next say which
// action waits and for what.
func deferred(act RecoveryAction, live []string) RecoveryAction {
	steps := []string{act.Steps[0],
		fmt.Sprintf("Its action, %s, waits: %s still holds a live lease. While an attempt of the run may still be writing, do not adjudicate, take over or rerun anything in it.", act.Action, strings.Join(live, " and ")),
		"Check again once that attempt has ended (or, past its lease, has been confirmed stopped), and follow the action given then.",
	}
	act.Action, act.Steps = ActionWait, steps
	return act
}
