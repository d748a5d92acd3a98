package checker

import (
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The retry brake across runs (docs/recovery.md, "A retry brake that spans
// nights"): a nightly pipeline whose query fails the same way every night
// gets a new run each night, so a brake counted within one run never trips.
// The runbook's brake exists to stop exactly that ("do not pile up attempts
// of a deterministically failing SQL every night"). So the trailing
// consecutive failures of a stage that share one failure kind are also
// counted across the runs of the pipeline, in logical-time order (a run's
// scheduled_for, else its first event): at the threshold, a started of the
// stage in any later run needs "rerun_from": true (retry_past_brake).

// brakeRun is one run's part of a stage's streak: its id, its logical time
// and how many of the streak's failures are its attempts.
type brakeRun struct {
	id    string
	at    time.Time
	count int
}

// brakeStreak is the trailing run of same-kind failures of one stage of the
// check's definition, across its runs: the kind, the total count and the
// runs they happened in, oldest first. at is the logical time of the latest
// run that changed it; an outcome of an older run (a backfill of an
// earlier slot) does not change it.
type brakeStreak struct {
	kind  failureKind
	count int
	runs  []brakeRun
	at    time.Time
}

// streaksFor returns the streaks of the check's stages (a check resumed
// from a checkpoint has them from it, decodeStreaks).
func (c *contractState) streaksFor() []brakeStreak {
	if c.streaks == nil {
		c.streaks = make([]brakeStreak, len(c.opts.Definition.Stages))
	}
	return c.streaks
}

// add counts attempt a of run, which has just ended, into the streak. It
// keeps at most keep runs (the threshold: the runs of the latest failures
// that trip the brake), so that a stage failing the same way for a year of
// nights costs the threshold, not the year.
func (s *brakeStreak) add(run *runState, a *attemptState, keep int) {
	at := run.LogicalAt()
	last := len(s.runs) > 0 && s.runs[len(s.runs)-1].id == run.ID()
	if at.Before(s.at) && !last {
		return // an older run's outcome: the streak is past it
	}
	s.at = at
	k, ok := failureKindOf(a)
	switch {
	case !ok:
		*s = brakeStreak{at: at, runs: s.runs[:0]}
	case s.count > 0 && k == s.kind:
		s.count++
		if last {
			s.runs[len(s.runs)-1].count++
		} else {
			if len(s.runs) >= max(keep, 1) {
				s.runs = append(s.runs[:0], s.runs[len(s.runs)-max(keep, 1)+1:]...)
			}
			s.runs = append(s.runs, brakeRun{id: run.ID(), at: at, count: 1})
		}
	default:
		*s = brakeStreak{kind: k, count: 1, at: at, runs: append(s.runs[:0], brakeRun{id: run.ID(), at: at, count: 1})}
	}
}

// countFor returns the streak a started of run (id, at logical time at)
// follows: its kind, its count up to and including run's own failures, and
// the runs other than run in it. A run in the streak counts the failures
// before it and its own; a run newer than the streak counts all of it; an
// older run outside it (a backfill) counts nothing here.
func (s *brakeStreak) countFor(id string, at time.Time) (kind failureKind, count int, others []string) {
	count = s.count
	for i := len(s.runs) - 1; i >= 0; i-- {
		if s.runs[i].id == id {
			return s.kind, count, runIDsOf(s.runs[:i])
		}
		count -= s.runs[i].count
	}
	if at.Before(s.at) {
		return failureKind{}, 0, nil
	}
	return s.kind, s.count, runIDsOf(s.runs)
}

// runIDsOf returns the ids of runs, for messages.
func runIDsOf(runs []brakeRun) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.id
	}
	return ids
}

// recordStreak counts attempt a of the event's run, whose outcome was just
// recorded (or turned unknown), into its stage's streak; a run fed with a
// definition of its own (Feed) has none.
func (c *contractState) recordStreak(x *lineCheck, a *attemptState) {
	if x.feed != nil || x.run.Definition() != 0 {
		return
	}
	c.streaksFor()
	c.addToStreak(x.run, x.si, a)
}

// tripKey names one stage of one run.
type tripKey struct {
	run   string
	stage int
}

// addToStreak counts attempt a of stage si of run into the stage's streak,
// and keeps the brake as of that run when it trips across runs: the
// snapshot shows it on the run's stage even after a later success ended
// the streak.
func (c *contractState) addToStreak(run *runState, si int, a *attemptState) {
	s := &c.streaks[si]
	threshold := c.opts.Definition.retryBrake().Threshold
	s.add(run, a, threshold)
	if n := len(s.runs); s.count >= threshold && n > 1 && s.runs[n-1].id == run.ID() {
		if c.brakeTrips == nil {
			c.brakeTrips = make(map[tripKey]*brakeTrip)
		}
		c.brakeTrips[tripKey{run.ID(), si}] = &brakeTrip{Kind: s.kind.String(), Count: s.count, Runs: runIDsOf(s.runs)}
	}
}

// tripsFor returns the brakes that tripped across runs (streaksFor builds
// them on first use).
func (c *contractState) tripsFor() map[tripKey]*brakeTrip {
	c.streaksFor()
	return c.brakeTrips
}

// encodeStreaks appends the streaks and the trips across runs to a
// checkpoint (checkpoint_fold.go), the trips in the order of their run and
// stage.
func (c *contractState) encodeStreaks(e *runstore.Encoder) {
	streaks := c.streaksFor()
	e.Uvarint(uint64(len(streaks)))
	for _, s := range streaks {
		e.String(s.kind.code)
		e.Varint(s.kind.returncode)
		e.Uvarint(uint64(s.count))
		e.Time(s.at)
		e.Uvarint(uint64(len(s.runs)))
		for _, r := range s.runs {
			e.String(r.id)
			e.Time(r.at)
			e.Uvarint(uint64(r.count))
		}
	}
	keys := make([]tripKey, 0, len(c.brakeTrips))
	for k := range c.brakeTrips {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b tripKey) int {
		if a.run != b.run {
			return strings.Compare(a.run, b.run)
		}
		return a.stage - b.stage
	})
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		b := c.brakeTrips[k]
		e.String(k.run)
		e.Uvarint(uint64(k.stage))
		e.String(b.Kind)
		e.Uvarint(uint64(b.Count))
		e.Uvarint(uint64(len(b.Runs)))
		for _, id := range b.Runs {
			e.String(id)
		}
	}
}

// decodeStreaks reads what encodeStreaks wrote, for a definition of
// stages stages.
func (c *contractState) decodeStreaks(d *runstore.Decoder, stages int) {
	if n := d.Uvarint(); n != uint64(stages) {
		d.Fail("another number of retry brake streaks")
		return
	}
	c.streaks = make([]brakeStreak, stages)
	for si := range c.streaks {
		s := &c.streaks[si]
		s.kind.code, s.kind.returncode = d.String(), d.Varint()
		s.count, s.at = d.Int(), d.Time()
		for range d.Count() {
			s.runs = append(s.runs, brakeRun{id: d.String(), at: d.Time(), count: d.Int()})
		}
	}
	for range d.Count() {
		k := tripKey{run: d.String(), stage: d.Int()}
		b := &brakeTrip{Kind: d.String(), Count: d.Int()}
		for range d.Count() {
			b.Runs = append(b.Runs, d.String())
		}
		if d.Fault() != "" {
			return
		}
		if k.stage < 0 || k.stage >= stages {
			d.Fail("a retry brake of no stage")
			return
		}
		if c.brakeTrips == nil {
			c.brakeTrips = make(map[tripKey]*brakeTrip)
		}
		c.brakeTrips[k] = b
	}
}
