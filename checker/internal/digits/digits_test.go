package digits

import (
	"fmt"
	"testing"
)

// TestPairs: every number 0 to 99 is at its place, as %02d writes it.
func TestPairs(t *testing.T) {
	if len(Pairs) != 200 {
		t.Fatalf("len(Pairs) = %d, want 200", len(Pairs))
	}
	for v := range 100 {
		if got, want := Pairs[2*v:2*v+2], fmt.Sprintf("%02d", v); got != want {
			t.Errorf("Pairs at %d = %q, want %q", v, got, want)
		}
	}
}
