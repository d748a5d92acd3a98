package checker

import "fmt"

// closeAction is finish_close for a run whose close is not RUN_ARCHIVED
// (docs/recovery.md, The run's close): the runbook's next step for its
// result code, naming the run, the audit record and the close's owner, and
// the greenlight emit line that records the close once it is finished. ok
// is false for a run without a close, or closed RUN_ARCHIVED.
func closeAction(rr *RunReport, lineText func(int) string) (act RecoveryAction, ok bool) {
	cl := rr.Close
	if cl == nil || cl.ResultCode == CloseArchived {
		return act, false
	}
	act.Action, act.Owner = ActionFinishClose, cl.Owner
	run := rr.RunID
	// The log names who wrote the close, not who holds the lock.
	holder := "the lock's holder"
	if cl.Owner != nil {
		holder = "the lock's holder (the log does not name it; the close was written by " + *cl.Owner + ")"
	}
	emit := "greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --run-id " + shellWord(run) + " --status closed --result-code "
	switch cl.ResultCode {
	case CloseAuditPending:
		id := *cl.AuditEventID // the schema requires it on RUN_ARCHIVED_AUDIT_PENDING
		first := fmt.Sprintf("Run %s was archived, but its audit record %s was not written: the close on %s returned RUN_ARCHIVED_AUDIT_PENDING.", run, id, lineText(*cl.AuditPendingLine))
		if cl.AgainLine != nil {
			first += fmt.Sprintf(" The close request repeated on %s did not complete it.", lineText(*cl.AgainLine))
		}
		act.Steps = []string{first,
			fmt.Sprintf("Complete the audit record once, with the original event id %s. Do not send another close request: a second close request does not complete the audit.", id),
			"Then record the completion with its evidence: " + emit + "RUN_ARCHIVED --audit-event-id " + shellWord(id) + " --audit-completed-by YOUR_NAME --evidence-ref EVIDENCE_REF",
		}
	case CloseLockUnreleased:
		act.Steps = []string{
			fmt.Sprintf("Run %s was archived, but its lock was not released: the close on %s returned RUN_ARCHIVED_LOCK_UNRELEASED.", run, lineText(cl.Line)),
			fmt.Sprintf("Confirm, with evidence, that %s stopped, as confirm_stopped does for an attempt's owner (its host and PID, the PID's start time and command line, the host's boot time). Never release a lock on its age alone.", holder),
			fmt.Sprintf("Only then force-unlock the lock of run %s, and record the finished close: %sRUN_ARCHIVED --owner YOUR_OWNER_ID", run, emit),
		}
	case CloseArchiveUnconfirmed:
		act.Steps = []string{
			fmt.Sprintf("The close of run %s on %s could not confirm the archive (ARCHIVE_UNCONFIRMED): the run may or may not be archived.", run, lineText(cl.Line)),
			fmt.Sprintf("Read the lifecycle status of run %s in the archive; do not close again before you know it.", run),
			fmt.Sprintf("Archived: record it, %sRUN_ARCHIVED --owner YOUR_OWNER_ID. Not archived: close the run again, and record that close's result code.", emit),
		}
	case CloseLockConflict:
		act.Steps = []string{
			fmt.Sprintf("The close of run %s on %s found its lock held by another holder (LOCK_CONFLICT): nothing was archived.", run, lineText(cl.Line)),
			fmt.Sprintf("Confirm, with evidence, that %s stopped (as confirm_stopped does), then recover the stale lock. A live holder means wait: never take a lock on its age alone.", holder),
			fmt.Sprintf("Then close run %s again, and record that close's result code: %sRESULT_CODE --owner YOUR_OWNER_ID", run, emit),
		}
	}
	return act, true
}
