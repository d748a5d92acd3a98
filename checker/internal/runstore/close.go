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
	// CompletedBy and CompletedLine are the close that completed the
	// pending audit (its audit_completed_by); CompletedLine is 0 when none
	// did.
	CompletedBy   string
	CompletedLine int
	// LockCode and LockLine are the close that left the run's lock
	// outstanding (RUN_ARCHIVED_LOCK_UNRELEASED or LOCK_CONFLICT), kept
	// until a RUN_ARCHIVED close records it released, whatever closes
	// come between; "" and 0 when none is outstanding.
	LockCode string
	LockLine int
	// ArchivedCode and ArchivedLine are the latest close that says the
	// run was archived, or may have been (every code but LOCK_CONFLICT):
	// after it the log takes no event of the run's stages; "" and 0 when
	// none did.
	ArchivedCode string
	ArchivedLine int
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
	e.Uvarint(uint64(c.CompletedLine))
	e.String(c.LockCode)
	e.Uvarint(uint64(c.LockLine))
	e.String(c.ArchivedCode)
	e.Uvarint(uint64(c.ArchivedLine))
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
	c.CompletedLine = d.Int()
	c.LockCode = d.String()
	c.LockLine = d.Int()
	c.ArchivedCode = d.String()
	c.ArchivedLine = d.Int()
	if !knownCode(c.Code) {
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
	// An outstanding lock problem and the archive are closes of their
	// codes, no later than the latest close; a RUN_ARCHIVED close
	// releases the lock.
	switch {
	case (c.LockCode == "") != (c.LockLine == 0),
		c.LockCode != "" && c.LockCode != "RUN_ARCHIVED_LOCK_UNRELEASED" && c.LockCode != "LOCK_CONFLICT",
		(c.ArchivedCode == "") != (c.ArchivedLine == 0),
		c.ArchivedCode == "LOCK_CONFLICT",
		c.ArchivedCode != "" && !knownCode(c.ArchivedCode),
		c.Code == "RUN_ARCHIVED" && c.LockCode != "",
		c.Code != "LOCK_CONFLICT" && c.ArchivedCode == "":
		d.Fail("a close of an unknown lock or archive")
		return
	case c.LockLine > c.Line || c.ArchivedLine > c.Line:
		d.Fail("a close whose lines are out of order")
		return
	}
	run.SetClose(c)
}

// knownCode reports whether code is one of the runbook's close result
// codes.
func knownCode(code string) bool {
	switch code {
	case "RUN_ARCHIVED", "RUN_ARCHIVED_AUDIT_PENDING", "RUN_ARCHIVED_LOCK_UNRELEASED", "ARCHIVE_UNCONFIRMED", "LOCK_CONFLICT":
		return true
	}
	return false
}
