package checker

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Action is what the evidence of a run calls for (Recovery.Action), as the
// snapshot's JSON writes it.
type Action string

// Recovery actions: what the evidence of a run calls for (docs/recovery.md).
const (
	ActionNone                     = "none"
	ActionWait                     = "wait"
	ActionRerun                    = "rerun"
	ActionFixThenRerunFrom         = "fix_then_rerun_from"
	ActionAdjudicateUnknown        = "adjudicate_unknown"
	ActionResolveNonIdempotent     = "resolve_non_idempotent"
	ActionConfirmStopped           = "confirm_stopped"
	ActionInvestigateInconsistency = "investigate_inconsistency"
	ActionFinishClose              = "finish_close"
	// ActionRedoInNewRun replaces a stage's action in a run a close says
	// is archived, which takes no more events of its stages: the work is
	// redone in a new run (close_report.go).
	ActionRedoInNewRun = "redo_in_new_run"
)

// Recovery is what an operator does next about one run: the action, the
// identifiers to copy (nil where they do not apply or the log has none) and
// ordered steps in plain words, of the first of Actions, every action the
// run calls for in the runbook's order. Steps quote log text (ids, owners, reasons)
// unescaped: every sink escapes them.
type Recovery struct {
	Action    Action   `json:"action"`
	RunID     string   `json:"run_id"`
	Stage     *StageID `json:"stage"`
	Attempt   *int64   `json:"attempt"`
	AttemptID *string  `json:"attempt_id"`
	Owner     *string  `json:"owner"`
	Steps     []string `json:"steps"`
	// Actions are every unhealthy stage's action, numbered in the
	// runbook's order of work (docs/recovery.md); the fields above are
	// those of the first. Empty for a run that calls for nothing.
	Actions []RecoveryAction `json:"actions"`
}

// ResolutionReport is a resolved event as the snapshot shows it; ResolvedAt
// is RFC 3339 UTC and Line the resolved event's line.
type ResolutionReport struct {
	Resolution  string  `json:"resolution"`
	Reason      string  `json:"reason"`
	EvidenceRef string  `json:"evidence_ref"`
	ResolvedBy  string  `json:"resolved_by"`
	ApprovedBy  *string `json:"approved_by"`
	ResolvedAt  string  `json:"resolved_at"`
	Line        int     `json:"line"`
}

// recoveryFor gives the run's recovery (docs/recovery.md, "The runbook's
// order of work"): an action for every unhealthy stage, in the runbook's
// order (runbookOrder), numbered from 1 in Actions; Action and its
// identifiers and steps are those of the first, what to do now. A
// job-log OUTCOME_MISMATCH (mismatch) is one more action, among the
// adjudications. lineText names a line of the log in the steps
// (contractState.lineText: the line within its file).
func recoveryFor(rr *RunReport, def *Definition, mismatch *Inconsistency, lineText func(int) string) Recovery {
	rec := Recovery{Action: ActionNone, RunID: rr.RunID, Steps: []string{}, Actions: []RecoveryAction{}}
	if rr.State == RunSucceeded && mismatch == nil {
		return rec
	}
	var todo []pendingAction
	// In a run a close says is archived, no stage's action can be logged.
	archived := func(act RecoveryAction) RecoveryAction {
		if rr.Close == nil || rr.Close.ArchivedLine == nil {
			return act
		}
		return redoInNewRun(rr, act, lineText)
	}
	if mismatch != nil {
		todo = append(todo, pendingAction{phase: phaseAdjudicate, index: -1, act: archived(mismatchAction(mismatch))})
	}
	for i := range rr.Stages {
		if act, ph, ok := stageAction(rr, i, def, lineText); ok {
			todo = append(todo, pendingAction{phase: ph, index: i, act: archived(act)})
		}
	}
	for k, act := range closeActions(rr, lineText) {
		todo = append(todo, pendingAction{phase: phaseClose, index: len(rr.Stages) + k, act: act})
	}
	rec.Actions = runbookOrder(todo)
	if len(rec.Actions) > 0 {
		first := &rec.Actions[0]
		rec.Action, rec.Stage, rec.Attempt, rec.AttemptID, rec.Owner, rec.Steps = first.Action, first.Stage, first.Attempt, first.AttemptID, first.Owner, first.Steps
	}
	return rec
}

