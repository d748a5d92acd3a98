package runstore

import (
	"fmt"
	"testing"
	"time"
)

// TestRunIndexCollision: ids that share a hash are each found, and an id
// that merely shares a hash with a known one is not.
func TestRunIndexCollision(t *testing.T) {
	x := newRunIndex()
	order := []*Run{{id: "a"}, {id: "b"}, {id: "c"}}
	// The index keeps a hash's upper 32 bits: the test's hashes differ there.
	const h42, h7, h1 = 42 << 32, 7 << 32, 1 << 32
	x.add("a", h42, 0)
	x.add("b", h42, 1) // same hash as a
	x.add("c", h7, 2)
	for _, tc := range []struct {
		id   string
		h    uint64
		want *Run
	}{
		{"a", h42, order[0]}, {"b", h42, order[1]}, {"c", h7, order[2]},
		{"d", h42, nil}, {"a", h7, nil}, {"a", h1, nil},
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

// TestRunIndexGrows: through many growths, with hashes chosen to share
// their upper bits (long probe runs) or not, every id added is found at
// its position, an id not added is not, and an add after a miss (the
// common path) or without one lands where later look-ups find it.
func TestRunIndexGrows(t *testing.T) {
	for _, weak := range []bool{false, true} {
		x := newRunIndex()
		var order []*Run
		hashOf := func(id string) uint64 {
			if weak {
				return uint64(len(id)%3) << 32 // three tags for all
			}
			return x.hash([]byte(id))
		}
		n := 20000
		if weak {
			n = 2000 // every probe walks a run of a third of the table
		}
		for i := range n {
			id := fmt.Sprintf("run-%d", i)
			if got := x.findHashed([]byte(id), hashOf(id), order); got != nil {
				t.Fatalf("weak=%v: findHashed(%s) before it is added = %v", weak, id, got)
			}
			if i%7 == 3 {
				// An add that does not follow a miss of its own id.
				x.findHashed([]byte("absent"), hashOf("absent"), order)
			}
			x.add(id, hashOf(id), len(order))
			order = append(order, &Run{id: id})
		}
		for i, run := range order {
			if got := x.findHashed([]byte(run.id), hashOf(run.id), order); got != run {
				t.Fatalf("weak=%v: findHashed(%s) = %v, want run %d", weak, run.id, got, i)
			}
		}
		if x.count != n || len(x.slots) < 2*n {
			t.Fatalf("weak=%v: %d slots in use of %d, want %d of at least %d", weak, x.count, len(x.slots), n, 2*n)
		}
	}
}

// BenchmarkStoreNewRuns measures what the first event of each of 200,000
// runs costs the store: a look-up that misses, then the add.
func BenchmarkStoreNewRuns(b *testing.B) {
	ids := make([][]byte, 200000)
	for i := range ids {
		ids[i] = []byte(fmt.Sprintf("run-%08d", i))
	}
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		s := New()
		for i, id := range ids {
			if s.Lookup(id) == nil {
				s.Add(string(id), i, t, 2)
			}
		}
	}
}
