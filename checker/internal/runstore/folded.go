package runstore

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
)

// FoldedStages is how many stages a FoldedRun describes attempt by
// attempt: the first FoldedStages stages of the run's definition. A late
// event for a later stage is one the compact record cannot judge.
const FoldedStages = 8

// FoldKey is a run id's key among the folded runs: its 128-bit FNV-1a hash
// (a fixed function, so the same log folds the same way in every check and
// on every platform). Two ids with one key are as unlikely as any 128-bit
// collision, and when it happens it costs a violation, never a green
// (FoldedSet.Add).
type FoldKey [16]byte

// fnv128 offset basis and prime (FNV-1a, 128 bits): the prime is
// 2^88 + 0x13b.
const (
	fnvOffsetHi = 0x6c62272e07bb0142
	fnvOffsetLo = 0x62b821756295c58d
	fnvPrimeLo  = 0x13b
	fnvPrimeSh  = 88 - 64
)

// KeyOf is id's FoldKey.
func KeyOf(id []byte) FoldKey {
	hi, lo := uint64(fnvOffsetHi), uint64(fnvOffsetLo)
	for _, c := range id {
		lo ^= uint64(c)
		// (hi, lo) * (2^88 + 0x13b) mod 2^128
		carry, nlo := bits.Mul64(lo, fnvPrimeLo)
		nhi := hi*fnvPrimeLo + carry + lo<<fnvPrimeSh
		hi, lo = nhi, nlo
	}
	var k FoldKey
	for i := range 8 {
		k[i] = byte(hi >> (56 - 8*i))
		k[8+i] = byte(lo >> (56 - 8*i))
	}
	return k
}

// FoldedRun is the compact record of a run folded out of a check's window
// (docs/window.md): every attempt final and its last event older than the
// window. It is 24 bytes, 40 with its FoldKey, whatever the run held: its
// state (the caller's code), the time of its last event, and for each of
// its first FoldedStages stages the number of attempts and the latest
// one's outcome, which is what the sequence rules ask of a run whose
// attempts have all ended. The slot its events named (scheduled_for), which
// few runs have, is kept beside it (FoldedSet.Slot).
type FoldedRun struct {
	lastSec int64
	// stages holds a byte per stage: the attempt count in the low five
	// bits (31: not known) and the latest attempt's outcome in the high
	// three (0: no attempt).
	stages   uint64
	lastNsec int32
	state    uint8
	flags    uint8
}

// The flags of a FoldedRun.
const (
	foldedHasSlot   = 1 << iota // its events named a slot
	foldedWide                  // its definition has more than FoldedStages stages
	foldedAmbiguous             // two folded runs share its key
)

// foldedUnknownCount is the attempt count of a stage with more attempts
// than a FoldedRun counts.
const foldedUnknownCount = 31

// NewFoldedRun is run's compact record, in state (a code of the caller's).
// The run's attempts must all have ended: each stage's latest outcome is
// kept as its Outcome.
func NewFoldedRun(run *Run, state uint8) FoldedRun {
	f := FoldedRun{lastSec: run.lastSec, lastNsec: run.lastNsec, state: state}
	if _, _, ok := run.ScheduledFor(); ok {
		f.flags |= foldedHasSlot
	}
	if len(run.stages) > FoldedStages {
		f.flags |= foldedWide
	}
	for si, atts := range run.stages[:min(len(run.stages), FoldedStages)] {
		b := uint64(min(len(atts), foldedUnknownCount))
		if len(atts) > 0 {
			b |= uint64(atts[len(atts)-1].Outcome()&7) << 5
		}
		f.stages |= b << (8 * si)
	}
	return f
}

// State is the run's state, the code NewFoldedRun was given.
func (f *FoldedRun) State() uint8 { return f.state }

// LastAt is the time of the run's last event (UTC).
func (f *FoldedRun) LastAt() time.Time { return unixTime(f.lastSec, f.lastNsec) }

// HasSlot says the run's events named a slot (FoldedSet.Slot).
func (f *FoldedRun) HasSlot() bool { return f.flags&foldedHasSlot != 0 }

// Stage tells how many attempts stage si had and the latest one's outcome
// (0 without attempts); ok is false when the record does not know: a
// stage past FoldedStages, more than 30 attempts, or a record two runs
// share.
func (f *FoldedRun) Stage(si int) (attempts int, outcome Status, ok bool) {
	if si >= FoldedStages || f.flags&foldedAmbiguous != 0 {
		return 0, 0, false
	}
	b := f.stages >> (8 * si)
	if n := int(b & 31); n != foldedUnknownCount {
		return n, Status(b>>5) & 7, true
	}
	return 0, 0, false
}

