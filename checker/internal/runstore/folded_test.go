package runstore

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"testing"
	"time"
	"unsafe"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// TestKeyOf: KeyOf is FNV-1a 128, as hash/fnv computes it.
func TestKeyOf(t *testing.T) {
	for _, id := range []string{"", "a", "run-00000001", "ünïcode run", string(make([]byte, 300))} {
		h := fnv.New128a()
		h.Write([]byte(id))
		if got, want := KeyOf([]byte(id)), h.Sum(nil); string(got[:]) != string(want) {
			t.Errorf("KeyOf(%q) = %x, want %x", id, got, want)
		}
	}
}

// TestFoldedSizes: a folded run costs 40 bytes with its key, within the
// 64 bytes docs/window.md promises.
func TestFoldedSizes(t *testing.T) {
	if n := unsafe.Sizeof(foldedEntry{}); n != 40 {
		t.Errorf("a folded entry is %d bytes, want 40", n)
	}
}

// TestFoldedSet: every record added in batches is found with what it
// recorded, an id never added is not, and two records with one key make
// one ambiguous record.
func TestFoldedSet(t *testing.T) {
	var s FoldedSet
	var b FoldedBatch
	at := time.Date(2026, 1, 1, 0, 0, 0, 5, time.UTC)
	st := New()
	const n = 5000
	for i := range n {
		run := st.Add(fmt.Sprintf("r-%d", i), i+1, at, 2)
		var a Attempt
		a.SetStart(at, i+1, false)
		a.SetOutcome(eventline.StatusFailed, at, i+1, false, 0)
		st.AddAttempt(run, 0, a)
		for range i % 3 {
			st.AddAttempt(run, 0, a)
		}
		run.SetLast(at.Add(time.Duration(i) * time.Second))
		if i%10 == 0 {
			run.SetScheduledFor(at.Add(time.Duration(i)*time.Hour), i+1)
		}
		b.Fold(run, NewFoldedRun(run, uint8(i%4)))
		if i%97 == 0 { // batches of uneven sizes
			s.Add(&b)
		}
	}
	s.Add(&b)
	if s.Len() != n {
		t.Fatalf("Len %d, want %d", s.Len(), n)
	}
	for i := range n {
		id := []byte(fmt.Sprintf("r-%d", i))
		f, ok := s.Find(id)
		if !ok {
			t.Fatalf("r-%d not found", i)
		}
		k, o, ok := f.Stage(0)
		if !ok || k != 1+i%3 || o != eventline.StatusFailed || f.State() != uint8(i%4) || !f.LastAt().Equal(at.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("r-%d: stage 0 %d %v %v, state %d, last %v", i, k, o, ok, f.State(), f.LastAt())
		}
		if k, _, ok := f.Stage(1); !ok || k != 0 {
			t.Fatalf("r-%d: stage 1 %d %v", i, k, ok)
		}
		slot, ok := s.Slot(id)
		if ok != (i%10 == 0) || f.HasSlot() != ok || (ok && !slot.Equal(at.Add(time.Duration(i)*time.Hour))) {
			t.Fatalf("r-%d: slot %v %v", i, slot, ok)
		}
	}
	if _, ok := s.Find([]byte("r-5000")); ok {
		t.Error("r-5000 found")
	}
	// The same id folded twice stands for two runs with one key.
	b.Fold(st.Runs()[7], NewFoldedRun(st.Runs()[7], 0))
	s.Add(&b)
	if f, _ := s.Find([]byte("r-7")); !f.Ambiguous() {
		t.Error("r-7 folded twice is not ambiguous")
	}
	if _, _, ok := func() (int, Status, bool) { f, _ := s.Find([]byte("r-7")); return f.Stage(0) }(); ok {
		t.Error("an ambiguous record tells a stage")
	}
}

// TestSweep: the runs a sweep keeps keep every field, attempts included,
// and Lookup finds them; the dropped ones are gone.
func TestSweep(t *testing.T) {
	st := New()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		run := st.Add(fmt.Sprintf("r-%d", i), i+1, at, 2)
		for k := range 1 + i%2 {
			var a Attempt
			a.SetStart(at.Add(time.Duration(k)*time.Minute), i+1, false)
			a.SetOutcome(eventline.StatusFailed, at.Add(time.Duration(k)*time.Minute+time.Second), i+2, true, int64(k+1))
			a.SetError("e")
			st.AddAttempt(run, 1, a)
		}
		run.SetLast(at.Add(time.Hour))
	}
	want := map[string]Run{}
	for _, r := range st.Runs() {
		want[r.ID()] = *Clone(r)
	}
	dropped := st.Sweep(func(r *Run) bool { return r.FirstLine()%3 == 0 })
	if dropped != 1000 || st.Len() != 2000 {
		t.Fatalf("dropped %d, kept %d", dropped, st.Len())
	}
	for i := range 3000 {
		id := fmt.Sprintf("r-%d", i)
		r := st.Lookup([]byte(id))
		if (i+1)%3 == 0 {
			if r != nil {
				t.Fatalf("%s kept", id)
			}
			continue
		}
		w := want[id]
		if r == nil || r.FirstLine() != w.FirstLine() || !r.LastAt().Equal(w.LastAt()) || len(r.Attempts(1)) != len(w.Attempts(1)) || len(r.Attempts(0)) != 0 {
			t.Fatalf("%s after the sweep: %+v", id, r)
		}
		for k := range r.Attempts(1) {
			if r.Attempts(1)[k] != w.Attempts(1)[k] {
				t.Fatalf("%s attempt %d: %+v, want %+v", id, k+1, r.Attempts(1)[k], w.Attempts(1)[k])
			}
		}
	}
	if r := st.FromEnd(1); r.ID() != "r-2998" { // r-2999, on line 3000, was dropped
		t.Errorf("FromEnd(1) = %s", r.ID())
	}
}