// mismatchAction is investigate_inconsistency for a job-log
// OUTCOME_MISMATCH.
func mismatchAction(mismatch *Inconsistency) RecoveryAction {
	return RecoveryAction{
		Action: ActionInvestigateInconsistency, Stage: mismatch.Stage, Attempt: mismatch.Attempt, AttemptID: &mismatch.AttemptID,
		Steps: []string{
			"The event log and the job log disagree: " + mismatch.Message + ".",
			"Do not rerun and do not resolve until the disagreement is explained: find out which record is wrong, from the business data.",
			"Then append a resolved event for the attempt with the evidence, and correct the record that was wrong.",
		},
	}
}

// stageAction is the action stage i of the run calls for on its own, and
// the runbook phase it belongs to; ok is false for a stage that calls for
// none (succeeded, skipped, blocked behind another stage's action, or
// pending while a stage it depends on has not succeeded yet).
func stageAction(rr *RunReport, i int, def *Definition, lineText func(int) string) (act RecoveryAction, ph phase, ok bool) {
	st, sd := &rr.Stages[i], &def.Stages[i]
	stage := st.Stage
	act.Stage = &stage
	label := "stage " + stage.String()
	if st.State == StagePending && !dependenciesDone(rr, sd) {
		return act, 0, false
	}
	if len(st.Attempts) == 0 {
		if st.State != StagePending {
			return act, 0, false
		}
		act.Action = ActionRerun
		act.Steps = []string{
			fmt.Sprintf("Stage %s of run %s never started, although nothing it depends on failed or is in progress.", stage, rr.RunID),
			fmt.Sprintf("Start %s of run %s (attempt 1).", label, rr.RunID),
		}
		return act, phaseRerun, true
	}
	a := &st.Attempts[len(st.Attempts)-1]
	n := a.Attempt
	act.Attempt, act.AttemptID, act.Owner = &n, a.AttemptID, a.Owner
	who := fmt.Sprintf("Attempt %d of %s in run %s", n, label, rr.RunID)
	switch st.State {
	case StagePending: // a stage a rerun from upstream is to run again (rerun.go)
		act.Action = ActionRerun
		act.Steps = []string{
			fmt.Sprintf("Stage %s of run %s is to run again: a rerun from a stage upstream of it started after its attempt %d (%s).", stage, rr.RunID, n, lineText(a.Line)),
			fmt.Sprintf("Start attempt %d of %s in run %s once the stages it depends on have succeeded in the rerun.", n+1, label, rr.RunID),
		}
		return act, phaseRerun, true
	case StageRunning:
		act.Action, act.Steps = ActionWait, waitSteps(rr, a, who, lineText)
		return act, phaseWait, true
	case StageStalled:
		act.Action, act.Steps = ActionConfirmStopped, confirmStoppedSteps(rr.RunID, stage, a, who, lineText)
		return act, phaseConfirm, true
	case StageUnknown:
		act.Action, act.Steps = ActionAdjudicateUnknown, adjudicateSteps(a, who, lineText)
		return act, phaseAdjudicate, true
	case StageFailed:
		act.Action, act.Steps, ph = failedAction(rr.RunID, st, sd, a, who, lineText)
		return act, ph, true
	case StageCancelled:
		line := a.Line
		if a.Resolution != nil {
			line = a.Resolution.Line
		}
		act.Action = ActionNone
		act.Steps = []string{fmt.Sprintf("%s was cancelled (%s); a cancelled run is not rerun.", who, lineText(line))}
		return act, phaseNone, true
	}
	return act, 0, false
}

