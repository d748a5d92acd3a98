package runstore

import "hash/maphash"

// runIndex finds a run's state by its id. A log of months holds millions
// of runs, and a map keyed by the id strings was the one part of applying
// events that grew faster than the log (cache misses in a large map of
// strings and pointers, which the garbage collector also scans). So an id
// is hashed once with maphash, and the index maps the 64-bit hash to the
// run's position in first-line order: 16 bytes a slot and nothing for the
// collector to scan. Two ids with one hash are rare but possible: the
// later ones go to a map keyed by the id itself. Positions are int32: the
// state of 2^31 runs would not fit in memory anyway (80 bytes a run).
type runIndex struct {
	seed     maphash.Seed
	byHash   map[uint64]int32
	collided map[string]int32
}

func newRunIndex() runIndex {
	return runIndex{seed: maphash.MakeSeed(), byHash: make(map[uint64]int32)}
}

// hash is id's hash in the index.
func (x *runIndex) hash(id []byte) uint64 { return maphash.Bytes(x.seed, id) }

// find returns the state of run id, or nil, and id's hash for add.
func (x *runIndex) find(id []byte, order []*Run) (*Run, uint64) {
	h := x.hash(id)
	return x.findHashed(id, h, order), h
}

// findHashed returns the state of run id, of hash h, or nil.
func (x *runIndex) findHashed(id []byte, h uint64, order []*Run) *Run {
	if i, ok := x.byHash[h]; ok {
		if run := order[i]; run.id == string(id) {
			return run
		}
		if j, ok := x.collided[string(id)]; ok {
			return order[j]
		}
	}
	return nil
}

// add records that the new run id, of hash h, is at position i of order.
func (x *runIndex) add(id string, h uint64, i int) {
	if _, taken := x.byHash[h]; !taken {
		x.byHash[h] = int32(i)
		return
	}
	if x.collided == nil {
		x.collided = make(map[string]int32)
	}
	x.collided[id] = int32(i)
}
