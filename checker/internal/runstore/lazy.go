package runstore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"time"
	"unsafe"
)

// A store loaded from a checkpoint is read as it is, not decoded: its runs
// (the base) stay the checkpoint's bytes, and a run is decoded only when a
// new event names it (Lookup) or a caller asks for it (At, Runs). So a
// check resumed from a checkpoint of millions of runs decodes the runs its
// new events touch and the ones its output lists. The store's part of a
// checkpoint (docs/state.md, "Format") is laid out for that:
//
//   - the number of runs;
//   - the error texts, in order of the line of the first outcome that
//     carries each (an attempt's error is its outcome's, and no event
//     follows an outcome, so a later check only appends to the list);
//   - the ids of all runs in one block;
//   - the run index: a power of two of 4-byte slots (little endian), each
//     0 or a run's place plus one, by linear probing from the top bits of
//     the id's 64-bit FNV-1a hash mixed by fmix64 (fnv64), the runs
//     inserted in first-line order, each within maxProbe of its home; or,
//     when one would not be, none (log2 0);
//   - a 40-byte head of each run in first-line order (headSize);
//   - the bodies of the runs, in the same order (Encoder.body), up to
//     where the last head says its body ends.
//
// Every part is a function of the runs alone, so a store encoded after a
// resumed check has the bytes of one encoded after a full check; the
// encoding of a run no event touched is copied, not encoded again.

// headSize is the size of a run's head: its first event's Unix seconds
// (int64) and last event's (int64), their nanoseconds (two uint32), where
// its id ends in the id block and its body in the body block (two uint32),
// and a uint64 of its first line (the low 40 bits), its state code (the
// next 8: a caller's code of a state that does not change with time, or
// NoCode) and its attempts (the top 16, at most 65535), all little endian.
const headSize = 40

// NoCode is the state code of a run whose state a check must judge at its
// own now (an attempt in progress), or that the caller gave no code.
const NoCode = 0xff

// maxLine is the largest first line a head holds.
const maxLine = 1<<40 - 1

// ErrTooLarge is Encode's error for a store whose ids or bodies do not fit
// the heads' 32-bit offsets.
var ErrTooLarge = errors.New("runstore: the runs are too many for a checkpoint (4 GiB of ids or encodings)")

// base is the part of a store a checkpoint holds, read lazily.
type base struct {
	n      int
	stages int
	texts  []string
	ids    string
	bits   uint
	slots  []byte // 4 << bits bytes
	// byID finds the runs when the checkpoint holds no run index (bits
	// 0: its ids collide too much, maxProbe), built at load.
	byID   map[string]int
	heads  []byte // n * headSize
	bodies []byte
	// code is the state code the heads were written with (Decode), or nil.
	code func(*Run) uint8
	// decoded are the runs decoded so far, by place; nil until the first.
	decoded []*Run
	// touched are the places of the runs Lookup handed out: their state
	// may have changed, so Encode encodes them afresh.
	touched map[int]bool
	// decodes counts the runs decoded (Decoded).
	decodes int
	// all says every run is decoded.
	all bool
}

// Head is what a store keeps of a run without decoding it: its id, first
// line, first and last events, state code (NoCode when none is kept) and
// attempts (at most 65535 for a run not decoded).
type Head struct {
	ID                  string
	FirstLine           int
	FirstSec, LastSec   int64
	FirstNsec, LastNsec int32
	Code                uint8
	Attempts            int
}

// FirstAt and LastAt are the head's first and latest events (UTC).
func (h Head) FirstAt() time.Time { return unixTime(h.FirstSec, h.FirstNsec) }
func (h Head) LastAt() time.Time  { return unixTime(h.LastSec, h.LastNsec) }

func (b *base) head(p int) []byte { return b.heads[p*headSize : (p+1)*headSize] }

func (b *base) idSpan(p int) (from, to uint32) {
	if p > 0 {
		from = binary.LittleEndian.Uint32(b.head(p - 1)[24:])
	}
	return from, binary.LittleEndian.Uint32(b.head(p)[24:])
}

