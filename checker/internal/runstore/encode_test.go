package runstore

import "testing"

// TestAddNewCollision: addNew, the index a checkpoint's runs are loaded
// into, keeps every run of a shared hash findable and refuses an id twice,
// whether it held the hash or came after it.
func TestAddNewCollision(t *testing.T) {
	hashes := map[string]uint64{"a": 42, "b": 42, "c": 7, "d": 42}
	hashOf := func(id string) uint64 { return hashes[id] }
	x := newRunIndex()
	var order []*Run
	for _, id := range []string{"c", "a", "b", "d"} {
		if !x.addNew(id, hashOf(id), len(order), order) {
			t.Fatalf("addNew(%s) refused a new id", id)
		}
		order = append(order, &Run{id: id})
	}
	for _, run := range order {
		if got := x.findHashed([]byte(run.id), hashOf(run.id), order); got != run {
			t.Errorf("findHashed(%s) = %v, want %v", run.id, got, run)
		}
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		if x.addNew(id, hashOf(id), len(order), order) {
			t.Errorf("addNew(%s) took an id the index has", id)
		}
	}
	if got := x.findHashed([]byte("a"), 42, order); got != order[1] {
		t.Errorf("after the refusals, findHashed(a) = %v, want %v", got, order[1])
	}
}
