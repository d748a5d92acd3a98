package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The rules of the run's close (docs/recovery.md, The run's close). They
// model the fail-closed runner's runbook step that closes (archives) a run
// in three steps (archive, audit record, lock release) that can stop
// halfway; its result codes say how far the close got. A close that says
// the run was archived, or may have been, ends its stages' work: only
// closes that finish the close may follow it. A RUN_ARCHIVED close that
// leaves nothing outstanding is final: nothing may happen to a run after
// it.
const (
	RuleEventAfterClose                 RuleID = "event_after_close"
	RuleCloseWithoutRun                 RuleID = "close_without_run"
	RuleAuditCompletionMismatch         RuleID = "audit_completion_mismatch"
	RuleCloseOfRunningAttempt           RuleID = "close_of_running_attempt"
	RuleUnlockWithoutStopEvidence       RuleID = "unlock_without_stop_evidence"
	RuleArchiveConfirmedWithoutEvidence RuleID = "archive_confirmed_without_evidence"
)

// familyClose is the family of the close rules (rule_close.go).
const familyClose = "close"

// The runbook's close result codes (the closed event's result_code).
const (
	CloseArchived           = "RUN_ARCHIVED"
	CloseAuditPending       = "RUN_ARCHIVED_AUDIT_PENDING"
	CloseLockUnreleased     = "RUN_ARCHIVED_LOCK_UNRELEASED"
	CloseArchiveUnconfirmed = "ARCHIVE_UNCONFIRMED"
	CloseLockConflict       = "LOCK_CONFLICT"
)

// closeSaysArchived reports whether a close result code says the run was
// archived, or may have been: every code but LOCK_CONFLICT (nothing was
// archived). ARCHIVE_UNCONFIRMED counts, failing closed: until the run's
// lifecycle status is read, it may be archived.
func closeSaysArchived(code string) bool { return code != CloseLockConflict }

// closeFinal reports whether the close cl ended the run: RUN_ARCHIVED
// with no audit record pending and no lock problem outstanding.
func closeFinal(cl *runstore.Close) bool { return cl.Code == CloseArchived && cl.LockCode == "" }

var eventAfterCloseRule = Rule{ID: RuleEventAfterClose, Family: familyClose,
	Summary: "an event of a run's stages after a close that says the run was archived, or any event after its final RUN_ARCHIVED close",
	Detail:  "RUN_ARCHIVED says the runner archived the run, wrote its audit record and released its lock: the run is over, and anything logged for it afterwards (a start, an outcome, another close) contradicts the archive. RUN_ARCHIVED_AUDIT_PENDING and RUN_ARCHIVED_LOCK_UNRELEASED say the run was archived too, and ARCHIVE_UNCONFIRMED that it may have been (failing closed): after them only closes that finish the close may follow, and an event of the run's stages (a start, an outcome, a heartbeat, a resolution) is refused. Only after LOCK_CONFLICT (nothing was archived) may the stages go on (docs/recovery.md, The run's close).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:06:00Z"}`,
	on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		cl, ok := x.run.Close()
		if !ok {
			return ""
		}
		what := fmt.Sprintf("%s logged a %s event", x.who(), x.ev.Status)
		if closeFinal(&cl) {
			if x.ev.Status.RunLevel() {
				what = fmt.Sprintf("run %s was closed again", x.runID())
			}
			return fmt.Sprintf("%s after the run was closed RUN_ARCHIVED on %s; an archived run takes no more events", what, c.lineText(cl.Line))
		}
		if x.ev.Status.RunLevel() || cl.ArchivedLine == 0 {
			return ""
		}
		if cl.ArchivedCode == CloseArchiveUnconfirmed {
			return fmt.Sprintf("%s after the run was closed ARCHIVE_UNCONFIRMED on %s; a run that may be archived takes no more events of its stages, only closes that finish its close", what, c.lineText(cl.ArchivedLine))
		}
		return fmt.Sprintf("%s after the run was closed %s on %s; an archived run takes no more events of its stages, only closes that finish its close", what, cl.ArchivedCode, c.lineText(cl.ArchivedLine))
	}}

var closeWithoutRunRule = Rule{ID: RuleCloseWithoutRun, Family: familyClose,
	Summary:  "a close of a run that logged nothing before it",
	Detail:   "A runner closes a run it ran: a close as a run's first event names a run that the log never showed (a mistyped run_id, or a close written to the wrong log), and is refused rather than counted as a run of pending stages.",
	Example:  `{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		for _, atts := range x.run.Stages() {
			if len(atts) > 0 {
				return ""
			}
		}
		return fmt.Sprintf("run %s was closed %s, but the log shows no earlier event of it; a close ends a run that ran", x.runID(), x.ev.ResultCode)
	}}

