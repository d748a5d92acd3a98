package checker

import "fmt"

// stopFlags are the greenlight emit flags of the proof that a lock's holder
// stopped (unlock_without_stop_evidence), with placeholders in capitals.
const stopFlags = " --stop-confirmed-by YOUR_NAME --stop-evidence-ref STOP_EVIDENCE_REF --stop-method STOP_METHOD"

// closeActions are the finish_close actions of a run whose close is not
// final (docs/recovery.md, The run's close), one per outstanding problem:
// the lock problem first (its release may come in any close), then the
// runbook's next step for the result code (a pending audit record, an
// unconfirmed archive). Each names the run, the audit record and the
// close's owner, and ends with the greenlight emit line that records the
// close once it is finished, with the flags its rules require. None for a
// run without a close, or whose close is final.
func closeActions(rr *RunReport, lineText func(int) string) []RecoveryAction {
	cl := rr.Close
	if cl == nil || (cl.ResultCode == CloseArchived && cl.LockProblemCode == nil) {
		return nil
	}
	run := rr.RunID
	// The log names who wrote the close, not who holds the lock.
	holder := "the lock's holder"
	if cl.Owner != nil {
		holder = "the lock's holder (the log does not name it; the close was written by " + *cl.Owner + ")"
	}
	emit := "greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --run-id " + shellWord(run) + " --status closed --result-code "
	// lockFlags are the stop flags a RUN_ARCHIVED close needs while a lock
	// problem is outstanding.
	lockFlags := ""
	if cl.LockProblemCode != nil {
		lockFlags = stopFlags
	}
	var acts []RecoveryAction
	add := func(steps ...string) {
		acts = append(acts, RecoveryAction{Action: ActionFinishClose, Owner: cl.Owner, Steps: steps})
	}
	if cl.LockProblemCode != nil && cl.ResultCode != CloseArchiveUnconfirmed {
		lockLine := lineText(*cl.LockProblemLine)
		switch *cl.LockProblemCode {
		case CloseLockUnreleased:
			add(fmt.Sprintf("Run %s was archived, but its lock was not released: the close on %s returned RUN_ARCHIVED_LOCK_UNRELEASED.", run, lockLine),
				fmt.Sprintf("Confirm, with evidence, that %s stopped, as confirm_stopped does for an attempt's owner (its host and PID, the PID's start time and command line, the host's boot time). Never release a lock on its age alone.", holder),
				fmt.Sprintf("Only then force-unlock the lock of run %s, and record the released lock with that evidence (stop_method is local_pid, host_down, console or other): %sRUN_ARCHIVED --owner YOUR_OWNER_ID%s", run, emit, stopFlags))
		case CloseLockConflict:
			first := fmt.Sprintf("The close of run %s on %s found its lock held by another holder (LOCK_CONFLICT).", run, lockLine)
			if cl.ArchivedLine == nil {
				first = fmt.Sprintf("The close of run %s on %s found its lock held by another holder (LOCK_CONFLICT): nothing was archived.", run, lockLine)
			}
			add(first,
				fmt.Sprintf("Confirm, with evidence, that %s stopped (as confirm_stopped does), then recover the stale lock. A live holder means wait: never take a lock on its age alone.", holder),
				fmt.Sprintf("Then close run %s again, and record that close's result code with that evidence (stop_method is local_pid, host_down, console or other; a RUN_ARCHIVED close needs it): %sRESULT_CODE --owner YOUR_OWNER_ID%s", run, emit, stopFlags))
		}
	}
	switch cl.ResultCode {
	case CloseAuditPending:
		id := *cl.AuditEventID // the schema requires it on RUN_ARCHIVED_AUDIT_PENDING
		first := fmt.Sprintf("Run %s was archived, but its audit record %s was not written: the close on %s returned RUN_ARCHIVED_AUDIT_PENDING.", run, id, lineText(*cl.AuditPendingLine))
		if cl.AgainLine != nil {
			first += fmt.Sprintf(" The close request repeated on %s did not complete it.", lineText(*cl.AgainLine))
		}
		last := "Then record the completion with its evidence: "
		if lockFlags != "" {
			last = "Then record the completion with its evidence (while the lock problem is outstanding, with the proof that its holder stopped too): "
		}
		add(first,
			fmt.Sprintf("Complete the audit record once, with the original event id %s. Do not send another close request: a second close request does not complete the audit.", id),
			last+emit+"RUN_ARCHIVED --audit-event-id "+shellWord(id)+" --audit-completed-by YOUR_NAME --evidence-ref EVIDENCE_REF"+lockFlags)
	case CloseArchiveUnconfirmed:
		steps := []string{
			fmt.Sprintf("The close of run %s on %s could not confirm the archive (ARCHIVE_UNCONFIRMED): the run may or may not be archived.", run, lineText(cl.Line)),
			fmt.Sprintf("Read the lifecycle status of run %s in the archive; do not close again before you know it.", run),
		}
		if lockFlags != "" {
			steps = append(steps, fmt.Sprintf("Its lock is still held (%s on %s): confirm, with evidence, that %s stopped before you record the run archived. Never release a lock on its age alone.", *cl.LockProblemCode, lineText(*cl.LockProblemLine), holder))
		}
		steps = append(steps, fmt.Sprintf("Archived: record it with where you read the status, %sRUN_ARCHIVED --owner YOUR_OWNER_ID --evidence-ref LIFECYCLE_STATUS_REF%s. Not archived: close the run again, and record that close's result code.", emit, lockFlags))
		add(steps...)
	}
	return acts
}

