package runstore

import (
	"hash/maphash"
)

// runIndex finds a run's state by its id. A log of months holds millions
// of runs, and a map keyed by the id strings was the one part of applying
// events that grew faster than the log (cache misses in a large map of
// strings and pointers, which the garbage collector also scans). So an id
// is hashed once with maphash, and the index is an open-addressing table
// of 8-byte slots: the hash's upper 32 bits (which also pick the slot a
// probe starts at) and the run's position in first-line order, plus one.
// Nothing in it is a pointer, a probe reads one cache line in the common
// case, and growing it moves slots without hashing an id again. Ids whose
// hashes share those 32 bits are told apart by comparing the ids. The
// first event of a new run looks the id up and misses, then adds it: the
// miss remembers its empty slot, so the add writes there at once.
// Positions fit 32 bits: the state of 2^31 runs would not fit in memory
// anyway (80 bytes a run).
type runIndex struct {
	seed  maphash.Seed
	slots []uint64 // a power of two long, at most half full; 0 is empty
	bits  uint     // log2(len(slots))
	count int      // slots in use
	// missHash is the hash findHashed last missed, missSlot the empty slot
	// its probe ended at, valid while count is still missCount.
	missHash  uint64
	missSlot  int
	missCount int
}

// minIndexBits is log2 of the smallest table.
const minIndexBits = 10

func newRunIndex() runIndex {
	return runIndex{seed: maphash.MakeSeed(), slots: make([]uint64, 1<<minIndexBits), bits: minIndexBits, missCount: -1}
}

// hash is id's hash in the index.
func (x *runIndex) hash(id []byte) uint64 { return maphash.Bytes(x.seed, id) }

// find returns the state of run id, or nil, and id's hash for add.
func (x *runIndex) find(id []byte, order []*Run) (*Run, uint64) {
	h := x.hash(id)
	return x.findHashed(id, h, order), h
}

// home is the slot where the probe of a hash whose upper 32 bits are tag
// starts.
func (x *runIndex) home(tag uint64) int { return int(tag >> (32 - x.bits)) }

// findHashed returns the state of run id, of hash h, or nil.
func (x *runIndex) findHashed(id []byte, h uint64, order []*Run) *Run {
	tag := h >> 32
	mask := len(x.slots) - 1
	for i := x.home(tag); ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			x.missHash, x.missSlot, x.missCount = h, i, x.count
			return nil
		}
		if s>>32 == tag {
			if run := order[uint32(s)-1]; run.id == string(id) {
				return run
			}
		}
	}
}

// add records that the new run id, of hash h, is at position i of order;
// order must not have run id before i.
func (x *runIndex) add(id string, h uint64, i int) {
	if (x.count+1)*2 > len(x.slots) {
		x.grow(x.bits + 1)
	}
	slot := x.missSlot
	if x.missCount != x.count || x.missHash != h {
		slot = x.emptySlot(h >> 32)
	}
	x.slots[slot] = h>>32<<32 | uint64(i+1)
	x.count++
}

// reserve makes room for n runs in all, so that adding them grows the
// table at most once more.
func (x *runIndex) reserve(n int) {
	bits := x.bits
	for 1<<bits < 2*n {
		bits++
	}
	if bits > x.bits {
		x.grow(bits)
	}
}

// emptySlot returns the first empty slot of tag's probe sequence.
func (x *runIndex) emptySlot(tag uint64) int {
	mask := len(x.slots) - 1
	i := x.home(tag)
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// grow moves the slots into a table of 2^bits slots.
func (x *runIndex) grow(bits uint) {
	old := x.slots
	x.slots, x.bits = make([]uint64, 1<<bits), bits
	clear(x.slots) // first touch a write (prefault), not a read of the zero page
	for _, s := range old {
		if s != 0 {
			x.slots[x.emptySlot(s>>32)] = s
		}
	}
	x.missCount = -1
}
