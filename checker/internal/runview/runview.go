// Package runview is the seam through which checker/render reaches the views
// of a snapshot's runs that are not part of checker's API. checker.Snapshot
// gives every caller its runs through Runs, Len, At and Collect; a renderer
// of millions of runs also needs a run's head without its report (to order
// and count the rows of a listing or a metric), the encoding of every report
// on several cores, the latest run's report, and, for its tests, a snapshot
// whose runs are given whole. Those views live here, behind the internal
// wall, so that they stay free to change with the renderers that use them.
//
// Package checker registers its implementation once, when it is
// initialised (Register); this package imports nothing of checker, which
// imports it, so the snapshot and report types are type parameters.
package runview

import (
	"iter"
	"time"
)

// Head is what orders and counts a run in a listing or a metric, without
// its report: its id, state, first and latest events (UTC) and first line,
// as its report has them (checker.RunReport's RunID, State, FirstEvent,
// LastEvent, FirstLine). State is a checker.RunState's text.
type Head struct {
	RunID                 string
	State                 string
	FirstEvent, LastEvent time.Time
	FirstLine             int
}

// Views are a snapshot's run views, R being checker.RunReport. A place i is
// a run's 0-based index in the order checker.Snapshot.Runs yields them;
// Head, Order and ID panic when it is out of range.
type Views[R any] interface {
	// Head returns the head of the run at place i.
	Head(i int) Head
	// Order returns what orders the run at place i in a listing: its
	// logical time (scheduled_for, else its first event), its first line,
	// and whether it succeeded; cheaper to read than the head.
	Order(i int) (first time.Time, firstLine int, succeeded bool)
	// ID returns the id of the run at place i, without its report.
	ID(i int) string
	// EncodeRuns appends the encoding of every run report, in order, with
	// enc (given the run's place, for separators) and hands the bytes to
	// write, a chunk of runs at a time. Reports may be built and encoded on
	// several goroutines: enc must not keep r, nor anything r points at, or
	// share state between calls. write is called once at a time, in order,
	// not always on the calling goroutine. It returns write's first error.
	EncodeRuns(enc func(dst []byte, i int, r *R) []byte, write func([]byte) error) error
	// Latest returns the report of the run the snapshot names latest, or
	// nil, in storage of its own; also when a window folded that run out
	// of the listed ones.
	Latest() *R
	// Reports yields the reports of the runs at places, in that order,
	// built one at a time in reused storage as checker.Snapshot.Runs
	// builds them: the loop body may keep a report's strings, not the
	// report or its slices past its iteration.
	Reports(places []int) iter.Seq[*R]
}

// Precedence returns the stage states (checker.StageState texts) that
// decide a run's state, the first that one of its stages shows wins:
// unknown, failed, cancelled, stalled, running (docs/contract.md,
// docs/recovery.md). checker's fold ranks stages by it, and the renderers
// find with it the stage that decided a run (the recovery advice lists
// every unhealthy stage, in the runbook's order).
func Precedence() []string {
	return []string{"unknown", "failed", "cancelled", "stalled", "running"}
}

// impl is checker's registration: an impl[S, R] for S checker.Snapshot and
// R checker.RunReport. It is written once, by checker's initialisation,
// before any code can hold a snapshot.
var impl any

type registration[S, R any] struct {
	of  func(*S) Views[R]
	set func(*S, []R)
}

// Register records how to reach the views of an S (of) and how to give an
// S its runs whole (set). checker calls it once, from its initialisation.
func Register[S, R any](of func(*S) Views[R], set func(*S, []R)) {
	impl = registration[S, R]{of, set}
}

func registered[S, R any]() registration[S, R] {
	r, ok := impl.(registration[S, R])
	if !ok {
		panic("runview: no views registered for these snapshot and report types")
	}
	return r
}

// Of returns the views of snapshot s.
func Of[S, R any](s *S) Views[R] { return registered[S, R]().of(s) }

// SetRuns makes runs s's run reports: for a snapshot built by hand (a
// renderer's tests and fixtures, a document head without its runs). It
// does not change the snapshot's counts or its latest run id.
func SetRuns[S, R any](s *S, runs []R) { registered[S, R]().set(s, runs) }