// redoInNewRun turns the action act of a stage (or a job-log mismatch) of
// an archived run into redo_in_new_run: the log takes no more events of
// the run's stages (event_after_close), so the retry, resolution or
// adjudication act asks for could not be recorded; the work is redone in a
// new run, once what the stage's last attempt did is known. A cancelled
// stage's none stays.
func redoInNewRun(rr *RunReport, act RecoveryAction, lineText func(int) string) RecoveryAction {
	if act.Action == ActionNone {
		return act
	}
	cl := rr.Close
	archived := fmt.Sprintf("Run %s was archived unfinished: the close on %s returned %s", rr.RunID, lineText(*cl.ArchivedLine), cl.archivedCode)
	if cl.archivedCode == CloseArchiveUnconfirmed {
		archived = fmt.Sprintf("Run %s may have been archived unfinished: the close on %s returned ARCHIVE_UNCONFIRMED", rr.RunID, lineText(*cl.ArchivedLine))
	}
	what := "the stage"
	if act.Stage != nil {
		what = "stage " + act.Stage.String()
	}
	var steps []string
	switch act.Action {
	case ActionAdjudicateUnknown, ActionInvestigateInconsistency:
		attempt := what
		if act.Attempt != nil {
			attempt = fmt.Sprintf("attempt %d of %s", *act.Attempt, what)
		}
		steps = []string{
			archived + fmt.Sprintf(", while what %s did is not known. The log takes no more events of the run's stages: a resolved event of this run would be refused.", attempt),
			"Find out what it did from the business data and the job log, and keep that finding with the run's incident record, outside this log.",
			fmt.Sprintf("Then do the work %s left undone in a new run (a new run_id); never repeat it before you know what the attempt did.", what),
		}
	default:
		steps = []string{archived + fmt.Sprintf(", while %s had not succeeded. The log takes no more events of the run's stages: a retry or a resolved event of this run would be refused.", what)}
		switch act.Action {
		case ActionResolveNonIdempotent:
			steps = append(steps, "The stage is not idempotent: inspect the effects its failed attempt may have left (undo or complete them by hand) before the work runs again.")
		case ActionFixThenRerunFrom:
			steps = append(steps, "Its retry brake tripped: fix the cause first, or the new run repeats the failure.")
		}
		steps = append(steps, fmt.Sprintf("Do the work of %s in a new run (a new run_id), with the stages it depends on.", what))
	}
	act.Action, act.Steps = ActionRedoInNewRun, steps
	return act
}