// dependenciesDone reports whether every stage sd depends on has succeeded
// or been skipped in the run.
func dependenciesDone(rr *RunReport, sd *StageDef) bool {
	for _, dep := range sd.DependsOn {
		for k := range rr.Stages {
			if rr.Stages[k].Stage == dep && rr.Stages[k].State != StageSucceeded && rr.Stages[k].State != StageSkipped {
				return false
			}
		}
	}
	return true
}

// waitSteps are the steps of wait for a running attempt a: check later,
// or, in an overdue run, check with the owner that it makes progress.
func waitSteps(rr *RunReport, a *AttemptReport, who string, lineText func(int) string) []string {
	owner := "the owner"
	if a.Owner != nil {
		owner = "the owner " + *a.Owner
	}
	if rr.State == RunOverdue {
		over := 0.0
		if rr.OverdueBySeconds != nil {
			over = *rr.OverdueBySeconds
		}
		return []string{
			fmt.Sprintf("Run %s has been in progress %s longer than the schedule's max_runtime_seconds; %s is still running, its last sign of life %s ago (%s).", rr.RunID, secondsText(&over), strings.ToLower(who[:1])+who[1:], secondsText(a.SilentForSeconds), lineText(a.Line)),
			fmt.Sprintf("Check with %s that it is making progress; do not start another attempt while this one may be alive.", owner),
		}
	}
	return []string{
		fmt.Sprintf("%s is running; its last sign of life was %s ago (%s).", who, secondsText(a.SilentForSeconds), lineText(a.Line)),
		"Check again later; do not start another attempt while this one may be alive.",
	}
}

// adjudicateSteps are the steps of adjudicate_unknown for attempt a.
func adjudicateSteps(a *AttemptReport, who string, lineText func(int) string) []string {
	reason := ""
	if a.Reason != nil {
		reason = ": " + *a.Reason
	}
	jobLog := "the job log"
	if a.AttemptID != nil {
		jobLog = "the job log record of attempt_id " + *a.AttemptID
	}
	return []string{
		fmt.Sprintf("%s has an unknown outcome (%s)%s.", who, lineText(a.Line), reason),
		fmt.Sprintf("Compare the business data and %s to learn what the attempt did.", jobLog),
		"Append a resolved event with resolution, reason, evidence_ref and resolved_by (succeeded also needs manual_completion: true, cancelled needs compensated: true).",
		"Never rerun an UNKNOWN attempt to see if it works.",
	}
}

// failedAction is the action of a failed stage: resolve_non_idempotent for
// a non-idempotent stage's unresolved failure, fix_then_rerun_from when
// its retry brake tripped (within the run, or across runs), else rerun.
func failedAction(runID string, st *StageReport, sd *StageDef, a *AttemptReport, who string, lineText func(int) string) (Action, []string, phase) {
	n := a.Attempt
	label := "stage " + st.Stage.String()
	switch {
	case !sd.Idempotent && a.Resolution == nil:
		return ActionResolveNonIdempotent, []string{
			fmt.Sprintf("%s failed (%s) and the stage is not idempotent: it may have left partial effects.", who, lineText(a.Line)),
			"Inspect its effects, then append a resolved event: failed to allow a retry, succeeded with manual_completion: true and a second person's approved_by, or cancelled with compensated: true.",
			fmt.Sprintf("Only then start attempt %d.", n+1),
		}, phaseRerun
	case st.brake != nil && st.brake.Runs != nil:
		return ActionFixThenRerunFrom, []string{
			fmt.Sprintf("%s failed; the last %d attempts of %s, across runs %s, all failed with %s: the retry brake tripped, and the stage is braked in later runs too.", who, st.brake.Count, label, strings.Join(st.brake.Runs, ", "), st.brake.Kind),
			"Fix the cause first; another blind retry, tonight's or tomorrow's, repeats the failure.",
			fmt.Sprintf("Then start attempt %d (or the stage in the next run) with rerun_from: true.", n+1),
		}, phaseBrake
	case st.brake != nil:
		return ActionFixThenRerunFrom, []string{
			fmt.Sprintf("%s failed; the last %d attempts all failed with %s: the retry brake tripped.", who, st.brake.Count, st.brake.Kind),
			"Fix the cause first; another blind retry repeats the failure.",
			fmt.Sprintf("Then start attempt %d with rerun_from: true.", n+1),
		}, phaseBrake
	}
	return ActionRerun, []string{
		fmt.Sprintf("%s failed (%s).", who, lineText(a.Line)),
		fmt.Sprintf("Start attempt %d of %s in run %s.", n+1, label, runID),
	}, phaseRerun
}

