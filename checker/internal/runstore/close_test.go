package runstore

import (
	"testing"
	"time"
)

// TestCloseBody: a run's close goes through its body's encoding unchanged;
// a body with a run flag this build does not know (a checkpoint of a later
// build), a close of no result code and a close on no line are faults.
func TestCloseBody(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC)
	want := Close{Code: "RUN_ARCHIVED_AUDIT_PENDING", Line: 7, At: at, Owner: "runner://etl-a", AuditEventID: "aud-7", PendingLine: 5, AgainLine: 7}
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
	} {
		if _, fault := decode(c.body); fault != c.fault {
			t.Errorf("fault %q, want %q", fault, c.fault)
		}
	}
}
