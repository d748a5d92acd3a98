package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The rules of the run's close (docs/recovery.md, The run's close). They
// model the fail-closed runner's runbook step that closes (archives) a run
// in three steps (archive, audit record, lock release) that can stop
// halfway; its result codes say how far the close got. Only RUN_ARCHIVED is
// final: nothing may happen to a run after it.
const (
	RuleEventAfterClose         RuleID = "event_after_close"
	RuleCloseWithoutRun         RuleID = "close_without_run"
	RuleAuditCompletionMismatch RuleID = "audit_completion_mismatch"
	RuleCloseOfRunningAttempt   RuleID = "close_of_running_attempt"
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

var eventAfterCloseRule = Rule{ID: RuleEventAfterClose, Family: familyClose,
	Summary: "an event of a run after its RUN_ARCHIVED close, a second close included",
	Detail:  "RUN_ARCHIVED says the runner archived the run, wrote its audit record and released its lock: the run is over, and anything logged for it afterwards (a start, an outcome, another close) contradicts the archive (docs/recovery.md, The run's close).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:06:00Z"}`,
	on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		cl, ok := x.run.Close()
		if !ok || cl.Code != CloseArchived {
			return ""
		}
		what := fmt.Sprintf("%s logged a %s event", x.who(), x.ev.Status)
		if x.ev.Status.RunLevel() {
			what = fmt.Sprintf("run %s was closed again", x.runID())
		}
		return fmt.Sprintf("%s after the run was closed RUN_ARCHIVED on %s; an archived run takes no more events", what, c.lineText(cl.Line))
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
	Summary: "a RUN_ARCHIVED close while an attempt of the run has no outcome",
	Detail:  "RUN_ARCHIVED ends the run: nothing of it may follow (event_after_close), so an attempt still running could never record its outcome, and a stalled one never its takeover. The runbook closes a run after its stages' actions and waits while an attempt holds a live lease (docs/recovery.md, The run's close): record the attempt's outcome first, or a takeover once its owner is confirmed stopped, then close. Other result codes do not end the run and may come while an attempt runs (LOCK_CONFLICT: the attempt may be the lock's holder).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-01T10:05:00Z","result_code":"RUN_ARCHIVED"}`,
	Statuses: []Status{StatusClosed}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.ev.ResultCode != CloseArchived {
			return ""
		}
		for si, atts := range x.run.Stages() {
			for k := range atts {
				if a := &atts[k]; a.Status() == StatusStarted {
					return fmt.Sprintf("run %s was closed RUN_ARCHIVED while attempt %d of stage %s, started on %s, has no outcome; its outcome could not be recorded after the close: record it first (or, once its owner is confirmed stopped, a takeover), then close",
						x.runID(), k+1, c.opts.Definition.Stages[si].ID, c.lineText(a.StartLine()))
				}
			}
		}
		return ""
	}}

// recordClose keeps a closed event that broke no rule as the run's close.
// After RUN_ARCHIVED_AUDIT_PENDING only a close that completes the audit
// (audit_completed_by, checked by audit_completion_mismatch) moves the run
// on, to RUN_ARCHIVED; any other close is a second close request, which
// does not complete the audit: the run stays pending. Otherwise the latest
// close's code is the run's.
func recordClose(run *runState, ev *event) {
	prev, had := run.Close()
	cl := runstore.Close{Code: ev.ResultCode, Line: ev.Line, At: ev.Time, Owner: ev.Owner, AuditEventID: ev.AuditEventID}
	if ev.ResultCode == CloseAuditPending {
		cl.PendingLine = ev.Line
	}
	if had && prev.Code == CloseAuditPending {
		cl.AuditEventID, cl.PendingLine, cl.AgainLine = prev.AuditEventID, prev.PendingLine, prev.AgainLine
		if ev.AuditCompletedBy != "" {
			cl.CompletedBy, cl.CompletedRef, cl.CompletedLine = ev.AuditCompletedBy, ev.EvidenceRef, ev.Line
		} else {
			cl.Code, cl.AgainLine = CloseAuditPending, ev.Line
		}
	}
	run.SetClose(cl)
}

// closeOpen says the run's close leaves it unhealthy: it has a close,
// and its code is not RUN_ARCHIVED.
func closeOpen(run *runState) bool {
	cl, ok := run.Close()
	return ok && cl.Code != CloseArchived
}

// CloseReport is a run's close as the snapshot shows it (the run's
// "close"): the result code the checker judged (ResultCode: the latest
// close's, except that a RUN_ARCHIVED_AUDIT_PENDING close stays so until a
// close completes its audit record), the latest close event's line, time
// (RFC 3339 UTC) and owner, the audit record's id, and the runbook's next
// step (nil for RUN_ARCHIVED). Only RUN_ARCHIVED leaves the run healthy.
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
	NextStep           *string `json:"next_step"`
}

// closeReport is run's close for its report; nil when it has none.
func closeReport(run *runState) *CloseReport {
	cl, ok := run.Close()
	if !ok {
		return nil
	}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	line := func(n int) *int {
		if n == 0 {
			return nil
		}
		return &n
	}
	cr := &CloseReport{ResultCode: cl.Code, Line: cl.Line, At: formatTime(cl.At), Owner: str(cl.Owner), AuditEventID: str(cl.AuditEventID),
		AuditPendingLine: line(cl.PendingLine), AgainLine: line(cl.AgainLine), AuditCompletedBy: str(cl.CompletedBy), AuditCompletedLine: line(cl.CompletedLine)}
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