var auditCompletionMismatchRule = Rule{ID: RuleAuditCompletionMismatch, Family: familyClose,
	Summary: "a close that completes an audit record no RUN_ARCHIVED_AUDIT_PENDING close left pending, or another one",
	Detail:  "A close with audit_completed_by completes the audit record a RUN_ARCHIVED_AUDIT_PENDING close left, once, with the original event id: its audit_event_id must be that close's, and the audit must still be pending (docs/recovery.md, The run's close).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"au-17"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:30:00Z","result_code":"RUN_ARCHIVED","audit_event_id":"au-18","audit_completed_by":"ana","evidence_ref":"AUD-17"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if ev.AuditCompletedBy == "" {
			return ""
		}
		cl, ok := x.run.Close()
		if !ok || cl.Code != CloseAuditPending {
			return fmt.Sprintf("run %s: audit_completed_by %q completes an audit record, but no RUN_ARCHIVED_AUDIT_PENDING close of the run left one pending", x.runID(), ev.AuditCompletedBy)
		}
		if ev.AuditEventID != cl.AuditEventID {
			return fmt.Sprintf("run %s: the close completes audit record %q, but the RUN_ARCHIVED_AUDIT_PENDING close on %s left %q pending; complete it with the original event id", x.runID(), ev.AuditEventID, c.lineText(cl.PendingLine), cl.AuditEventID)
		}
		return ""
	}}

var closeOfRunningAttemptRule = Rule{ID: RuleCloseOfRunningAttempt, Family: familyClose,
	Summary: "a close that says the run was archived, or may have been, while an attempt of the run has no outcome",
	Detail:  "A close that says the run was archived (RUN_ARCHIVED, RUN_ARCHIVED_AUDIT_PENDING, RUN_ARCHIVED_LOCK_UNRELEASED) or may have been (ARCHIVE_UNCONFIRMED) ends the run's stages: no event of them may follow (event_after_close), so an attempt still running could never record its outcome, and a stalled one never its takeover. The runbook closes a run after its stages' actions and waits while an attempt holds a live lease (docs/recovery.md, The run's close): record the attempt's outcome first, or a takeover once its owner is confirmed stopped, then close. LOCK_CONFLICT archived nothing and may come while an attempt runs (the attempt may be the lock's holder).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if !closeSaysArchived(x.ev.ResultCode) {
			return ""
		}
		for si, atts := range x.run.Stages() {
			for k := range atts {
				if a := &atts[k]; a.Status() == StatusStarted {
					return fmt.Sprintf("run %s was closed %s while attempt %d of stage %s, started on %s, has no outcome; its outcome could not be recorded after the close: record it first (or, once its owner is confirmed stopped, a takeover), then close",
						x.runID(), x.ev.ResultCode, k+1, c.opts.Definition.Stages[si].ID, c.lineText(a.StartLine()))
				}
			}
		}
		return ""
	}}