// foldedSetOf folds n runs into a set in batches of batch runs: every
// 10th names a slot.
func foldedSetOf(n, batch int) *FoldedSet {
	var s FoldedSet
	var b FoldedBatch
	at := time.Date(2026, 1, 1, 0, 0, 0, 5, time.UTC)
	st := New()
	for i := range n {
		run := st.Add(fmt.Sprintf("r-%d", i), i+1, at, 2)
		var a Attempt
		a.SetStart(at, i+1, false)
		a.SetOutcome(eventline.StatusFailed, at, i+1, false, 0)
		st.AddAttempt(run, i%2, a)
		run.SetLast(at.Add(time.Duration(i) * time.Second))
		if i%10 == 0 {
			run.SetScheduledFor(at.Add(time.Duration(i)*time.Hour), i+1)
		}
		b.Fold(run, NewFoldedRun(run, uint8(1+i%4)))
		if (i+1)%batch == 0 {
			s.Add(&b)
		}
	}
	s.Add(&b)
	return &s
}

// TestFoldedSetEncode: a set's encoding does not depend on the batches
// that built it, decodes to a set with the same records and slots, and
// re-encodes to the same bytes; a damaged encoding is a fault.
func TestFoldedSetEncode(t *testing.T) {
	encode := func(s *FoldedSet) []byte {
		e := &Encoder{}
		s.Encode(e)
		return bytes.Join(e.Parts(), nil)
	}
	states := func(v uint8) bool { return v >= 1 && v <= 4 }
	const n = 3000
	b := encode(foldedSetOf(n, 97))
	if one := encode(foldedSetOf(n, n)); string(one) != string(b) {
		t.Fatal("the encoding depends on the batches")
	}
	// The count, the records, the slots' count and each slot: its key,
	// 5 bytes of seconds and 1 of nanoseconds.
	if want := 8 + n*foldedRecordSize + 2 + n/10*(16+5+1); len(b) != want {
		t.Fatalf("%d bytes for %d records, want %d", len(b), n, want)
	}
	var s FoldedSet
	d := NewDecoder(b)
	s.Decode(d, states)
	if d.Fault() != "" || len(d.Rest()) != 0 || s.Len() != n {
		t.Fatalf("decoded: fault %q, %d bytes left, %d records", d.Fault(), len(d.Rest()), s.Len())
	}
	orig := foldedSetOf(n, 97)
	for i := range n {
		id := []byte(fmt.Sprintf("r-%d", i))
		got, ok := s.Find(id)
		want, _ := orig.Find(id)
		if !ok || got != want {
			t.Fatalf("r-%d: %+v %v, want %+v", i, got, ok, want)
		}
		gs, gok := s.Slot(id)
		ws, wok := orig.Slot(id)
		if gok != wok || !gs.Equal(ws) {
			t.Fatalf("r-%d: slot %v %v, want %v %v", i, gs, gok, ws, wok)
		}
	}
	if again := encode(&s); string(again) != string(b) {
		t.Fatal("the decoded set encodes to other bytes")
	}
	// Damage: the bytes of the second record and of the first slot.
	rec := func(i int) int { return 8 + i*foldedRecordSize }
	slot := rec(n) + 2
	for _, c := range []struct {
		name  string
		edit  func([]byte) []byte
		fault string
	}{
		{"records out of order", func(b []byte) []byte { copy(b[rec(1):rec(1)+16], b[rec(0):rec(0)+16]); return b }, "folded runs out of order"},
		{"a state of no code", func(b []byte) []byte { b[rec(1)+36] = 9; return b }, "a folded run's state or flags out of range"},
		{"a flag of no meaning", func(b []byte) []byte { b[rec(1)+37] |= 0x80; return b }, "a folded run's state or flags out of range"},
		{"a padding byte", func(b []byte) []byte { b[rec(1)+39] = 1; return b }, "a folded run's state or flags out of range"},
		{"nanoseconds out of range", func(b []byte) []byte { b[rec(1)+27] = 0x7f; return b }, "a folded run's time out of range"},
		{"a count beyond its end", func(b []byte) []byte { return b[:rec(n)-1] }, "a count of folded runs beyond its end"},
		{"a slot of no record", func(b []byte) []byte { b[slot+15] ^= 1; return b }, "a slot of no folded run that named one"},
		{"a slot cut short", func(b []byte) []byte { return b[:slot+22*299+10] }, "it ends early"},
	} {
		var s FoldedSet
		d := NewDecoder(c.edit(append([]byte(nil), b...)))
		s.Decode(d, states)
		if d.Fault() != c.fault {
			t.Errorf("%s: fault %q, want %q", c.name, d.Fault(), c.fault)
		}
	}
}