// Ambiguous says two folded runs share the record's key: nothing about
// either can be judged from it.
func (f *FoldedRun) Ambiguous() bool { return f.flags&foldedAmbiguous != 0 }

// foldedEntry is a record with its key: 40 bytes.
type foldedEntry struct {
	key FoldKey
	run FoldedRun
}

// FoldedSet holds the compact records of the folded runs by their keys.
// The records a checkpoint held (Decode) stay its bytes, read in place:
// base, sorted by key, foldedRecordSize bytes each, never written (a
// gate over a log of months holds millions of them, which a resumed check
// would otherwise copy into memory of its own and then copy again into
// the next checkpoint). The records added since are in 256 parts by the
// key's first byte. A part is a few arrays sorted by key, of sizes that at
// least double from the last to the first (each batch of Add is sorted
// and merged into the last ones while they are not twice its size), so
// that a record costs its 40 bytes and a search a few binary searches.
// The memory is the records', with no table load factor and no pointer
// for the garbage collector to scan; and as a merge rewrites one part,
// never the whole set, it needs at most a 256th of it again while it
// runs. A key in base and in a part is one record, ambiguous: base holds
// the older of the two, as the first array of a part does.
type FoldedSet struct {
	base  []byte
	parts [256][][]foldedEntry
	// slots are the slots of the folded runs that named one, by key.
	slots map[FoldKey][2]int64
	n     int
}

// FoldedBatch collects the runs of one sweep for FoldedSet.Add.
type FoldedBatch struct {
	entries []foldedEntry
	slots   map[FoldKey][2]int64
}

// Fold adds run id's compact record f to the batch, with run's slot when
// its events named one.
func (b *FoldedBatch) Fold(run *Run, f FoldedRun) {
	k := KeyOf([]byte(run.id))
	b.entries = append(b.entries, foldedEntry{k, f})
	if slot, _, ok := run.ScheduledFor(); ok {
		if b.slots == nil {
			b.slots = make(map[FoldKey][2]int64)
		}
		b.slots[k] = [2]int64{slot.Unix(), int64(slot.Nanosecond())}
	}
}

// Add moves the batch's records into the set and empties the batch. Two
// records with one key (two folded runs whose ids share it) become one,
// marked ambiguous (FoldedRun.Ambiguous).
func (s *FoldedSet) Add(b *FoldedBatch) {
	if len(b.entries) == 0 {
		return
	}
	cur := b.entries
	slices.SortFunc(cur, func(x, y foldedEntry) int { return bytes.Compare(x.key[:], y.key[:]) })
	cur = dedupe(cur)
	for k, v := range b.slots {
		if s.slots == nil {
			s.slots = make(map[FoldKey][2]int64)
		}
		s.slots[k] = v
	}
	b.slots = nil
	defer func() { b.entries = b.entries[:0] }()
	for len(cur) > 0 {
		p := cur[0].key[0]
		end := 1
		for end < len(cur) && cur[end].key[0] == p {
			end++
		}
		s.addPart(p, cur[:end:end])
		cur = cur[end:]
	}
}

// addPart merges the sorted records cur, whose keys start with p, into
// part p.
func (s *FoldedSet) addPart(p byte, cur []foldedEntry) {
	levels := s.parts[p]
	// A key already folded: two runs share it. (A key of base is found
	// ambiguous by find and written so by Encode.)
	for i := range cur {
		for _, l := range levels {
			if j, found := slices.BinarySearchFunc(l, cur[i].key, compareKey); found {
				l[j].run.flags |= foldedAmbiguous
				cur[i].run.flags |= foldedAmbiguous
			}
		}
	}
	s.n += len(cur)
	merged := false
	for len(levels) > 0 && len(levels[len(levels)-1]) < 2*len(cur) {
		last := levels[len(levels)-1]
		levels = levels[:len(levels)-1]
		s.n -= len(last) + len(cur)
		cur, merged = merge(last, cur), true
		s.n += len(cur)
	}
	if !merged {
		cur = append([]foldedEntry(nil), cur...) // an array of its own, not the batch's
	}
	s.parts[p] = append(levels, cur)
}

// compareKey orders a record by its key.
func compareKey(e foldedEntry, k FoldKey) int { return bytes.Compare(e.key[:], k[:]) }

