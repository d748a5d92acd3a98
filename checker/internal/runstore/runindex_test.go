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

// TestWarm: Warm reads the slot where Lookup's probe of the id starts,
// and nothing for the run Lookup found last; Lookup finds what it found
// without it.
func TestWarm(t *testing.T) {
	s := New()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 1000
	for i := range n {
		s.Add(fmt.Sprintf("r-%d", i), i+1, at, 1)
	}
	if s.Warm([]byte(fmt.Sprintf("r-%d", n-1))); s.warmed != 0 {
		t.Errorf("Warm of the run added last read slot %#x", s.warmed)
	}
	home := 0 // runs whose slot is their probe's first
	for i := range n - 1 {
		id := []byte(fmt.Sprintf("r-%d", i))
		before := s.warmed
		s.Warm(id)
		got := s.warmed - before
		want := s.index.slots[s.index.hash(id)>>(64-s.index.bits)]
		if got != want {
			t.Errorf("Warm(%s) read %#x, want the probe's first slot %#x", id, got, want)
		}
		if uint32(got) == uint32(i+1) {
			home++
		}
		if run := s.Lookup(id); run == nil || run.id != string(id) {
			t.Errorf("Lookup(%s) after Warm = %v", id, run)
		}
	}
	// At most half the slots are used: most runs sit where their probe
	// starts, which is the slot Warm reads.
	if home < n/2 {
		t.Errorf("%d of %d runs at their probe's first slot", home, n-1)
	}
	if s.Lookup([]byte("r-none")) != nil {
		t.Error("a run never added is found")
	}
}

// BenchmarkWarm: a log of many runs, folded in batches of 400 new runs
// (a batch of 2,048 lines of the benchmark logs, about 5 lines a run):
// every run's first Lookup misses the index (at 2 million runs, tens of
// megabytes), with and without Warm reading the batch's slots first.
func BenchmarkWarm(b *testing.B) {
	const runs, perBatch = 2 << 20, 400
	ids := make([][]byte, runs)
	for i := range ids {
		ids[i] = []byte(fmt.Sprintf("run-%08d", i))
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, warm := range []bool{false, true} {
		b.Run(fmt.Sprintf("warm=%v", warm), func(b *testing.B) {
			for b.Loop() {
				s := New()
				for from := 0; from < runs; from += perBatch {
					batch := ids[from:min(from+perBatch, runs)]
					if warm {
						for _, id := range batch {
							s.Warm(id)
						}
					}
					for i, id := range batch {
						if s.Lookup(id) == nil {
							s.Add(string(id), from+i+1, at, 1)
						}
					}
				}
			}
		})
	}
}