func (b *base) bodySpan(p int) (from, to uint32) {
	if p > 0 {
		from = binary.LittleEndian.Uint32(b.head(p - 1)[28:])
	}
	return from, binary.LittleEndian.Uint32(b.head(p)[28:])
}

func (b *base) id(p int) string {
	from, to := b.idSpan(p)
	return b.ids[from:to]
}

func (b *base) headOf(p int) Head {
	h := b.head(p)
	x := binary.LittleEndian.Uint64(h[32:])
	return Head{ID: b.id(p), FirstSec: int64(binary.LittleEndian.Uint64(h)), LastSec: int64(binary.LittleEndian.Uint64(h[8:])),
		FirstNsec: int32(binary.LittleEndian.Uint32(h[16:])), LastNsec: int32(binary.LittleEndian.Uint32(h[20:])),
		FirstLine: int(x & maxLine), Code: uint8(x >> 40), Attempts: int(x >> 48)}
}

// fnv64 is the 64-bit FNV-1a hash of id, mixed by MurmurHash3's 64-bit
// finalizer (fmix64): the checkpoint's run index must hash the same in
// every process (maphash does not), and its slots are the hash's top bits,
// which FNV-1a alone barely changes between ids that differ in their last
// bytes (run-00000001, run-00000002): unmixed, the 1M-event benchmark
// log's index held clusters that made loading it cost 35 ms.
func fnv64(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// indexBits is log2 of the slots of the run index of n runs: at most half
// of them in use.
func indexBits(n int) uint {
	bits := uint(3)
	for 1<<bits < 2*n {
		bits++
	}
	return bits
}

// maxProbe bounds how far a run's slot may lie from its id's home slot
// in a checkpoint's run index. The index's hash has no key (it must be
// the same in every process), so ids a log's writer chose to collide could
// make every lookup, and the check of a loaded index, walk a cluster as
// long as the log's runs: a checkpoint whose index would exceed the bound
// holds none (bits 0), and its loader finds runs through a map instead.
// With at most half the slots used and ids that do not collide on purpose,
// a probe of 64 is never needed.
const maxProbe = 64

// find returns the place of run id in b, or -1.
func (b *base) find(id []byte) int {
	if b.byID != nil {
		if p, ok := b.byID[string(id)]; ok {
			return p
		}
		return -1
	}
	mask := 1<<b.bits - 1
	for i := int(fnv64(string(id)) >> (64 - b.bits)); ; i = (i + 1) & mask {
		v := binary.LittleEndian.Uint32(b.slots[4*i:])
		if v == 0 {
			return -1
		}
		if b.id(int(v-1)) == string(id) {
			return int(v - 1)
		}
	}
}

// indexFits tells whether find finds every run of b at its own place:
// check's last test. The runs' hashes are computed first, in order (their
// ids are read in order), so that a run met on another's probe path is
// compared by place and hash, and its id read only when the hashes agree.
func (b *base) indexFits() bool {
	mask := 1<<b.bits - 1
	hashes := make([]uint64, b.n)
	for p := range b.n {
		hashes[p] = fnv64(b.id(p))
	}
	for p, h := range hashes {
		for i, k := int(h>>(64-b.bits)), 0; ; i, k = (i+1)&mask, k+1 {
			v := binary.LittleEndian.Uint32(b.slots[4*i:])
			if v == 0 || k > maxProbe {
				return false // an empty slot between its home and its place, or a probe no writer makes
			}
			q := int(v - 1)
			if q == p {
				break
			}
			if hashes[q] == h && b.id(q) == b.id(p) {
				return false // another run of its id comes first
			}
		}
	}
	return true
}

// decode decodes the run at place p into s's storage; a fault is a
// damaged checkpoint, which load did not find (its trailer matched):
// decode panics with it.
func (s *Store) decode(p int) *Run {
	b := s.base
	if b.decoded == nil {
		b.decoded = make([]*Run, b.n)
	}
	if r := b.decoded[p]; r != nil {
		return r
	}
	h := b.headOf(p)
	if len(s.runs) == cap(s.runs) {
		s.runs = make([]Run, 0, slabSize)
	}
	if cap(s.stages)-len(s.stages) < b.stages {
		s.stages = make([][]Attempt, 0, max(slabSize, b.stages))
		clear(s.stages[:cap(s.stages)]) // first touch a write (prefault)
	}
	s.runs = s.runs[:len(s.runs)+1]
	run := &s.runs[len(s.runs)-1]
	*run = Run{id: h.ID, firstLine: h.FirstLine, firstSec: h.FirstSec, firstNsec: h.FirstNsec, lastSec: h.LastSec, lastNsec: h.LastNsec,
		stages: s.stages[len(s.stages) : len(s.stages)+b.stages : len(s.stages)+b.stages]}
	s.stages = s.stages[:len(s.stages)+b.stages]
	from, to := b.bodySpan(p)
	d := NewDecoder(b.bodies[from:to])
	if !d.body(run, b.stages, b.texts, s) || len(d.b) != 0 {
		fault := d.fault
		if fault == "" {
			fault = "bytes after a run's end"
		}
		panic(&DamagedError{Fault: fault})
	}
	// The head was read for the counts, the verdict and the listing
	// without the body: a body that says otherwise is damage, not a state.
	if min(run.attemptCount(), math.MaxUint16) != h.Attempts || (b.code != nil && b.code(run) != h.Code) {
		panic(&DamagedError{Fault: "a run's head that does not fit its body"})
	}
	b.decoded[p] = run
	b.decodes++
	return run
}

// DamagedError is the panic of a store whose checkpoint's run does not
// decode when it is first needed, though the checkpoint's trailer matched
// (no greenlight writes one).
type DamagedError struct{ Fault string }

func (e *DamagedError) Error() string {
	return "the checkpoint is unusable: its contents are damaged (" + e.Fault + ")"
}

// IndexBits is log2 of the slots of the run index of the checkpoint s was
// loaded from: 0 when it held none (its ids collide too much, maxProbe),
// or when s was not loaded from one.
func (s *Store) IndexBits() uint {
	if s.base == nil {
		return 0
	}
	return s.base.bits
}

// Decoded counts the runs of a loaded store decoded so far.
func (s *Store) Decoded() int {
	if s.base == nil {
		return 0
	}
	return s.base.decodes
}

// Peek returns the state of run id like Lookup, but as a read: the run is
// not taken as touched (Encode keeps its encoding).
func (s *Store) Peek(id []byte) *Run {
	if s.base != nil {
		if p := s.base.find(id); p >= 0 {
			return s.decode(p)
		}
	}
	run, _ := s.index.find(id, s.order)
	return run
}

// Has tells whether the store holds run id, without decoding it, and gives
// the id as the store keeps it.
func (s *Store) Has(id []byte) (string, bool) {
	if s.base != nil {
		if p := s.base.find(id); p >= 0 {
			return s.base.id(p), true
		}
	}
	if run, _ := s.index.find(id, s.order); run != nil {
		return run.id, true
	}
	return "", false
}

// At is the run at place p in first-line order, decoded when it was not.
func (s *Store) At(p int) *Run {
	if b := s.base; b != nil {
		if p < b.n {
			return s.decode(p)
		}
		p -= b.n
	}
	return s.order[p]
}

// HeadAt is the head of the run at place p; the code is the one the
// checkpoint keeps for a run no Lookup handed out, else NoCode.
func (s *Store) HeadAt(p int) Head {
	if b := s.base; b != nil {
		if p < b.n {
			h := b.headOf(p)
			if b.decoded == nil {
				return h
			}
			if run := b.decoded[p]; run != nil {
				if len(b.touched) > 0 && b.touched[p] {
					h.Code, h.LastSec, h.LastNsec = NoCode, run.lastSec, run.lastNsec
				}
				h.Attempts = run.attemptCount()
			}
			return h
		}
		p -= b.n
	}
	run := s.order[p]
	return Head{ID: run.id, FirstLine: run.firstLine, FirstSec: run.firstSec, FirstNsec: run.firstNsec, LastSec: run.lastSec, LastNsec: run.lastNsec,
		Code: NoCode, Attempts: run.attemptCount()}
}

// Brief is the first event (Unix seconds and nanoseconds) and the state
// code of the run at place p, as HeadAt gives them, for a pass over every
// run.
func (s *Store) Brief(p int) (sec int64, nsec int32, code uint8) {
	if b := s.base; b != nil {
		if p < b.n {
			h := b.heads[p*headSize : (p+1)*headSize : (p+1)*headSize]
			code = uint8(binary.LittleEndian.Uint64(h[32:]) >> 40)
			if len(b.touched) > 0 && b.touched[p] {
				code = NoCode
			}
			return int64(binary.LittleEndian.Uint64(h)), int32(binary.LittleEndian.Uint32(h[16:])), code
		}
		p -= b.n
	}
	run := s.order[p]
	return run.firstSec, run.firstNsec, NoCode
}

// Logical is the logical time (Unix seconds and nanoseconds; Run.LogicalAt:
// the slot its events name, else its first event) and the first line of
// the run at place p, what orders it in a listing and picks the latest run.
// A run a checkpoint holds is not decoded: its slot is read from the start
// of its body (Encoder.body: the flags, then the slot when it has one).
func (s *Store) Logical(p int) (sec int64, nsec int32, line int) {
	if b := s.base; b != nil {
		if p < b.n {
			if b.decoded != nil {
				if run := b.decoded[p]; run != nil {
					t := run.LogicalAt()
					return t.Unix(), int32(t.Nanosecond()), run.firstLine
				}
			}
			h := b.heads[p*headSize : (p+1)*headSize : (p+1)*headSize]
			sec, nsec, line = int64(binary.LittleEndian.Uint64(h)), int32(binary.LittleEndian.Uint32(h[16:])), int(binary.LittleEndian.Uint64(h[32:])&maxLine)
			from, to := b.bodySpan(p)
			if from < to && b.bodies[from]&runScheduled != 0 {
				d := NewDecoder(b.bodies[from+1 : to])
				if t := d.Time(); d.fault == "" {
					return t.Unix(), int32(t.Nanosecond()), line
				}
				panic(&DamagedError{Fault: d.fault})
			}
			return sec, nsec, line
		}
		p -= b.n
	}
	run := s.order[p]
	t := run.LogicalAt()
	return t.Unix(), int32(t.Nanosecond()), run.firstLine
}

// SizeHint is about the bytes of the store's encoding that Encode copies
// into the Encoder's storage (B), not borrowing them.
func (s *Store) SizeHint() int {
	n := 0
	if b := s.base; b != nil {
		// The base's ids, bodies and (unless a touched run shifts them)
		// heads are borrowed, not copied (Encode).
		n = len(b.slots) + 32*len(b.touched) + 64*len(b.texts)
		if len(b.touched) > 0 {
			n += len(b.heads)
		}
		n += 4 << indexBits(s.Len()) // the index may grow
		// The new runs' ids and heads; their bodies are encoded apart.
		return n + (headSize+32)*len(s.order)
	}
	return 128 * len(s.order)
}

// LatestLast is the latest last event of the runs (Unix seconds and
// nanoseconds); ok is false without runs.
func (s *Store) LatestLast() (sec int64, nsec int32, ok bool) {
	note := func(sc int64, ns int32) {
		if !ok || sc > sec || (sc == sec && ns > nsec) {
			sec, nsec, ok = sc, ns, true
		}
	}
	if b := s.base; b != nil {
		// The heads' latest, unless a run that changed since holds it.
		at := -1
		for p, h := 0, b.heads; len(h) >= headSize; p, h = p+1, h[headSize:] {
			if sc, ns := int64(binary.LittleEndian.Uint64(h[8:])), int32(binary.LittleEndian.Uint32(h[20:])); at < 0 || sc > sec || (sc == sec && ns > nsec) {
				sec, nsec, ok, at = sc, ns, true, p
			}
		}
		if b.touched[at] {
			ok = false
			for p := range b.n {
				if !b.touched[p] {
					note(int64(binary.LittleEndian.Uint64(b.head(p)[8:])), int32(binary.LittleEndian.Uint32(b.head(p)[20:])))
				}
			}
		}
		for p := range b.touched {
			note(b.decoded[p].lastSec, b.decoded[p].lastNsec)
		}
	}
	for _, run := range s.order {
		note(run.lastSec, run.lastNsec)
	}
	return sec, nsec, ok
}

// IDAt is the id of the run at place p.
func (s *Store) IDAt(p int) string {
	if b := s.base; b != nil {
		if p < b.n {
			return b.id(p)
		}
		p -= b.n
	}
	return s.order[p].id
}

func (r *Run) attemptCount() int {
	n := 0
	for _, atts := range r.stages {
		n += len(atts)
	}
	return n
}

// decodeAll decodes every run of the base, so that Runs, Sweep and the
// readers of every run see them all; reading them after is safe from
// several goroutines.
func (s *Store) decodeAll() {
	b := s.base
	if b == nil || b.all {
		return
	}
	for p := range b.n {
		s.decode(p)
	}
	b.all = true
}

// DecodeAll decodes every run not decoded yet: after it, At and HeadAt
// read the store only, and may be called from several goroutines.
func (s *Store) DecodeAll() { s.decodeAll() }

// MarkUntouched forgets the runs Lookup handed out so far: after Decode and
// the lookups of the caller's own decoding, every run's state is the one
// its encoding holds.
func (s *Store) MarkUntouched() {
	if s.base != nil {
		s.base.touched = map[int]bool{}
	}
	s.last = nil // Lookup hands out its last run without touching it again
}

// Decode reads the runs Encode wrote into s, an empty store, each with
// room for stages stages; intern gives an error text its string. The runs
// are not decoded (At, Lookup decode them): Decode checks the layout, the
// heads and the index, and a fault is left in d. code, when not nil, is
// the state code Encode was given: a run decoded later whose head's code
// or attempt count is not its body's is a damaged checkpoint then.
func (s *Store) Decode(d *Decoder, stages int, intern func([]byte) string, code func(*Run) uint8) {
	if s.Len() != 0 {
		d.Fail("a store that is not empty")
		return
	}
	n := d.Count()
	texts := make([]string, d.Count())
	for i := range texts {
		texts[i] = intern(d.Bytes())
	}
	// The ids alias the checkpoint's bytes, which never change
	// (ParseCheckpoint), and are written from there again (Encode).
	idBytes := d.Bytes()
	ids := unsafe.String(unsafe.SliceData(idBytes), len(idBytes))
	bits := d.Uvarint()
	if d.fault != "" {
		return
	}
	if bits != 0 && bits != uint64(indexBits(n)) {
		d.Fail("a run index of another size")
		return
	}
	var slots []byte
	if bits != 0 {
		slots = d.Fixed(4 << bits)
	}
	heads := d.Fixed(n * headSize)
	if d.fault != "" {
		return
	}
	var end uint32
	if n > 0 {
		end = binary.LittleEndian.Uint32(heads[(n-1)*headSize+28:])
	}
	bodies := d.Fixed(int(end))
	if d.fault != "" {
		return
	}
	b := &base{n: n, stages: stages, texts: texts, ids: ids, bits: uint(bits), slots: slots, heads: heads, bodies: bodies, touched: map[int]bool{}, code: code}
	if fault := b.check(); fault != "" {
		d.Fail(fault)
		return
	}
	s.base = b
}

// check finds what is wrong with b's heads and index, or "".
func (b *base) check() string {
	var idEnd, bodyEnd uint32
	line := -1
	for p := range b.n {
		h := b.head(p)
		i, e := binary.LittleEndian.Uint32(h[24:]), binary.LittleEndian.Uint32(h[28:])
		x := binary.LittleEndian.Uint64(h[32:])
		if i < idEnd || e < bodyEnd {
			return "run heads out of order"
		}
		idEnd, bodyEnd = i, e
		if l := int(x & maxLine); l <= line {
			return "runs out of first-line order"
		} else {
			line = l
		}
		if code := uint8(x >> 40); code > 7 && code != NoCode {
			return "a run's state out of range"
		}
		if binary.LittleEndian.Uint32(h[16:]) >= 1e9 || binary.LittleEndian.Uint32(h[20:]) >= 1e9 {
			return "a time out of range"
		}
	}
	if int(idEnd) != len(b.ids) || int(bodyEnd) != len(b.bodies) {
		return "run heads that do not cover their blocks"
	}
	if b.bits == 0 {
		// No index: the runs are found through a map, and two runs of one
		// id would make a later event of it another run's.
		b.byID = make(map[string]int, b.n)
		for p := range b.n {
			id := b.id(p)
			if _, ok := b.byID[id]; ok {
				return "two runs of one id"
			}
			b.byID[id] = p
		}
		return ""
	}
	seen := make([]bool, b.n)
	clear(seen) // first touch a write (prefault)
	used := 0
	for i := 0; i < len(b.slots); i += 4 {
		v := binary.LittleEndian.Uint32(b.slots[i:])
		if v == 0 {
			continue
		}
		if int64(v) > int64(b.n) || seen[v-1] {
			return "a run index that does not fit its runs"
		}
		seen[v-1] = true
		used++
	}
	if used != b.n {
		return "a run index that does not fit its runs"
	}
	// Every run is found by its id at its own place: a slot off its id's
	// probe path, or two runs of one id, would make a later event of the
	// run a new run, or another run's.
	if !b.indexFits() {
		return "a run index that does not fit its runs"
	}
	return ""
}

// Encode appends every run of s to e (the layout above); code gives a
// run's state code (NoCode for a state a check must judge at its own now).
// A run of the checkpoint s was loaded from that no Lookup handed out
// keeps its encoding: a long stretch of such runs' ids and bodies, and
// their heads when no fresh body before them changed where their bodies
// start, is borrowed from the checkpoint's bytes (Encoder.Borrow), the
// rest copied. What only a snapshot derives and the job log's
// adjudications (SetJobOutcome) are not written: code must not give a
// code to a run they changed.
func (s *Store) Encode(e *Encoder, code func(*Run) uint8) error {
	for _, run := range s.order {
		if run.ext != nil && run.ext.definition != 0 {
			return ErrOwnDefinition
		}
	}
	b := s.base
	touched, fresh := s.freshRuns()
	index := encodeTexts(e, b, fresh, s.Len())
	if err := s.encodeIDs(e); err != nil {
		return err
	}
	s.encodeIndex(e)
	if b == nil {
		return s.encodeNew(e, index, code)
	}
	return s.encodeOverBase(e, touched, fresh, index, code)
}

// freshRuns are the runs whose bodies an Encode encodes now: the runs of
// the base that a Lookup handed out (touched, their places in the base, in
// order), then the runs added since it.
func (s *Store) freshRuns() (touched []int, fresh []*Run) {
	b := s.base
	if b != nil {
		for p := range b.touched {
			touched = append(touched, p)
		}
		slices.Sort(touched)
	}
	fresh = make([]*Run, 0, len(touched)+len(s.order))
	for _, p := range touched {
		fresh = append(fresh, b.decoded[p])
	}
	return touched, append(fresh, s.order...)
}

// encodeTexts appends the run count n and the error texts to e: the
// base's (b, nil for none), then the fresh runs' new ones in the order of
// the line that first used each. It returns each text's number.
func encodeTexts(e *Encoder, b *base, fresh []*Run, n int) map[string]uint64 {
	var texts []string
	if b != nil {
		texts = b.texts
	}
	index := map[string]uint64{}
	type firstUse struct {
		text string
		line int
	}
	var added []firstUse
	for i, t := range texts {
		index[t] = uint64(i) // a base's texts are distinct
	}
	seen := map[string]int{}
	for _, run := range fresh {
		for _, atts := range run.stages {
			for k := range atts {
				a := &atts[k]
				if !a.hasError {
					continue
				}
				if _, ok := index[a.err]; ok {
					continue
				}
				if j, ok := seen[a.err]; ok {
					added[j].line = min(added[j].line, a.lastLine)
					continue
				}
				seen[a.err] = len(added)
				added = append(added, firstUse{a.err, a.lastLine})
			}
		}
	}
	slices.SortFunc(added, func(x, y firstUse) int { return cmp.Compare(x.line, y.line) })
	for _, u := range added {
		index[u.text] = uint64(len(index))
	}
	e.Uvarint(uint64(n))
	e.Uvarint(uint64(len(texts) + len(added)))
	for _, t := range texts {
		e.String(t)
	}
	for _, u := range added {
		e.String(u.text)
	}
	return index
}

// encodeIDs appends the id block: the base's ids, borrowed, then the
// new runs'.
func (s *Store) encodeIDs(e *Encoder) error {
	b := s.base
	idLen := 0
	if b != nil {
		idLen = len(b.ids)
	}
	for _, run := range s.order {
		idLen += len(run.id)
	}
	if uint64(idLen) > math.MaxUint32 {
		return ErrTooLarge
	}
	e.Uvarint(uint64(idLen))
	if b != nil {
		e.Borrow(unsafe.Slice(unsafe.StringData(b.ids), len(b.ids)))
	}
	for _, run := range s.order {
		e.B = append(e.B, run.id...)
	}
	return nil
}

// encodeIndex appends the run index of the base's runs and the new ones,
// or none (bits 0) when a probe would pass maxProbe: the base's slots
// when its index has the size this one needs, else built afresh.
func (s *Store) encodeIndex(e *Encoder) {
	b := s.base
	n0 := 0
	if b != nil {
		n0 = b.n
	}
	n := n0 + len(s.order)
	bits := indexBits(n)
	at := len(e.B)
	e.Uvarint(uint64(bits))
	slots := len(e.B)
	fits := true
	if b != nil && b.bits == bits {
		e.B = append(e.B, b.slots...)
	} else {
		e.B = grow(e.B, 4<<bits)
		clear(e.B[slots:])
		for p := range n0 {
			fits = insert(e.B[slots:slots+4<<bits], bits, b.id(p), p) && fits
		}
	}
	for i, run := range s.order {
		fits = insert(e.B[slots:slots+4<<bits], bits, run.id, n0+i) && fits
	}
	if !fits {
		e.B = e.B[:at]
		e.Uvarint(0)
	}
}

// encodeNew appends the heads and the bodies of a store loaded from no
// checkpoint: every run is new.
func (s *Store) encodeNew(e *Encoder, index map[string]uint64, code func(*Run) uint8) error {
	n := len(s.order)
	// Every run is new: the heads, then the bodies, which end where
	// the last head says, encoded in place.
	heads := len(e.B)
	e.B = grow(e.B, n*headSize)
	bodies := len(e.B)
	var idEnd uint32
	for p, run := range s.order {
		e.body(run, index)
		idEnd += uint32(len(run.id))
		if uint64(len(e.B)-bodies) > math.MaxUint32 || uint64(run.firstLine) > maxLine {
			return ErrTooLarge
		}
		putHead(e.B[heads+p*headSize:], run, idEnd, uint32(len(e.B)-bodies), code)
	}
	return nil
}

// encodeOverBase appends the heads and the bodies of a store loaded from
// a checkpoint (s.base): the touched runs' bodies and the new runs' are
// encoded afresh (fresh, the touched first, at their places in the base,
// touched), the others borrowed.
func (s *Store) encodeOverBase(e *Encoder, touched []int, fresh []*Run, index map[string]uint64, code func(*Run) uint8) error {
	b := s.base
	n0 := b.n
	n := n0 + len(s.order)
	// The heads, then the bodies, which end where the last head says. The
	// fresh runs' bodies are encoded first, for their lengths, into
	// storage of their own (about the base's bytes a run each); a stretch
	// of untouched runs keeps its bodies, and its heads when no fresh body
	// before it changed where its bodies start: those are borrowed from
	// the base, not copied, and so is a long stretch of fresh bodies.
	fb := Encoder{B: make([]byte, 0, (len(b.bodies)/max(b.n, 1)+16)*len(fresh))}
	freshEnd := make([]int, len(fresh)) // where each fresh body ends in fb.B
	for i, run := range fresh {
		fb.body(run, index)
		freshEnd[i] = len(fb.B)
	}
	// bodyPart is a stretch of the bodies: the base's from..to (base) or
	// fb.B's.
	type bodyPart struct {
		base     bool
		from, to int
	}
	var parts []bodyPart
	bodyLen := int64(0) // the bodies' bytes so far
	var idEnd uint32
	k := 0 // next of touched
	f := 0 // next of fresh
	for p := 0; p < n; {
		if p < n0 && (k == len(touched) || touched[k] > p) {
			// A stretch of untouched runs.
			end := n0
			if k < len(touched) {
				end = touched[k]
			}
			from, _ := b.bodySpan(p)
			_, to := b.bodySpan(end - 1)
			shift := bodyLen - int64(from)
			if heads := b.heads[p*headSize : end*headSize]; shift == 0 {
				e.Borrow(heads)
			} else {
				at := len(e.B)
				e.B = append(e.B, heads...)
				for h := e.B[at:]; len(h) > 0; h = h[headSize:] {
					binary.LittleEndian.PutUint32(h[28:], uint32(int64(binary.LittleEndian.Uint32(h[28:]))+shift))
				}
			}
			_, idEnd = b.idSpan(end - 1)
			parts = append(parts, bodyPart{true, int(from), int(to)})
			if bodyLen += int64(to - from); bodyLen > math.MaxUint32 {
				return ErrTooLarge
			}
			p = end
			continue
		}
		var run *Run
		if p < n0 {
			run = b.decoded[p]
			k++
		} else {
			run = s.order[p-n0]
		}
		fromF := 0
		if f > 0 {
			fromF = freshEnd[f-1]
		}
		if last := len(parts) - 1; last >= 0 && !parts[last].base {
			parts[last].to = freshEnd[f]
		} else {
			parts = append(parts, bodyPart{false, fromF, freshEnd[f]})
		}
		bodyLen += int64(freshEnd[f] - fromF)
		f++
		idEnd += uint32(len(run.id))
		if bodyLen > math.MaxUint32 || uint64(run.firstLine) > maxLine {
			return ErrTooLarge
		}
		var h [headSize]byte
		putHead(h[:], run, idEnd, uint32(bodyLen), code)
		e.B = append(e.B, h[:]...)
		p++
	}
	for _, part := range parts {
		if part.base {
			e.Borrow(b.bodies[part.from:part.to])
		} else {
			e.Borrow(fb.B[part.from:part.to])
		}
	}
	return nil
}

// putHead writes run's head (headSize bytes) to h: its first and last
// events, where its id ends in the id block and its body in the body
// block, its first line, state code and attempts.
func putHead(h []byte, run *Run, idEnd, bodyEnd uint32, code func(*Run) uint8) {
	binary.LittleEndian.PutUint64(h, uint64(run.firstSec))
	binary.LittleEndian.PutUint64(h[8:], uint64(run.lastSec))
	binary.LittleEndian.PutUint32(h[16:], uint32(run.firstNsec))
	binary.LittleEndian.PutUint32(h[20:], uint32(run.lastNsec))
	binary.LittleEndian.PutUint32(h[24:], idEnd)
	binary.LittleEndian.PutUint32(h[28:], bodyEnd)
	x := uint64(run.firstLine) | uint64(code(run))<<40 | uint64(min(run.attemptCount(), math.MaxUint16))<<48
	binary.LittleEndian.PutUint64(h[32:], x)
}

// grow extends b by n bytes, which the caller overwrites.
func grow(b []byte, n int) []byte {
	return slices.Grow(b, n)[:len(b)+n]
}

// insert puts place p of run id into the index slots of 2^bits slots and
// tells whether it lies within maxProbe of its home slot.
func insert(slots []byte, bits uint, id string, p int) bool {
	mask := 1<<bits - 1
	i, k := int(fnv64(id)>>(64-bits)), 0
	for binary.LittleEndian.Uint32(slots[4*i:]) != 0 {
		i, k = (i+1)&mask, k+1
	}
	binary.LittleEndian.PutUint32(slots[4*i:], uint32(p+1))
	return k <= maxProbe
}
