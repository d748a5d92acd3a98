package runstore

import (
	"time"
)

// slabSize is how many states one slab allocation holds.
const slabSize = 1024

// Store holds every run of a check and finds a run by its id. It hands out
// run and attempt states from large allocations (slabs), so that each costs
// its exact size (no size-class rounding, no per-object allocation) and the
// garbage collector sees a few large objects. A Store is not safe for
// concurrent use.
type Store struct {
	runs     []Run
	stages   [][]Attempt
	attempts []Attempt
	index    runIndex
	order    []*Run // in order of first line
	// last is the run Lookup found last: most events follow one of the same
	// run, and then the index is not consulted.
	last *Run
	// base is the runs of the checkpoint Decode read, before the runs
	// added since (lazy.go): places 0 to base.n-1 are its runs, and order
	// holds the runs added after them.
	base *base
}

// New returns an empty Store.
func New() *Store { return &Store{index: newRunIndex()} }

// Lookup returns the state of run id, or nil when the store has none.
func (s *Store) Lookup(id []byte) *Run {
	if s.last != nil && s.last.id == string(id) {
		return s.last
	}
	if b := s.base; b != nil {
		if p := b.find(id); p >= 0 {
			run := s.decode(p)
			b.touched[p] = true
			s.last = run
			return run
		}
	}
	run, _ := s.index.find(id, s.order)
	if run != nil {
		s.last = run
	}
	return run
}

// Add returns the state of the new run id, its first event on line n at
// t, with room for the attempts of stages stages. The id must not be in the
// store (Lookup).
func (s *Store) Add(id string, n int, t time.Time, stages int) *Run {
	if len(s.runs) == cap(s.runs) {
		s.runs = make([]Run, 0, slabSize)
	}
	if cap(s.stages)-len(s.stages) < stages {
		s.stages = make([][]Attempt, 0, max(slabSize, stages))
		clear(s.stages[:cap(s.stages)]) // first touch a write (prefault)
	}
	s.runs = s.runs[:len(s.runs)+1]
	run := &s.runs[len(s.runs)-1]
	sec, nsec := t.Unix(), int32(t.Nanosecond())
	*run = Run{id: id, firstLine: n, firstSec: sec, lastSec: sec, firstNsec: nsec, lastNsec: nsec,
		stages: s.stages[len(s.stages) : len(s.stages)+stages : len(s.stages)+stages]}
	s.stages = s.stages[:len(s.stages)+stages]
	s.index.add(id, s.index.hash([]byte(id)), len(s.order))
	s.order = append(s.order, run)
	s.last = run
	return run
}

// AddAttempt appends a, a started attempt, to stage si of run. Most stages
// have one attempt, kept in a slab; a retry moves the stage's attempts to a
// slice of its own.
func (s *Store) AddAttempt(run *Run, si int, a Attempt) {
	atts := run.stages[si]
	if len(atts) > 0 {
		run.stages[si] = append(atts, a)
		return
	}
	if len(s.attempts) == cap(s.attempts) {
		s.attempts = make([]Attempt, 0, slabSize)
	}
	s.attempts = append(s.attempts, a)
	run.stages[si] = s.attempts[len(s.attempts)-1 : len(s.attempts) : len(s.attempts)]
}

// Len is the number of runs.
func (s *Store) Len() int {
	if s.base != nil {
		return s.base.n + len(s.order)
	}
	return len(s.order)
}

// Runs are the runs in order of their first line, every one of a loaded
// store decoded (At reads one); the caller must not change the slice.
func (s *Store) Runs() []*Run {
	b := s.base
	if b == nil {
		return s.order
	}
	s.decodeAll()
	all := make([]*Run, 0, b.n+len(s.order))
	all = append(all, b.decoded...)
	return append(all, s.order...)
}

// FromEnd is the n-th run from the end in order of first line (1: the
// last one), or nil when the store holds fewer than n runs.
func (s *Store) FromEnd(n int) *Run {
	if n < 1 || n > s.Len() {
		return nil
	}
	return s.At(s.Len() - n)
}

// Sweep drops the runs fold accepts (it sees each run once, in order of
// first line, and keeps what it needs of a run it accepts) and moves the
// others into new slabs, so that the memory of the dropped ones is
// released: a check with a window (docs/window.md) sweeps now and then.
// It returns how many runs it dropped; the states it dropped, and every
// pointer into the store taken before, must not be used after it.
func (s *Store) Sweep(fold func(*Run) bool) int {
	kept := New()
	dropped := 0
	for _, run := range s.Runs() {
		if fold(run) {
			dropped++
			continue
		}
		nr := kept.Add(run.id, run.firstLine, run.FirstAt(), len(run.stages))
		nr.lastSec, nr.lastNsec, nr.ext = run.lastSec, run.lastNsec, run.ext
		for si, atts := range run.stages {
			for _, a := range atts {
				kept.AddAttempt(nr, si, a)
			}
		}
	}
	kept.last = nil
	*s = *kept
	return dropped
}

// Clone returns a copy of run in storage of its own, attempts included,
// that outlives a Sweep dropping run.
func Clone(run *Run) *Run {
	c := *run
	c.stages = make([][]Attempt, len(run.stages))
	for i, atts := range run.stages {
		c.stages[i] = append([]Attempt(nil), atts...)
	}
	return &c
}

// Stub returns a copy of run without its attempts: its id, first line,
// first and last events and slot, for the schedule's judgement of a run
// that was swept. A stub has no stages: Stages is empty, and Attempts and
// Attempt must not be called.
func Stub(run *Run) *Run {
	c := *run
	c.stages = nil
	return &c
}
