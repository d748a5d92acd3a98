package runstore

import (
	"testing"
	"time"
)

// TestCloseBody: a run's close goes through its body's encoding unchanged;
// a body with a run flag this build does not know (a checkpoint of a later
// build), a close of no result code, a close on no line, a pending audit
// of no id or no line (its advice names both), a lock problem or an
// archive of a code that cannot leave one (or a lock problem a RUN_ARCHIVED
// close released) and a close whose lines are not in the log's order are
// faults.
func TestCloseBody(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC)
	want := Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, Owner: "runner://etl-a", AuditEventID: "aud-7", PendingLine: 5, AgainLine: 7,
		LockCode: "LOCK_CONFLICT", LockLine: 7, ArchivedCode: "RUN_ARCHIVED_AUDIT_PENDING", ArchivedLine: 5}
	encode := func(c Close) []byte {
		s := New()
		run := s.Add("r-1", 1, at, 1)
		run.SetClose(c)
		var e Encoder
		e.body(run, nil)
		return e.B
	}
	decode := func(b []byte) (*Run, string) {
		s := New()
		run := s.Add("r-1", 1, at, 1)
		d := NewDecoder(b)
		d.body(run, 1, nil, s)
		return run, d.Fault()
	}
	run, fault := decode(encode(want))
	if got, ok := run.Close(); fault != "" || !ok || got != want {
		t.Fatalf("decoded %+v %v (fault %q), want %+v", got, ok, fault, want)
	}
	for _, c := range []struct {
		body  []byte
		fault string
	}{
		{append([]byte{1 << 5}, encode(want)[1:]...), "a run flag this greenlight does not know"},
		{encode(Close{Code: "ARCHIVED", Line: 7, At: at}), "a close of no result code"},
		{encode(Close{Code: "LOCK_CONFLICT", At: at}), "a close on no line"},
		{encode(Close{Code: "LOCK_CONFLICT", Line: 7, At: at, LockCode: "LOCK_CONFLICT"}), "a close of an unknown lock or archive"},
		{encode(Close{Code: "LOCK_CONFLICT", Line: 7, At: at, LockCode: "ARCHIVE_UNCONFIRMED", LockLine: 7}), "a close of an unknown lock or archive"},
		{encode(Close{Code: "LOCK_CONFLICT", Line: 7, At: at, ArchivedCode: "LOCK_CONFLICT", ArchivedLine: 7}), "a close of an unknown lock or archive"},
		{encode(Close{Code: "RUN_ARCHIVED", Line: 7, At: at, LockCode: "LOCK_CONFLICT", LockLine: 5, ArchivedCode: "RUN_ARCHIVED", ArchivedLine: 7}), "a close of an unknown lock or archive"},
		{encode(Close{Code: "ARCHIVE_UNCONFIRMED", Line: 7, At: at}), "a close of an unknown lock or archive"},
		{encode(Close{Code: "LOCK_CONFLICT", Line: 7, At: at, LockCode: "LOCK_CONFLICT", LockLine: 8}), "a close whose lines are out of order"},
		{encode(Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, PendingLine: 7}), "a pending audit of no id or no line"},
		{encode(Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, AuditEventID: "aud-7"}), "a pending audit of no id or no line"},
		{encode(Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, AuditEventID: "aud-7", PendingLine: 8}), "a close whose lines are out of order"},
		{encode(Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, AuditEventID: "aud-7", PendingLine: 5, AgainLine: 9}), "a close whose lines are out of order"},
		{encode(Close{Code: "RUN_ARCHIVED", Line: 7, At: at, AuditEventID: "aud-7", PendingLine: 5, CompletedLine: 7}), "a completed audit of no completer"},
		{encode(Close{Code: "RUN_ARCHIVED", Line: 7, At: at, AuditEventID: "aud-7", PendingLine: 5, CompletedBy: "ana", CompletedLine: 6}), "a close whose lines are out of order"},
	} {
		if _, fault := decode(c.body); fault != c.fault {
			t.Errorf("fault %q, want %q", fault, c.fault)
		}
	}
}
