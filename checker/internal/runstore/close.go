package runstore

import "time"

// Close is what the log has shown of a run's close (status closed,
// docs/recovery.md, The run's close): the latest close event, and the
// audit record a RUN_ARCHIVED_AUDIT_PENDING close left to complete.
type Close struct {
	// Code is the run's close result code as the checker judged it: the
	// latest close's, except that after RUN_ARCHIVED_AUDIT_PENDING only a
	// close that completes the audit changes it (to RUN_ARCHIVED).
	Code string
	// Line and At are the latest close event's; Owner is who wrote it ("":
	// none named).
	Line  int
	At    time.Time
	Owner string
	// AuditEventID is the id of the audit record of the close that left it
	// pending (or of the latest close's, when it names one); "" when none.
	AuditEventID string
	// PendingLine is the line of the RUN_ARCHIVED_AUDIT_PENDING close
	// whose audit record is still to complete, or was completed; 0 when
	// none was pending.
	PendingLine int
	// AgainLine is the line of the latest close that repeated the request
	// while the audit was pending, without completing it; 0 when none.
	AgainLine int
	// CompletedBy, CompletedRef and CompletedLine are the close that
	// completed the pending audit (audit_completed_by, evidence_ref);
	// CompletedLine is 0 when none did.
	CompletedBy   string
	CompletedRef  string
	CompletedLine int
}

// Close returns the run's close; ok is false when no close event was
// recorded.
func (r *Run) Close() (c Close, ok bool) {
	if r.ext == nil || r.ext.close == nil {
		return Close{}, false
	}
	return *r.ext.close, true
}

// SetClose records c as the run's close.
func (r *Run) SetClose(c Close) { r.wext().close = &c }

// encodeClose appends the close c (Encoder.body, flag runClosed).
func (e *Encoder) encodeClose(c *Close) {
	e.String(c.Code)
	e.Uvarint(uint64(c.Line))
	e.Time(c.At)
	e.String(c.Owner)
	e.String(c.AuditEventID)
	e.Uvarint(uint64(c.PendingLine))
	e.Uvarint(uint64(c.AgainLine))
	e.String(c.CompletedBy)
	e.String(c.CompletedRef)
	e.Uvarint(uint64(c.CompletedLine))
}

// decodeClose reads a close that encodeClose wrote into run.
func (d *Decoder) decodeClose(run *Run) {
	var c Close
	c.Code = d.String()
	c.Line = d.Int()
	c.At = d.Time()
	c.Owner = d.String()
	c.AuditEventID = d.String()
	c.PendingLine = d.Int()
	c.AgainLine = d.Int()
	c.CompletedBy = d.String()
	c.CompletedRef = d.String()
	c.CompletedLine = d.Int()
	switch c.Code {
	case "RUN_ARCHIVED", "RUN_ARCHIVED_AUDIT_PENDING", "RUN_ARCHIVED_LOCK_UNRELEASED", "ARCHIVE_UNCONFIRMED", "LOCK_CONFLICT":
	default:
		d.Fail("a close of no result code")
		return
	}
	if c.Line < 1 {
		d.Fail("a close on no line")
		return
	}
	// What recordClose keeps together: the advice of a pending audit names
	// its id and its close's line; a repeated request and a completion
	// come after that close, and a completion is the run's latest close.
	if c.Code == "RUN_ARCHIVED_AUDIT_PENDING" && (c.AuditEventID == "" || c.PendingLine < 1) {
		d.Fail("a pending audit of no id or no line")
		return
	}
	if c.CompletedLine != 0 && c.CompletedBy == "" {
		d.Fail("a completed audit of no completer")
		return
	}
	if c.PendingLine > c.Line || (c.AgainLine != 0 && (c.PendingLine < 1 || c.AgainLine <= c.PendingLine || c.AgainLine > c.Line)) ||
		(c.CompletedLine != 0 && (c.PendingLine < 1 || c.CompletedLine <= c.PendingLine || c.CompletedLine != c.Line)) {
		d.Fail("a close whose lines are out of order")
		return
	}
	run.SetClose(c)
}
