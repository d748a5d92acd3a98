package openlineage

import (
	"fmt"
	"testing"
)

// TestChainIsLinear: finding the root of every run of a chain where run i's
// parent is run i-1 visits each run a bounded number of times, whichever
// end the walks start from.
func TestChainIsLinear(t *testing.T) {
	const n = 5000
	for _, c := range []struct {
		name string
		at   func(i int) int
	}{
		{"from the root down", func(i int) int { return i }},
		{"from the leaf up", func(i int) int { return n - 1 - i }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMapper(nil, nil)
			run := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
			for i := range n {
				ri := m.info(run(i))
				ri.own = &named{}
				if i > 0 {
					ri.parent = run(i - 1)
				}
			}
			for i := range n {
				if r := m.rootOf(run(c.at(i))); r != run(0) {
					t.Fatalf("root of run %d is %s, want %s", c.at(i), r, run(0))
				}
			}
			if m.steps > 2*n {
				t.Errorf("%d runs visited for %d runs, want at most %d", m.steps, n, 2*n)
			}
		})
	}
}
