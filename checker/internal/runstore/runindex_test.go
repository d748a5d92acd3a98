package runstore

import "testing"

// TestRunIndexCollision: ids that share a hash are each found, and an id
// that merely shares a hash with a known one is not.
func TestRunIndexCollision(t *testing.T) {
	x := newRunIndex()
	order := []*Run{{id: "a"}, {id: "b"}, {id: "c"}}
	x.add("a", 42, 0)
	x.add("b", 42, 1) // same hash as a
	x.add("c", 7, 2)
	for _, tc := range []struct {
		id   string
		h    uint64
		want *Run
	}{
		{"a", 42, order[0]}, {"b", 42, order[1]}, {"c", 7, order[2]},
		{"d", 42, nil}, {"a", 7, nil}, {"a", 1, nil},
	} {
		if got := x.findHashed([]byte(tc.id), tc.h, order); got != tc.want {
			t.Errorf("findHashed(%s, %d) = %v, want %v", tc.id, tc.h, got, tc.want)
		}
	}
	// Through the seeded hash, every run is found by its id.
	y := newRunIndex()
	for i, run := range order {
		_, h := y.find([]byte(run.id), order[:i])
		y.add(run.id, h, i)
	}
	for _, run := range order {
		if got, _ := y.find([]byte(run.id), order); got != run {
			t.Errorf("find(%s) = %v", run.id, got)
		}
	}
	if got, _ := y.find([]byte("z"), order); got != nil {
		t.Errorf("find(z) = %v, want nil", got)
	}
}
