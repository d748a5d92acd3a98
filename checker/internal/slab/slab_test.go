package slab

import "testing"

// TestPrefault checks that Prefault writes zeros up to the allocation's
// capacity and leaves its length and array as they were.
func TestPrefault(t *testing.T) {
	s := make([]uint64, 2, 5)
	full := s[:cap(s)]
	for i := range full {
		full[i] = uint64(i + 1)
	}
	got := Prefault(s)
	if len(got) != 2 || cap(got) != 5 || &got[0] != &s[0] {
		t.Fatalf("Prefault returned len %d cap %d (same array %v), want len 2 cap 5 of the same array", len(got), cap(got), &got[0] == &s[0])
	}
	for i, v := range full {
		if v != 0 {
			t.Errorf("slot %d = %d after Prefault, want 0", i, v)
		}
	}
}