var unlockWithoutStopEvidenceRule = Rule{ID: RuleUnlockWithoutStopEvidence, Family: familyClose,
	Summary: "a RUN_ARCHIVED close after a lock problem, without proof that the lock's holder stopped",
	Detail:  "A RUN_ARCHIVED close says the run's lock was released. After a close that left the lock held (RUN_ARCHIVED_LOCK_UNRELEASED, or LOCK_CONFLICT: another holder has it), whatever closes came between, someone force-unlocked or recovered the lock, which the runbook allows only once the holder is confirmed stopped, as a takeover is (docs/recovery.md, Takeovers): the close needs stop_confirmed_by (who confirmed it), stop_evidence_ref (where the proof is kept) and stop_method (local_pid, host_down, console or other), none of them blank. A lock's age is not proof that its holder stopped. A close that completes a pending audit record is such a close too when the lock problem is still outstanding.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"LOCK_CONFLICT"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:30:00Z","result_code":"RUN_ARCHIVED"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		cl, ok := x.run.Close()
		if !ok || ev.ResultCode != CloseArchived || cl.LockCode == "" {
			return ""
		}
		missing := missingStopEvidence(ev)
		if len(missing) == 0 {
			return ""
		}
		return fmt.Sprintf("run %s was closed RUN_ARCHIVED, which releases its lock, after the close on %s left it held (%s), without proof that the lock's holder stopped: %s missing or blank", x.runID(), c.lineText(cl.LockLine), cl.LockCode, joinWords(missing))
	}}

var archiveConfirmedWithoutEvidenceRule = Rule{ID: RuleArchiveConfirmedWithoutEvidence, Family: familyClose,
	Summary: "a RUN_ARCHIVED close after ARCHIVE_UNCONFIRMED without evidence_ref",
	Detail:  "After ARCHIVE_UNCONFIRMED the runbook reads the run's lifecycle status before it records the run archived: a RUN_ARCHIVED close that follows it needs evidence_ref, not blank, saying where the status was read (docs/recovery.md, The run's close).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"ARCHIVE_UNCONFIRMED"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:30:00Z","result_code":"RUN_ARCHIVED"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		cl, ok := x.run.Close()
		if !ok || x.ev.ResultCode != CloseArchived || cl.Code != CloseArchiveUnconfirmed || given(x.ev.EvidenceRef) {
			return ""
		}
		return fmt.Sprintf("run %s was closed RUN_ARCHIVED after the close on %s could not confirm the archive (ARCHIVE_UNCONFIRMED), without evidence_ref: record where the run's lifecycle status was read", x.runID(), c.lineText(cl.Line))
	}}

// recordClose keeps a closed event that broke no rule as the run's close.
// After RUN_ARCHIVED_AUDIT_PENDING only a close that completes the audit
// (audit_completed_by, checked by audit_completion_mismatch) moves the run
// on, to RUN_ARCHIVED; any other close is a second close request, which
// does not complete the audit: the run stays pending. Otherwise the latest
// close's code is the run's. A lock problem (RUN_ARCHIVED_LOCK_UNRELEASED,
// LOCK_CONFLICT) is kept apart, whatever the code, until a RUN_ARCHIVED
// close records the lock released (with the proof that
// unlock_without_stop_evidence requires); the latest close that says the
// run was archived, or may have been, is kept for event_after_close.
func recordClose(run *runState, ev *event) {
	prev, had := run.Close()
	cl := runstore.Close{Code: ev.ResultCode, Line: ev.Line, At: ev.Time, Owner: ev.Owner, AuditEventID: ev.AuditEventID,
		LockCode: prev.LockCode, LockLine: prev.LockLine, ArchivedCode: prev.ArchivedCode, ArchivedLine: prev.ArchivedLine}
	switch ev.ResultCode {
	case CloseAuditPending:
		cl.PendingLine = ev.Line
	case CloseLockUnreleased, CloseLockConflict:
		cl.LockCode, cl.LockLine = ev.ResultCode, ev.Line
	case CloseArchived:
		cl.LockCode, cl.LockLine = "", 0
	}
	// ARCHIVE_UNCONFIRMED does not undo what an earlier close knew.
	if closeSaysArchived(ev.ResultCode) && (ev.ResultCode != CloseArchiveUnconfirmed || prev.ArchivedCode == "") {
		cl.ArchivedCode, cl.ArchivedLine = ev.ResultCode, ev.Line
	}
	if had && prev.Code == CloseAuditPending {
		cl.AuditEventID, cl.PendingLine, cl.AgainLine = prev.AuditEventID, prev.PendingLine, prev.AgainLine
		if ev.AuditCompletedBy != "" {
			cl.CompletedBy, cl.CompletedLine = ev.AuditCompletedBy, ev.Line
		} else {
			cl.Code, cl.AgainLine = CloseAuditPending, ev.Line
		}
	}
	run.SetClose(cl)
}