// TestFoldedSetResumed: a set decoded from a checkpoint reads its records
// in the checkpoint's bytes; records added to it afterwards (some sharing
// a key with a decoded one: the same id folded again) make the set that
// the same batches make from nothing, by what Find says of every id and by
// the bytes of its encoding, which borrows the decoded records between
// the added ones instead of copying them.
func TestFoldedSetResumed(t *testing.T) {
	states := func(v uint8) bool { return v >= 1 && v <= 4 }
	at := time.Date(2026, 1, 1, 0, 0, 0, 5, time.UTC)
	st := New()
	runOf := func(i int) *Run {
		run := st.Add(fmt.Sprintf("r-%d", i), i+1, at, 2)
		var a Attempt
		a.SetStart(at, i+1, false)
		a.SetOutcome(eventline.StatusSucceeded, at, i+1, false, 0)
		for range 1 + i%3 {
			st.AddAttempt(run, i%2, a)
		}
		run.SetLast(at.Add(time.Duration(i) * time.Second))
		if i%10 == 0 {
			run.SetScheduledFor(at.Add(time.Duration(i)*time.Hour), i+1)
		}
		return run
	}
	const old, added = 100000, 40 // 4 MB of decoded records, gaps of 100 KB
	// The batches a full check folds: the old runs, then the added ones,
	// every 7th of which an old id folded again.
	var batches [][]int
	for i := 0; i < old; i += 4096 {
		var ids []int
		for k := i; k < min(i+4096, old); k++ {
			ids = append(ids, k)
		}
		batches = append(batches, ids)
	}
	split := len(batches)
	for i := 0; i < added; i += 10 {
		var ids []int
		for k := i; k < i+10; k++ {
			if k%7 == 0 {
				ids = append(ids, (k*7919)%old)
			} else {
				ids = append(ids, old+k)
			}
		}
		batches = append(batches, ids)
	}
	runs := map[int]*Run{}
	fold := func(s *FoldedSet, ids []int, state uint8) {
		var b FoldedBatch
		for _, i := range ids {
			run, ok := runs[i]
			if !ok {
				run = runOf(i)
				runs[i] = run
			}
			b.Fold(run, NewFoldedRun(run, state))
		}
		s.Add(&b)
	}
	var full, first FoldedSet
	for k, ids := range batches {
		state := uint8(1 + k%4)
		fold(&full, ids, state)
		if k < split {
			fold(&first, ids, state)
		}
	}
	e := &Encoder{}
	first.Encode(e)
	data := bytes.Join(e.Parts(), nil)
	var resumed FoldedSet
	d := NewDecoder(data)
	resumed.Decode(d, states)
	if d.Fault() != "" || resumed.Len() != old {
		t.Fatalf("decoded: fault %q, %d records", d.Fault(), resumed.Len())
	}
	for k := split; k < len(batches); k++ {
		fold(&resumed, batches[k], uint8(1+k%4))
	}
	if resumed.Len() != full.Len() {
		t.Fatalf("Len %d, want %d", resumed.Len(), full.Len())
	}
	ambiguous := 0
	for i := range old + added + 1 {
		id := []byte(fmt.Sprintf("r-%d", i))
		got, gok := resumed.Find(id)
		want, wok := full.Find(id)
		if gok != wok || got != want {
			t.Fatalf("r-%d: %+v %v, want %+v %v", i, got, gok, want, wok)
		}
		gs, gsok := resumed.Slot(id)
		ws, wsok := full.Slot(id)
		if gsok != wsok || !gs.Equal(ws) {
			t.Fatalf("r-%d: slot %v %v, want %v %v", i, gs, gsok, ws, wsok)
		}
		if got.Ambiguous() {
			ambiguous++
		}
	}
	if ambiguous != added/7+1 {
		t.Errorf("%d ambiguous records, want %d", ambiguous, added/7+1)
	}
	fe := &Encoder{}
	full.Encode(fe)
	re := &Encoder{}
	resumed.Encode(re)
	if got, want := bytes.Join(re.Parts(), nil), bytes.Join(fe.Parts(), nil); !bytes.Equal(got, want) {
		t.Fatalf("the resumed set encodes to %d bytes that differ from the full set's %d", len(got), len(want))
	}
	// The long stretches of records between the added ones are data's
	// bytes, not copies.
	borrowed := 0
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	for _, p := range re.Parts() {
		if q := uintptr(unsafe.Pointer(&p[0])); q >= lo && q <= hi {
			borrowed += len(p)
		}
	}
	if borrowed < len(data)/2 {
		t.Errorf("%d of the %d decoded bytes borrowed, want most", borrowed, len(data))
	}
}