// dedupe merges the neighbouring records of a sorted slice that share a
// key into one, marked ambiguous.
func dedupe(es []foldedEntry) []foldedEntry {
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].key == e.key {
			out[n-1].run.flags |= foldedAmbiguous
			continue
		}
		out = append(out, e)
	}
	return out
}

// merge returns the sorted union of two sorted slices, in a new one.
func merge(a, b []foldedEntry) []foldedEntry {
	out := make([]foldedEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch c := bytes.Compare(a[0].key[:], b[0].key[:]); {
		case c < 0:
			out, a = append(out, a[0]), a[1:]
		case c > 0:
			out, b = append(out, b[0]), b[1:]
		default:
			e := a[0]
			e.run.flags |= foldedAmbiguous
			out, a, b = append(out, e), a[1:], b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// Find returns the compact record of the folded run id; ok is false when
// no folded run has its key.
func (s *FoldedSet) Find(id []byte) (f FoldedRun, ok bool) {
	if s.n == 0 {
		return f, false
	}
	return s.find(KeyOf(id))
}

// find returns the record of key k: the oldest one's, as Encode writes
// it, ambiguous when a part holds the key too.
func (s *FoldedSet) find(k FoldKey) (f FoldedRun, ok bool) {
	if i, found := baseSearch(s.base, 0, k); found {
		f = baseRecord(s.base, i).run
		for _, l := range s.parts[k[0]] {
			if _, found := slices.BinarySearchFunc(l, k, compareKey); found {
				f.flags |= foldedAmbiguous
				break
			}
		}
		return f, true
	}
	for _, l := range s.parts[k[0]] {
		i, found := slices.BinarySearchFunc(l, k, compareKey)
		if found {
			return l[i].run, true
		}
	}
	return f, false
}

// baseSearch is the first place from i on among the records of base
// whose key is not less than k, and whether that key is k.
func baseSearch(base []byte, i int, k FoldKey) (int, bool) {
	lo, hi := i, len(base)/foldedRecordSize
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(base[m*foldedRecordSize:m*foldedRecordSize+16], k[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(base)/foldedRecordSize && string(base[lo*foldedRecordSize:lo*foldedRecordSize+16]) == string(k[:])
}

// baseRecord is record i of base, which Decode checked.
func baseRecord(base []byte, i int) foldedEntry {
	r := base[i*foldedRecordSize : (i+1)*foldedRecordSize]
	var e foldedEntry
	copy(e.key[:], r[:16])
	e.run = FoldedRun{lastSec: int64(binary.LittleEndian.Uint64(r[16:])), lastNsec: int32(binary.LittleEndian.Uint32(r[24:])),
		stages: binary.LittleEndian.Uint64(r[28:]), state: r[36], flags: r[37]}
	return e
}

// Slot is the slot the events of the folded run id named; ok is false
// when they named none.
func (s *FoldedSet) Slot(id []byte) (slot time.Time, ok bool) {
	v, ok := s.slots[KeyOf(id)]
	if !ok {
		return time.Time{}, false
	}
	return unixTime(v[0], int32(v[1])), true
}

// Len is the number of records (runs sharing a key count once).
func (s *FoldedSet) Len() int { return s.n }

// SizeHint is about the bytes of the records Encode copies into the
// Encoder's storage, not borrowing them: at most those added since Decode
// and, between them, stretches of base shorter than Borrow takes.
func (s *FoldedSet) SizeHint() int {
	added := s.n - len(s.base)/foldedRecordSize
	if len(s.base) == 0 {
		return foldedRecordSize * added
	}
	return foldedRecordSize*(added+1) + min(len(s.base), added*borrowMin)
}

// foldedRecordSize is the bytes of a folded record in a checkpoint: its
// key, last event (seconds, nanoseconds), stages, state, flags and two
// zero bytes, little-endian.
const foldedRecordSize = 40

// foldedFlags are the flags a FoldedRun may have.
const foldedFlags = foldedHasSlot | foldedWide | foldedAmbiguous

// Encode appends the set to e (docs/state.md): the number of records (8
// bytes, little-endian), the records sorted by key, foldedRecordSize bytes
// each, so that Decode reads them with no per-record decoding, then the
// slots, sorted by key. The set is encoded the same way whatever batches
// built it: base and each part's levels are merged as they are written,
// with no copy of the records (a key two of them hold is one record,
// ambiguous), and the stretches of base between the records added since
// are borrowed (Encoder.Borrow), not copied: base must not change until
// the encoding is written.
func (s *FoldedSet) Encode(e *Encoder) {
	count := e.Reserve(8)
	n := 0
	bi, bn := 0, len(s.base)/foldedRecordSize // the next record of base, and their number
	heads := make([]int, 0, 8)
	for _, levels := range s.parts {
		heads = append(heads[:0], make([]int, len(levels))...)
		for {
			least := -1 // the level whose head has the least key
			for i, l := range levels {
				if heads[i] < len(l) && (least < 0 || bytes.Compare(l[heads[i]].key[:], levels[least][heads[least]].key[:]) < 0) {
					least = i
				}
			}
			if least < 0 {
				break
			}
			r := levels[least][heads[least]]
			heads[least]++
			// The records of base before r are written as they are.
			to, inBase := baseSearch(s.base, bi, r.key)
			e.Borrow(s.base[bi*foldedRecordSize : to*foldedRecordSize])
			n += to - bi
			bi = to
			if inBase { // the older record, as a part's first array would hold it
				r = baseRecord(s.base, bi)
				r.run.flags |= foldedAmbiguous
				bi++
			}
			for i := least + 1; i < len(levels); i++ {
				if heads[i] < len(levels[i]) && levels[i][heads[i]].key == r.key {
					heads[i]++
					r.run.flags |= foldedAmbiguous
				}
			}
			e.B = appendRecord(e.B, &r)
			n++
		}
	}
	e.Borrow(s.base[bi*foldedRecordSize : bn*foldedRecordSize])
	n += bn - bi
	binary.LittleEndian.PutUint64(count, uint64(n))
	keys := make([]FoldKey, 0, len(s.slots))
	for k := range s.slots {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b FoldKey) int { return bytes.Compare(a[:], b[:]) })
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.B = append(e.B, k[:]...)
		v := s.slots[k]
		e.Varint(v[0])
		e.Uvarint(uint64(v[1]))
	}
}

func appendRecord(b []byte, r *foldedEntry) []byte {
	b = append(b, r.key[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.run.lastSec))
	b = binary.LittleEndian.AppendUint32(b, uint32(r.run.lastNsec))
	b = binary.LittleEndian.AppendUint64(b, r.run.stages)
	return append(b, r.run.state, r.run.flags, 0, 0)
}

// Decode reads what Encode wrote into s, an empty set; states says which
// state codes a record may have. The records are checked, not copied: s
// reads them in d's bytes, which must not change while s is used. A
// record out of order or out of range, or a slot of no record, is a fault
// left in d.
func (s *FoldedSet) Decode(d *Decoder, states func(uint8) bool) {
	if s.n != 0 {
		d.Fail("a folded set that is not empty")
		return
	}
	n := binary.LittleEndian.Uint64(d.Fixed(8))
	if d.fault != "" {
		return
	}
	if n > uint64(len(d.b))/foldedRecordSize {
		d.Fail("a count of folded runs beyond its end")
		return
	}
	b := d.Fixed(int(n) * foldedRecordSize)
	if d.fault != "" {
		return
	}
	for i := range int(n) {
		r := b[i*foldedRecordSize : (i+1)*foldedRecordSize]
		nsec := int32(binary.LittleEndian.Uint32(r[24:]))
		switch {
		case nsec < 0 || nsec >= 1e9:
			d.Fail("a folded run's time out of range")
		case !states(r[36]) || r[37]&^foldedFlags != 0 || r[38] != 0 || r[39] != 0:
			d.Fail("a folded run's state or flags out of range")
		case i > 0 && bytes.Compare(b[(i-1)*foldedRecordSize:(i-1)*foldedRecordSize+16], r[:16]) >= 0:
			d.Fail("folded runs out of order")
		}
		if d.fault != "" {
			return
		}
	}
	s.base, s.n = b, int(n)
	for range d.Count() {
		var k FoldKey
		copy(k[:], d.Fixed(len(k)))
		sec, nsec := d.Varint(), d.Uvarint()
		if d.fault != "" {
			return
		}
		f, ok := s.find(k)
		switch {
		case nsec >= 1e9:
			d.Fail("a slot out of range")
		case !ok || !f.HasSlot():
			d.Fail("a slot of no folded run that named one")
		}
		if d.fault != "" {
			return
		}
		if s.slots == nil {
			s.slots = make(map[FoldKey][2]int64)
		}
		s.slots[k] = [2]int64{sec, int64(nsec)}
	}
}
