package runstore

import "testing"

// TestPrefault checks that prefault writes zeros up to the slab's capacity
// and leaves its length as it was.
func TestPrefault(t *testing.T) {
	s := make([]uint64, 2, 5)
	full := s[:cap(s)]
	for i := range full {
		full[i] = uint64(i + 1)
	}
	got := prefault(s)
	if len(got) != 2 || cap(got) != 5 || &got[0] != &s[0] {
		t.Fatalf("prefault returned len %d cap %d (same array %v), want len 2 cap 5 of the same array", len(got), cap(got), &got[0] == &s[0])
	}
	for i, v := range full {
		if v != 0 {
			t.Errorf("slot %d = %d after prefault, want 0", i, v)
		}
	}
}