func secondsText(s *float64) string {
	if s == nil {
		return "0s"
	}
	return time.Duration(math.Round(*s) * float64(time.Second)).String()
}

// confirmStoppedSteps are the steps of confirm_stopped for attempt a of
// stage in run runID, silent past its lease or threshold (docs/recovery.md,
// "The advice writes the command"): what to confirm about the owner (its
// host and PID when the owner is a local-pid:// address: that the PID is
// gone or is another process, by start time and command line since PIDs
// are reused, and the host's boot time), and the exact greenlight emit
// line that records the takeover, with the attempt's identifiers copied
// from the snapshot (shell-quoted) and placeholders in capitals for the
// evidence.
func confirmStoppedSteps(runID string, stage StageID, a *AttemptReport, who string, lineText func(int) string) []string {
	steps := []string{fmt.Sprintf("%s has been silent for %s since %s: a stall candidate, not proof that its owner stopped.", who, secondsText(a.SilentForSeconds), lineText(a.Line))}
	method := "STOP_METHOD"
	switch host, pid, ok := localPID(a.Owner); {
	case ok:
		method = "local_pid"
		steps = append(steps, fmt.Sprintf("Confirm on host %s that PID %s of the owner %s has stopped: the PID is gone, or it is another process (compare its start time and command line with the attempt's start at %s: PIDs are reused); check the host's boot time too (a reboot after %s ended the process). Keep the output (ps -o lstart=,args= -p %s) as the evidence.", host, pid, *a.Owner, a.StartedAt, a.StartedAt, pid))
	case a.Owner != nil:
		steps = append(steps, fmt.Sprintf("Confirm, with evidence, that the owner %s has stopped (its process, its host or the scheduler's console), and keep the evidence.", *a.Owner))
	default:
		steps = append(steps, "Confirm, with evidence, that the process that ran the attempt has stopped (its process, its host or the scheduler's console), and keep the evidence; the log names no owner.")
	}
	cmd := "greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --run-id " + shellWord(runID) +
		" --stage " + shellWord(stage.String()) + fmt.Sprintf(" --attempt %d", a.Attempt) +
		" --status failed --error 'taken over: STOP_REASON' --owner YOUR_OWNER_ID --stop-confirmed-by YOUR_NAME --stop-evidence-ref EVIDENCE_REF --stop-method " + method
	steps = append(steps,
		"Then record the takeover with that evidence (stop_method is local_pid, host_down, console or other; write --status unknown with --field reason=... instead of failed when what the attempt did cannot be confirmed): "+cmd,
		"Then follow the action the recorded outcome calls for; if the owner's heartbeat comes after the takeover, the owner was alive (HEARTBEAT_ADVANCED) and the attempt needs a person's adjudication.")
	return steps
}

// localPID splits an owner local-pid://HOST/PID into its host and PID; ok
// is false for any other owner.
func localPID(owner *string) (host, pid string, ok bool) {
	if owner == nil {
		return "", "", false
	}
	rest, found := strings.CutPrefix(*owner, "local-pid://")
	if !found {
		return "", "", false
	}
	host, pid, found = strings.Cut(rest, "/")
	if !found || host == "" || pid == "" || strings.Trim(pid, "0123456789") != "" {
		return "", "", false
	}
	return host, pid, true
}

// shellWord writes s as one word of a POSIX shell command: as it is when it
// holds only characters no shell reads specially, else in single quotes
// (a single quote inside closes the quotes, writes it escaped with a
// backslash and opens them again).
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.,/:@%+=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
