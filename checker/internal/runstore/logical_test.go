package runstore

import (
	"bytes"
	"testing"
	"time"
)

// TestLogicalWithoutDecoding: a run's logical time (its scheduled_for, else
// its first event) is read from a checkpoint without decoding the run, and
// is the one the run had when it was encoded; a decoded run gives its own.
func TestLogicalWithoutDecoding(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 2, 0, 4, 500, time.UTC)
	s := New()
	s.Add("n-12-02", 1, t0.Add(-24*time.Hour), 1)
	s.Add("n-12-03", 3, t0, 1).SetScheduledFor(t0.Add(-4*time.Second), 3)
	s.Add("backfill", 5, t0.Add(7*time.Hour), 1).SetScheduledFor(time.Date(2026, 11, 20, 2, 0, 0, 0, time.FixedZone("", 3600)), 5)
	want := make([]time.Time, s.Len())
	for p := range s.Len() {
		want[p] = s.At(p).LogicalAt()
	}
	var e Encoder
	if err := s.Encode(&e, func(*Run) uint8 { return NoCode }); err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(bytes.Join(e.Parts(), nil))
	back := New()
	back.Decode(d, 1, func(b []byte) string { return string(b) }, nil)
	if d.Fault() != "" {
		t.Fatal(d.Fault())
	}
	for p, w := range want {
		sec, nsec, line := back.Logical(p)
		if got := unixTime(sec, nsec); !got.Equal(w) || line != 2*p+1 {
			t.Errorf("run %d: logical %v line %d, want %v line %d", p, got, line, w, 2*p+1)
		}
	}
	if n := back.Decoded(); n != 0 {
		t.Errorf("%d runs decoded, want none", n)
	}
	if got := back.At(2).LogicalAt(); !got.Equal(want[2]) {
		t.Errorf("decoded backfill: logical %v, want %v", got, want[2])
	}
	if sec, nsec, _ := back.Logical(2); !unixTime(sec, nsec).Equal(want[2]) {
		t.Errorf("decoded backfill through Logical: %v, want %v", unixTime(sec, nsec), want[2])
	}
}
