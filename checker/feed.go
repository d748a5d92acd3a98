package checker

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// FeedEvent is one event that an importer (checker/openlineage) has read,
// validated against its own schema and mapped onto greenlight's model: a
// stage, an attempt and a status. Times are UTC.
type FeedEvent struct {
	// File and Line say where the event is, for violations: the file that
	// holds it and its 1-based line there.
	File string
	Line int
	// Pos is the event's 1-based position in the whole input (equal to Line
	// for a single file); the snapshot records it as an attempt's line and
	// lists violations in its order.
	Pos     int
	Stage   StageID
	Attempt int64
	// Status is started, succeeded or failed; it is ignored for a heartbeat.
	Status Status
	// Heartbeat is liveness only: it refreshes the last evidence of an
	// attempt in progress (for stall detection) and changes no state.
	Heartbeat bool
	Time      time.Time
	HasError  bool
	Error     string
	// NeverStalls, on a started event, marks a stream or service: the attempt
	// is not expected to end, so silence never makes it a stall candidate.
	NeverStalls bool
	// HasScheduledFor and ScheduledFor are the slot the event names, the
	// run's logical time, as the native event field scheduled_for
	// (OpenLineage: the nominalTime facet's nominalStartTime).
	HasScheduledFor bool
	ScheduledFor    time.Time
	// Note names the event in the importer's own terms (e.g. its run id);
	// it is appended to the message of a violation about the event.
	Note string
}

// Feed checks and folds events that an importer decoded itself, with the
// same sequence rules, states and snapshot as Check. The importer gives each
// run's events in the order to apply them (Feed checks that order with
// out_of_order, as Check does for file order), reports its own violations
// with Violate, and calls Result once.
type Feed struct {
	c       *contractState
	pending []posViolation
	// The run Run is feeding: its id, its own definition, and its state
	// once an event created it.
	runID  string
	runDef *Definition
	run    *runState
}

type posViolation struct {
	pos int
	v   Violation
}

// NewFeed validates opts as Check does, except that opts.Definition may be
// nil when every run brings its own expected stages (see Run); the
// snapshot's options.stages is then empty. It returns an error for an
// unknown gate, a zero Now, or a job log: a Feed does not reconcile one
// (an imported log's attempts carry no attempt_id to match its records
// with), and a job log silently left unread would look reconciled; and
// for a Window, which folds runs in line order (docs/window.md).
func NewFeed(opts Options) (*Feed, error) {
	opts, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if opts.JobLog != nil {
		return nil, jobLogNotImported("checker: Options.JobLog", "native event logs")
	}
	if !opts.Window.isZero() {
		return nil, errors.New("checker: Options.Window reads native event logs only, not OpenLineage run events (Feed)")
	}
	if opts.Definition == nil {
		opts.Definition = &Definition{Stages: []StageDef{}, LeaseMarginSeconds: defaultLeaseMarginSeconds, RetryBrake: RetryBrake{Threshold: defaultRetryBrakeThreshold, Enforce: true}}
	}
	return &Feed{c: newContractState(opts)}, nil
}

// Violate records a violation the importer found; pos is the event's
// position in the input (Violations are listed in that order).
func (f *Feed) Violate(pos int, v Violation) {
	f.pending = append(f.pending, posViolation{pos, v})
}

// Run applies the events of the run id in the given order. def lists the
// run's own expected stages (nil: the options' definition). A run may be fed
// once; a second call for the same id is an error.
func (f *Feed) Run(id string, def *Definition, events []FeedEvent) error {
	if f.c.runs.Lookup([]byte(id)) != nil {
		return fmt.Errorf("checker: run %s fed twice", id)
	}
	rc := f.c
	if def != nil {
		o := f.c.opts
		o.Definition = def
		rc = newContractState(o)
		// The run's state lives with every other run's: one set of slabs
		// (a slab per run would keep 80 KB alive for each) and error texts.
		rc.runs, rc.defs, rc.errorTexts = f.c.runs, f.c.defs, f.c.errorTexts
	}
	f.runID, f.runDef, f.run = id, def, nil
	for i := range events {
		e := &events[i]
		ev := event{Line: e.Pos, Stage: e.Stage, Attempt: e.Attempt, Status: e.Status, Time: e.Time, HasError: e.HasError, Error: []byte(e.Error),
			HasScheduledFor: e.HasScheduledFor, ScheduledFor: e.ScheduledFor}
		if e.Heartbeat {
			ev.Status = StatusHeartbeat
		}
		x := &rc.line
		*x = lineCheck{ev: &ev, feed: f, run: f.run, neverStalls: e.Status == StatusStarted && e.NeverStalls}
		if rule, msg := rc.check(x); rule != "" {
			f.violate(id, e, rule, msg)
			continue
		}
		rc.record(x)
	}
	return nil
}

// runFor returns the state of the run being fed, creating it on the first
// event that needs it; c holds the run's definition.
func (f *Feed) runFor(c *contractState, x *lineCheck) *runState {
	if f.run == nil {
		run := f.c.runs.Add(f.runID, x.ev.Line, x.ev.Time, len(c.opts.Definition.Stages))
		if f.runDef != nil {
			*c.defs = append(*c.defs, runDef{f.runDef, c.plan})
			run.SetDefinition(int32(len(*c.defs)))
		}
		f.run = run
	}
	return f.run
}

func (f *Feed) violate(run string, e *FeedEvent, rule RuleID, msg string) {
	if e.Note != "" {
		msg += " (" + e.Note + ")"
	}
	st := e.Stage
	f.Violate(e.Pos, Violation{File: e.File, Line: e.Line, Rule: rule, Message: msg, RunID: run, Stage: &st, Attempt: e.Attempt})
}

// Result lists every violation in input order (capped at MaxViolations, the
// rest counted) and, when there is none, folds the runs into the snapshot
// with src as its source.
func (f *Feed) Result(src Source) *Result {
	sort.SliceStable(f.pending, func(i, j int) bool { return f.pending[i].pos < f.pending[j].pos })
	rep := NewReport()
	for _, p := range f.pending {
		rep.Add(p.v, f.c.opts.MaxViolations)
	}
	res := &Result{Report: rep}
	if rep.Valid {
		res.Snapshot = f.c.snapshot(src)
	}
	return res
}