// closeOpen says the run's close leaves it unhealthy: it has a close
// that is not final (closeFinal).
func closeOpen(run *runState) bool {
	cl, ok := run.Close()
	return ok && !closeFinal(&cl)
}

// CloseReport is a run's close as the snapshot shows it (the run's
// "close"): the result code the checker judged (ResultCode: the latest
// close's, except that a RUN_ARCHIVED_AUDIT_PENDING close stays so until a
// close completes its audit record), the latest close event's line, time
// (RFC 3339 UTC) and owner, the audit record's id, the lock problem still
// outstanding, and the runbook's next step (nil for RUN_ARCHIVED). Only
// RUN_ARCHIVED with no lock problem outstanding leaves the run healthy.
type CloseReport struct {
	ResultCode string  `json:"result_code"`
	Line       int     `json:"line"`
	At         string  `json:"at"`
	Owner      *string `json:"owner"`
	// AuditEventID is the id of the audit record of the close that left
	// it pending (or of the latest close's); nil when none named one.
	AuditEventID *string `json:"audit_event_id"`
	// AuditPendingLine is the RUN_ARCHIVED_AUDIT_PENDING close's line,
	// AgainLine the latest close that repeated the request while the
	// audit was pending, AuditCompletedLine and AuditCompletedBy the close
	// that completed it; nil when none.
	AuditPendingLine   *int    `json:"audit_pending_line"`
	AgainLine          *int    `json:"requested_again_line"`
	AuditCompletedBy   *string `json:"audit_completed_by"`
	AuditCompletedLine *int    `json:"audit_completed_line"`
	// LockProblemCode and LockProblemLine are the close that left the
	// run's lock held (RUN_ARCHIVED_LOCK_UNRELEASED or LOCK_CONFLICT),
	// outstanding until a RUN_ARCHIVED close records it released,
	// whatever ResultCode says; nil when none is outstanding.
	LockProblemCode *string `json:"lock_problem_code"`
	LockProblemLine *int    `json:"lock_problem_line"`
	// ArchivedLine is the latest close that says the run was archived, or
	// may have been (every code but LOCK_CONFLICT): after it the log takes
	// no event of the run's stages; nil when none did.
	ArchivedLine *int    `json:"archived_line"`
	NextStep     *string `json:"next_step"`
	// archivedCode is the result code of the close on ArchivedLine, for
	// the advice (redoInNewRun).
	archivedCode string
}

// closeReport is run's close for its report; nil when it has none.
func closeReport(run *runState) *CloseReport {
	cl, ok := run.Close()
	if !ok {
		return nil
	}
	cr := &CloseReport{ResultCode: cl.Code, Line: cl.Line, At: formatTime(cl.At), Owner: optString(cl.Owner), AuditEventID: optString(cl.AuditEventID),
		AuditPendingLine: optInt(cl.PendingLine), AgainLine: optInt(cl.AgainLine), AuditCompletedBy: optString(cl.CompletedBy), AuditCompletedLine: optInt(cl.CompletedLine),
		LockProblemCode: optString(cl.LockCode), LockProblemLine: optInt(cl.LockLine), ArchivedLine: optInt(cl.ArchivedLine), archivedCode: cl.ArchivedCode}
	if next := closeNextStep(cl.Code); next != "" {
		cr.NextStep = &next
	}
	return cr
}

// closeNextStep is the runbook's next step for a close result code, "" for
// RUN_ARCHIVED.
func closeNextStep(code string) string {
	switch code {
	case CloseAuditPending:
		return "complete the audit record once, with the original event id; a second close request does not complete it"
	case CloseLockUnreleased:
		return "force-unlock the run's lock, only after confirming that its holder stopped"
	case CloseArchiveUnconfirmed:
		return "read the run's lifecycle status and branch: archived, record RUN_ARCHIVED; not archived, close again"
	case CloseLockConflict:
		return "recover the stale lock after confirming that its holder stopped, then close again"
	}
	return ""
}
