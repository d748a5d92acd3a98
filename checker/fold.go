package checker

import (
	"time"
	"unsafe"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// staleAfter resolves the stall threshold: the option, else the
// definition's, else defaultStaleAfterSeconds (seconds). A stage's own
// stale_after_seconds overrides it for that stage (foldConfig.staleFor).
func (c *contractState) staleAfter() int { return staleAfterOf(c.opts) }

// staleAfterOf is the run-wide stall threshold in force under opts, in
// seconds: Options.StaleAfterSeconds, else the definition's, else
// defaultStaleAfterSeconds.
func staleAfterOf(opts Options) int {
	switch {
	case opts.StaleAfterSeconds > 0:
		return opts.StaleAfterSeconds
	case opts.Definition.StaleAfterSeconds > 0:
		return opts.Definition.StaleAfterSeconds
	}
	return defaultStaleAfterSeconds
}

// foldConfig is what folding needs besides the runs: the moment, the
// run-wide stall threshold, the lease margin and the retry brake threshold.
type foldConfig struct {
	now       time.Time
	stale     time.Duration
	margin    time.Duration
	threshold int
	// defs are the runs' own definitions (Feed), numbered from 1 in the
	// runs' states.
	defs *[]runDef
	// lineText names a line of the log in recovery steps
	// (contractState.lineText).
	lineText func(int) string
	// planOf gives a run's dependency plan (contractState.planOf), for a
	// rerun from a node (rerun.go) and the stages a skip carries down to
	// (markBlocked); nil judges neither.
	planOf func(*runState) *stagePlan
	// brakeTrips are the retry brakes that tripped across runs, by run and
	// stage index of the check's definition (brake_runs.go); nil when none
	// did.
	brakeTrips map[tripKey]*brakeTrip
}

// definitionOf returns the run's own expected stages when Feed gave it
// some, else def.
func (cfg foldConfig) definitionOf(r *runState, def *Definition) *Definition {
	if n := r.Definition(); n > 0 {
		return (*cfg.defs)[n-1].def
	}
	return def
}

// staleFor is the stall threshold of one stage: its own, else the run-wide.
func (cfg foldConfig) staleFor(sd *StageDef) time.Duration {
	if sd.StaleAfterSeconds != nil {
		return time.Duration(*sd.StaleAfterSeconds) * time.Second
	}
	return cfg.stale
}

// snapshot folds the recorded runs into the health snapshot
// (docs/contract.md, States and Health snapshot; docs/recovery.md), after
// reconciling them with the job log when there is
// one. A first pass gives every run its state (for the counts and the
// verdict) without building reports; the run reports are built one at a
// time as the Snapshot's readers ask for them (foldedRuns).
func (c *contractState) snapshot(src Source) *Snapshot {
	if c.window != nil {
		c.sweepOnce() // the snapshot lists only the runs in the window
	}
	def := c.opts.Definition
	s := c.snapshotHead(src)
	var mismatched map[string]*Inconsistency
	if c.jobLog != nil {
		s.Reconciliation, mismatched = c.reconcile()
	}
	cfg := foldConfig{now: c.opts.Now, stale: time.Duration(s.Options.StaleAfterSeconds) * time.Second,
		margin: time.Duration(def.LeaseMarginSeconds) * time.Second, threshold: def.retryBrake().Threshold, defs: c.defs, lineText: c.lineText, brakeTrips: c.tripsFor(), planOf: c.planOf}
	p := c.firstPass(s, def, cfg, mismatched)
	judged := c.verdict(s, def, cfg, mismatched, &p)
	c.judgeFreshness(s, p.states)
	c.judgeRequests(s) // request_report.go
	f := &foldedRuns{c: c, def: def, cfg: cfg, mismatched: mismatched, judged: judged, states: p.states, latestAt: -1}
	if p.latest != nil && p.latest == p.foldedLatest {
		// The latest run was folded: its copy still gives its report
		// (its run views' Latest, render.Latest), judged at its stub's place in the schedule.
		f.latest = p.latest
		if judged != nil {
			for k, r := range p.judgedRuns {
				if r.ID() == p.latest.ID() {
					f.latestAt = k
					break
				}
			}
		}
	}
	s.runs = f
	return s
}

// snapshotHead is the snapshot before its runs are judged: the versions,
// the moment, the source, the options in force, the run count and the
// warnings.
func (c *contractState) snapshotHead(src Source) *Snapshot {
	def := c.opts.Definition
	s := &Snapshot{
		SchemaVersion:  SnapshotVersion,
		Tool:           toolOf(c.opts),
		GeneratedAtUTC: formatTime(c.opts.Now),
		GeneratedAt:    c.opts.Now.UTC(),
		Source:         src,
		Options: SnapshotOptions{
			StaleAfterSeconds:  c.staleAfter(),
			LeaseMarginSeconds: def.LeaseMarginSeconds,
			RetryBrake:         def.retryBrake(),
			Gate:               c.opts.Gate,
			Stages:             def.Stages,
			InferStages:        c.opts.InferStages,
		},
		RunCount: c.runs.Len(),
		Warnings: append([]Violation{}, c.warnings...),
	}
	if def.Pipeline != "" {
		name := def.Pipeline
		s.Options.Pipeline = &name
	}
	if m := c.opts.maxAgeOf(); m.Duration > 0 {
		secs := int64(m.Duration / time.Second)
		s.Options.MaxAgeSeconds = &secs
	} else {
		s.Options.MaxAgeNone = m.None
	}
	if c.opts.Since > 0 {
		secs := int64(c.opts.Since / time.Second)
		s.Options.SinceSeconds = &secs
	}
	if def.Schedule != nil {
		zero := 0
		s.StateCounts.Overdue = &zero
	}
	return s
}

// foldPass is what the snapshot's first pass learns about the runs: the
// latest run (foldedLatest when it is the window's folded one), whether
// every run succeeded, the live runs and those the schedule judges (with
// the window's stubs: liveAt, stubStates), and every run's state code by
// place (for the runs' heads, runview.Head).
type foldPass struct {
	latest, foldedLatest *runState
	allSucceeded         bool
	live, judgedRuns     []*runState
	liveAt               []int
	states               []uint8
	stubStates           map[*runState]RunState
}

// firstPass gives every run its state and counts it into s (with the
// window's folded runs), and finds the latest run. Without a schedule or a
// window, the runs are judged from their heads (lazyStates): a run a
// checkpoint holds is decoded only when its state may have changed since.
func (c *contractState) firstPass(s *Snapshot, def *Definition, cfg foldConfig, mismatched map[string]*Inconsistency) foldPass {
	w := c.window
	p := foldPass{allSucceeded: true}
	if def.Schedule == nil && w == nil {
		var at int
		p.states, at, p.allSucceeded = c.lazyStates(def, cfg, mismatched, &s.StateCounts)
		if at >= 0 {
			p.latest = c.runs.At(at)
			id := p.latest.ID()
			s.LatestRunID = &id
		}
	} else {
		p.live = c.runs.Runs()
		p.judgedRuns = p.live
		p.states = make([]uint8, 0, len(p.live))
	}
	if w != nil {
		s.RunCount += w.total
		s.StateCounts.Failed += w.counts.Failed
		s.StateCounts.Cancelled += w.counts.Cancelled
		s.StateCounts.Incomplete += w.counts.Incomplete
		s.StateCounts.Succeeded += w.counts.Succeeded
		p.allSucceeded = w.counts.Succeeded == w.total
		p.latest, p.foldedLatest = w.latest, w.latest
		cutoff, _ := c.cutoff()
		s.Window = w.report(cutoff)
		if def.Schedule != nil && len(w.stubs) > 0 {
			p.judgedRuns, p.liveAt, p.stubStates = w.scheduleRuns(p.live)
		}
	}
	for _, run := range p.live { // (empty when lazy)
		// The latest run is the one whose logical time (scheduled_for,
		// else its first event) is latest. Ties go to the later line: the
		// store is in line order, and a folded run (the window's latest)
		// is compared by its line.
		if l := p.latest; l == nil || run.LogicalAt().After(l.LogicalAt()) || (run.LogicalAt().Equal(l.LogicalAt()) && (l != p.foldedLatest || run.FirstLine() > l.FirstLine())) {
			p.latest = run
		}
		state := scheduledState(run, def, cfg, mismatched[run.ID()] != nil)
		if state != RunSucceeded {
			p.allSucceeded = false
		}
		p.states = append(p.states, countState(&s.StateCounts, state))
	}
	if c.opts.Since > 0 {
		p.allSucceeded = c.succeededSince(p.states)
	}
	return p
}

// countState counts a run in state into counts and returns the state's
// code.
func countState(counts *StateCounts, state RunState) uint8 {
	switch state {
	case RunUnknown:
		counts.Unknown++
	case RunFailed:
		counts.Failed++
		return stateFailed
	case RunCancelled:
		counts.Cancelled++
		return stateCancelled
	case RunStalled:
		counts.Stalled++
		return stateStalled
	case RunOverdue:
		*counts.Overdue++
		return stateOverdue
	case RunRunning:
		counts.Running++
		return stateRunning
	case RunIncomplete:
		counts.Incomplete++
		return stateIncomplete
	case RunSucceeded:
		counts.Succeeded++
		return stateSucceeded
	}
	return stateUnknown
}

// verdict sets s's verdict and latest run from the first pass: with a
// schedule, the schedule's judgement (which it returns; nil without one),
// else every run succeeded (gate all) or the latest and every run after it
// did (gate latest).
func (c *contractState) verdict(s *Snapshot, def *Definition, cfg foldConfig, mismatched map[string]*Inconsistency, p *foldPass) *scheduleJudgement {
	s.Verdict = VerdictUnhealthy
	sched := def.Schedule
	if sched == nil {
		if p.latest != nil {
			id := p.latest.ID()
			s.LatestRunID = &id
			healthy := p.allSucceeded
			if c.opts.Gate == GateLatest {
				healthy = runStateOf(p.latest, def, cfg, mismatched[p.latest.ID()] != nil) == RunSucceeded && c.succeededAfter(p.latest, p.states)
			}
			if healthy {
				s.Verdict = VerdictHealthy
			}
		}
		return nil
	}
	judged := judgeSchedule(sched, p.judgedRuns, c.opts.Now, c.skew)
	judged.doubleExecutions(def, p.judgedRuns)
	judged.liveAt = p.liveAt
	s.Schedule = judged.report
	if p.latest != nil {
		id := p.latest.ID()
		s.LatestRunID = &id
	}
	if judged.healthy(c.opts.Gate, p.judgedRuns, p.latest, p.allSucceeded, func(r *runState) RunState {
		if st, ok := p.stubStates[r]; ok {
			return st
		}
		return scheduledState(r, def, cfg, mismatched[r.ID()] != nil)
	}) {
		s.Verdict = VerdictHealthy
	}
	// A double execution of a non-idempotent stage makes its slot
	// unhealthy: under gate all any slot, under gate latest the latest.
	if n := len(judged.report.DoubleExecutions); n > 0 && (c.opts.Gate != GateLatest || judged.doubleInLatest()) {
		s.Verdict = VerdictUnhealthy
	}
	return judged
}

// judgeFreshness sets s's freshness (docs/contract.md): the newest
// succeeded run's last event, among the listed runs (states, by place)
// and the window's folded ones; a stale pipeline is unhealthy.
func (c *contractState) judgeFreshness(s *Snapshot, states []uint8) {
	var successAt time.Time
	successID := ""
	for p, code := range states {
		if code != stateSucceeded {
			continue
		}
		if h := c.runs.HeadAt(p); h.LastAt().After(successAt) {
			successAt, successID = h.LastAt(), h.ID
		}
	}
	if w := c.window; w != nil && w.lastSuccess.After(successAt) {
		successAt, successID = w.lastSuccess, ""
	}
	s.Freshness = c.opts.freshness(successID, successAt, c.opts.Now)
	if s.Freshness.Stale {
		s.Verdict = VerdictUnhealthy
	}
}

// succeededSince says gate all under --since is met by the runs: at least
// one run's logical time is within opts.Since before now, and every such
// run succeeded; states are the runs' state codes by place. A window
// folds only runs that succeeded, so the listed runs are the ones that can
// fail it.
func (c *contractState) succeededSince(states []uint8) bool {
	from := c.opts.Now.Add(-c.opts.Since)
	sec, nsec := from.Unix(), int32(from.Nanosecond())
	n := 0
	for p, code := range states {
		lsec, lnsec, _ := c.runs.Logical(p)
		if lsec < sec || (lsec == sec && lnsec < nsec) {
			continue
		}
		if code != stateSucceeded {
			return false
		}
		n++
	}
	return n > 0
}

// succeededAfter says every run of the store that started after latest
// (its first event later, ties to the later line) succeeded; states are
// the runs' state codes by place. Gate latest without a schedule judges
// them with the latest run by logical time (docs/contract.md, "Which run
// latest judges"): a run that names an older slot than latest's but
// started after it (a backfill) is evidence too, and a failed rerun that
// names its slot is never hidden by a run whose first event came seconds
// after that slot.
func (c *contractState) succeededAfter(latest *runState, states []uint8) bool {
	at, line := latest.FirstAt(), latest.FirstLine()
	sec, nsec := at.Unix(), int32(at.Nanosecond())
	for p, code := range states {
		if code == stateSucceeded {
			continue
		}
		fsec, fnsec, _ := c.runs.Brief(p)
		if fsec > sec || (fsec == sec && (fnsec > nsec || (fnsec == nsec && c.runs.HeadAt(p).FirstLine > line))) {
			return false
		}
	}
	return true
}

// lazyStates judges every run of a check without a schedule or a window in
// one pass over their heads (runstore.Head), counting them into counts: a
// run whose head keeps a state no now changes (a checkpoint's, of a run no
// event touched since) and that the job log did not contradict takes it,
// every other run is judged at the check's now, as a full check would.
// It returns the runs' state codes, the place of the latest run (-1
// without runs; its logical time, ties to the later line) and whether every
// run succeeded.
func (c *contractState) lazyStates(def *Definition, cfg foldConfig, mismatched map[string]*Inconsistency, counts *StateCounts) (states []uint8, latest int, allSucceeded bool) {
	n := c.runs.Len()
	states = make([]uint8, n)
	latest, allSucceeded = -1, true
	var sec int64
	var nsec int32
	for p := range n {
		_, _, code := c.runs.Brief(p)
		fsec, fnsec, _ := c.runs.Logical(p)
		if latest < 0 || fsec > sec || (fsec == sec && fnsec >= nsec) {
			latest, sec, nsec = p, fsec, fnsec
		}
		if code == runstore.NoCode || (len(mismatched) > 0 && mismatched[c.runs.IDAt(p)] != nil) {
			run := c.runs.At(p)
			code = codeOf(runStateOf(run, def, cfg, mismatched[run.ID()] != nil))
		}
		states[p] = code
		switch code {
		case stateUnknown:
			counts.Unknown++
		case stateFailed:
			counts.Failed++
		case stateCancelled:
			counts.Cancelled++
		case stateStalled:
			counts.Stalled++
		case stateRunning:
			counts.Running++
		case stateIncomplete:
			counts.Incomplete++
		case stateSucceeded:
			counts.Succeeded++
		}
		if code != stateSucceeded {
			allSucceeded = false
		}
	}
	return states, latest, allSucceeded
}

// foldedRuns builds a snapshot's run reports from the fold's run states, one
// at a time as they are asked for.
type foldedRuns struct {
	c          *contractState
	def        *Definition
	cfg        foldConfig
	mismatched map[string]*Inconsistency
	judged     *scheduleJudgement
	// states are the runs' states as the snapshot counted them (the state
	// their reports have), a code of runStateCodes each.
	states []uint8
	// latest is the window's copy of the latest run when a window folded
	// it (else nil), and latestAt its place among the schedule's judged
	// runs (-1 without a schedule).
	latest   *runState
	latestAt int
}

// foldedLatest returns the report of the latest run when a window folded
// it, as a full check would build it; false when it was not folded.
func (f *foldedRuns) foldedLatest() (RunReport, bool) {
	run := f.latest
	if run == nil {
		return RunReport{}, false
	}
	var rr RunReport
	foldRun(&rr, run, f.cfg.definitionOf(run, f.def), f.c.planOf(run), f.cfg, f.mismatched[run.ID()], nil)
	if f.judged != nil && f.latestAt >= 0 {
		f.judged.annotate(&rr, f.latestAt, run, f.def.Schedule, f.c.opts.Now)
	}
	return rr, true
}

func (f *foldedRuns) count() int      { return f.c.runs.Len() }
func (f *foldedRuns) id(i int) string { return f.c.runs.IDAt(i) }

func (f *foldedRuns) head(i int) runview.Head {
	h := f.c.runs.HeadAt(i)
	return runview.Head{RunID: h.ID, State: string(runStateCodes[f.states[i]]), FirstEvent: h.FirstAt(), LastEvent: h.LastAt(), FirstLine: h.FirstLine}
}

func (f *foldedRuns) order(i int) (time.Time, int, bool) {
	sec, nsec, line := f.c.runs.Logical(i)
	return time.Unix(sec, int64(nsec)).UTC(), line, f.states[i] == stateSucceeded
}

func (f *foldedRuns) attempts(i int) int { return f.c.runs.HeadAt(i).Attempts }

// decodeAll decodes every run a checkpoint holds, for a reader of every
// report (Runs, Collect, encodeRuns): after it, report reads the store only,
// from any goroutine.
func (f *foldedRuns) decodeAll() {
	defer asCheckpointError()
	f.c.runs.DecodeAll()
}

// run is run i, decoded when a checkpoint holds it.
func (f *foldedRuns) run(i int) *runState {
	defer asCheckpointError()
	return f.c.runs.At(i)
}

// asCheckpointError turns the panic of a checkpoint's run that does not
// decode when a reader of the snapshot first reads it, after Check
// returned (*runstore.DamagedError), into a panic with a *CheckpointError,
// which the shell reports as a damaged checkpoint (exit 2); any other panic
// goes on.
func asCheckpointError() {
	if r := recover(); r != nil {
		if d, ok := r.(*runstore.DamagedError); ok {
			panic(damaged(d.Fault))
		}
		panic(r)
	}
}

func (f *foldedRuns) report(i int, ar *reportArena, rr *RunReport) {
	run := f.run(i)
	def := f.cfg.definitionOf(run, f.def)
	foldRun(rr, run, def, f.c.planOf(run), f.cfg, f.mismatched[run.ID()], ar)
	if f.judged != nil {
		sched := f.def.Schedule
		f.judged.annotate(rr, f.judged.at(i), run, sched, f.c.opts.Now)
		if rr.State == RunOverdue {
			rr.Recovery = recoveryFor(rr, def, nil, f.cfg.lineText) // the run's own stages, as foldRun's
		}
	}
}

// liveState tells an attempt's status at now: while it has no outcome,
// running, or stalled once its lease (lease_expires_at of its latest
// started/heartbeat) is more than margin past, or, without a lease, once it
// has been silent for longer than stale (never for a stream or service fed
// as never stalling); else its logged status.
func liveState(a *attemptState, now time.Time, stale, margin time.Duration) StageState {
	if a.Status() != StatusStarted {
		return StageState(a.Status().String())
	}
	stalled := now.Sub(a.LastAt()) > stale && !a.NeverStalls()
	if a.HasRecovery() && !a.NeverStalls() {
		if lease := a.Recovery().Lease; !lease.IsZero() {
			stalled = now.After(lease.Add(margin))
		}
	}
	if stalled {
		return StageStalled
	}
	return StageRunning
}

// stageState is the state of stage i of the run, blocked aside: pending
// without attempts, else its latest attempt's effective outcome (a
// resolution or a job-log adjudication wins over what the orchestrator
// logged), else running or stalled.
func stageState(run *runState, i int, def *Definition, cfg foldConfig) StageState {
	atts := run.Attempts(i)
	if len(atts) == 0 {
		return StagePending
	}
	last := &atts[len(atts)-1]
	if cfg.planOf != nil && rerunDue(run, i, last, cfg.planOf(run)) {
		return StagePending // to run again in the rerun from an upstream stage
	}
	if o := last.Outcome(); o != StatusStarted {
		return StageState(o.String())
	}
	return liveState(last, cfg.now, cfg.staleFor(&def.Stages[i]), cfg.margin)
}

// runRank is the precedence of the stage states that decide a run's state:
// unknown > failed > cancelled > stalled > running; every other state ranks
// 0. The fold takes the run's state from it; it follows runview.Precedence,
// the list the renderers read (TestRunRankFollowsRunPrecedence holds the
// two together). A switch, not a map: it is asked once per stage of every
// run.
func runRank(st StageState) int {
	switch st {
	case StageUnknown:
		return 5
	case StageFailed:
		return 4
	case StageCancelled:
		return 3
	case StageStalled:
		return 2
	case StageRunning:
		return 1
	}
	return 0
}

// runStateOf gives the run's state: the first of unknown > failed >
// cancelled > stalled > running that its stages show, else incomplete when
// a stage has neither succeeded nor been skipped (by its own skipped event,
// or because a stage it depends on was: markBlocked), else succeeded. A job-log OUTCOME_MISMATCH
// (mismatch) makes it unknown.
func runStateOf(run *runState, def *Definition, cfg foldConfig, mismatch bool) RunState {
	if mismatch {
		return RunUnknown
	}
	def = cfg.definitionOf(run, def) // a run fed with its own stages (Feed)
	var rs runStates
	skipped := false
	for i := range def.Stages {
		st := stageState(run, i, def, cfg)
		skipped = skipped || st == StageSkipped
		rs.add(st)
	}
	if skipped && rs.st == RunIncomplete && cfg.planOf != nil {
		// A pending stage may be downstream of the skip, and so skipped
		// too: judge the stages as a run report does (markBlocked).
		stages := make([]StageReport, len(def.Stages))
		for i := range stages {
			stages[i].State = stageState(run, i, def, cfg)
		}
		markBlocked(&RunReport{Stages: stages}, cfg.planOf(run))
		rs = runStates{}
		for i := range stages {
			rs.add(stages[i].State)
		}
	}
	return closedState(run, rs.state())
}

// closedState is the state st of a run whose stages all succeeded, or
// incomplete when its close is not RUN_ARCHIVED (docs/recovery.md, The
// run's close): the run was not finished, whatever its stages say. Any
// other state stays: its stages' trouble comes first.
func closedState(run *runState, st RunState) RunState {
	if st == RunSucceeded && closeOpen(run) {
		return RunIncomplete
	}
	return st
}

// runStates folds a run's stage states, in their order, into its state as
// runStateOf gives it (which a run report takes from the stage states it
// has already, not by asking each stage again).
type runStates struct {
	st   RunState // "" for succeeded, until a stage says otherwise
	best int      // the highest runRank so far
}

func (rs *runStates) add(st StageState) {
	if r := runRank(st); r > rs.best {
		rs.st, rs.best = RunState(st), r // a deciding stage state names its run state
	} else if rs.best == 0 && st != StageSucceeded && st != StageSkipped {
		rs.st = RunIncomplete
	}
}

func (rs *runStates) state() RunState {
	if rs.st == "" {
		return RunSucceeded
	}
	return rs.st
}

// reportArena is reusable storage for run reports built one after another
// (Snapshot.Runs, encodeRuns): the slices and values a report points into are
// carved from it, so a report built into it is valid only until the next
// one is. A nil arena allocates each report on its own.
type reportArena struct {
	rr       RunReport // the report itself, which enc and yield get a pointer to
	times    timeTexts
	stages   []StageReport
	attempts []AttemptReport
	boxes    []attemptBox
	// transient says that nothing keeps a report's strings past the next
	// report (encodeRuns): its time texts then live in storage the next
	// report reuses (timeTexts.transient), so building a report allocates
	// nothing once the arena has grown.
	transient bool
}

// attemptBox holds the values an AttemptReport points at, in one place.
type attemptBox struct {
	ended       string
	dur, silent float64
	rc          int64
	err         string
}

// reset makes the arena's storage available to the next report. A
// transient arena's last report and the storage it used are cleared
// first, so that no string of it is left pointing at the time text the
// next report overwrites (and take need not clear them again).
func (ar *reportArena) reset() {
	if ar == nil {
		return
	}
	if ar.transient {
		ar.rr = RunReport{}
		clear(ar.stages)
		clear(ar.attempts)
		clear(ar.boxes)
		ar.times.transient = true
	}
	ar.stages, ar.attempts, ar.boxes = ar.stages[:0], ar.attempts[:0], ar.boxes[:0]
}

// take returns n zeroed elements carved from *pool, or freshly allocated
// ones without an arena. When the pool is full it starts a larger one;
// slices already handed out keep the old one alive. zeroed says that the
// pool's elements past its length are zero already (a transient arena's
// reset cleared them), so that they are not cleared twice.
func take[T any](pool *[]T, n int, zeroed bool) []T {
	if pool == nil {
		return make([]T, n)
	}
	if n == 0 {
		return []T{} // never nil: a report's empty list is [] in JSON, not null
	}
	p := *pool
	if cap(p)-len(p) < n {
		p = make([]T, 0, max(2*cap(p), n, 16))
	}
	out := p[len(p) : len(p)+n : len(p)+n]
	if !zeroed {
		clear(out)
	}
	*pool = p[:len(p)+n]
	return out
}

// foldRun builds the report of one run in *rr: its state, its stages (a stage never
// started is blocked when a stage it depends on failed, is unknown, was
// cancelled or is blocked, else pending), and its recovery action. plan is
// def's dependencies as stage indexes. With an arena the report lives in the
// arena's storage (see reportArena).
func foldRun(rr *RunReport, run *runState, def *Definition, plan *stagePlan, cfg foldConfig, mismatch *Inconsistency, ar *reportArena) {
	ar.reset()
	var stagePool *[]StageReport
	var attemptPool *[]AttemptReport
	var boxPool *[]attemptBox
	zeroed := false
	if ar != nil {
		stagePool, attemptPool, boxPool, zeroed = &ar.stages, &ar.attempts, &ar.boxes, ar.transient
	}
	var times *timeTexts
	if ar != nil {
		times = &ar.times
		times.reset()
	} else {
		times = new(timeTexts)
	}
	first, last := run.FirstAt(), run.LastAt()
	*rr = RunReport{
		RunID:           run.ID(),
		DurationSeconds: secondsBetween(first, last),
		FirstLine:       run.FirstLine(),
		Stages:          take(stagePool, len(def.Stages), zeroed),
	}
	var rs runStates // runStateOf from the stage states below
	for i := range def.Stages {
		sd := &def.Stages[i]
		atts := run.Attempts(i)
		sr := &rr.Stages[i]
		*sr = StageReport{Stage: sd.ID, Name: sd.Name, State: stageState(run, i, def, cfg), AttemptCount: len(atts), Attempts: take(attemptPool, len(atts), zeroed)}
		rs.add(sr.State)
		boxes := take(boxPool, len(atts), zeroed)
		for k := range atts {
			attemptReport(&sr.Attempts[k], &boxes[k], times, int64(k+1), &atts[k], cfg, cfg.staleFor(sd))
		}
		b := tripBrake(atts, cfg.threshold) // only a tripped brake allocates
		if b == nil && len(atts) > 0 && cfg.brakeTrips != nil && run.Definition() == 0 {
			b = cfg.brakeTrips[tripKey{run.ID(), i}] // failures of earlier runs count too
		}
		if b != nil {
			reason := b.String()
			sr.StatusReason, sr.brake, sr.BrakeRuns = &reason, b, b.Runs
		}
	}
	rr.State = closedState(run, rs.state())
	if mismatch != nil {
		rr.State = RunUnknown
	}
	rr.Close = closeReport(run)
	// A run's first and last events are some attempt's start and end.
	f0, f1 := times.span(first)
	l0, l1 := times.span(last)
	text := times.done()
	rr.FirstEventAt, rr.LastEventAt = text[f0:f1], text[l0:l1]
	rr.FirstEvent, rr.LastEvent = first, last
	if lt := run.LogicalAt(); !lt.Equal(first) {
		v := formatTime(lt)
		rr.LogicalAt, rr.Logical = &v, lt.UTC()
	}
	if markBlocked(rr, plan) && mismatch == nil {
		// A skip carried down turned pending stages into skipped ones,
		// which may make the run succeeded (runStateOf does the same).
		rs = runStates{}
		for i := range rr.Stages {
			rs.add(rr.Stages[i].State)
		}
		rr.State = closedState(run, rs.state())
	}
	rr.Recovery = recoveryFor(rr, def, mismatch, cfg.lineText)
}

// markBlocked turns pending stages into blocked ones when a stage they depend
// on failed, is unknown, was cancelled or is itself blocked, and else into
// skipped ones when a stage they depend on was skipped: Airflow's default
// trigger rule all_success, under which a task is upstream_failed when an
// upstream task failed and skipped when one was skipped
// (https://airflow.apache.org/docs/apache-airflow/stable/core-concepts/dags.html#trigger-rules).
// A stage that logged keeps its own state. It visits the stages once, in
// the plan's topological order, so every dependency's state is final when
// its dependents are looked at: linear in stages plus dependencies (a
// fixed-point loop over declared order was cubic when the declared order
// ran against the dependencies). It reports whether it skipped a stage.
func markBlocked(rr *RunReport, plan *stagePlan) (skipped bool) {
	for _, i := range plan.order {
		st := &rr.Stages[i]
		if st.State != StagePending {
			continue
		}
		skip := false
		for _, d := range plan.deps(i) {
			s := rr.Stages[d].State
			if s == StageFailed || s == StageUnknown || s == StageCancelled || s == StageBlocked {
				st.State, skip = StageBlocked, false
				break
			}
			skip = skip || s == StageSkipped
		}
		if skip {
			st.State, skipped = StageSkipped, true
		}
	}
	return skipped
}

// timeTexts formats the times of one run report, each distinct time once
// (the run's first and last events are attempts' starts and ends, so a
// report of a attempts needs about 2a formatted times, not 2a+2), into one
// text: the report's time strings are pieces of one string, one
// allocation a run instead of one a time. set records which string gets
// which piece, span tells a piece; done makes the text and fills them in.
type timeTexts struct {
	n     int
	sec   [8]int64
	nsec  [8]int32
	spans [8][2]int32 // where time i is in buf
	buf   []byte
	fix   []timeFix
	date  dateText // the date part of the last day formatted, kept by reset
	// transient makes done's text a view of buf, which the next report
	// overwrites, instead of a copy (reportArena.transient).
	transient bool
}

// timeFix is a string that is to hold buf[from:to].
type timeFix struct {
	dst      *string
	from, to int32
}

// reset makes tt ready for another run report, keeping its storage.
func (tt *timeTexts) reset() {
	tt.n, tt.buf, tt.fix = 0, tt.buf[:0], tt.fix[:0]
}

// set has done fill *dst with formatTime(t).
func (tt *timeTexts) set(dst *string, t time.Time) {
	from, to := tt.span(t)
	tt.fix = append(tt.fix, timeFix{dst, from, to})
}

// span returns where formatTime(t) is in the text done returns.
func (tt *timeTexts) span(t time.Time) (from, to int32) {
	sec, nsec := t.Unix(), int32(t.Nanosecond())
	for i := range tt.n {
		if tt.sec[i] == sec && tt.nsec[i] == nsec {
			return tt.spans[i][0], tt.spans[i][1]
		}
	}
	from = int32(len(tt.buf))
	tt.buf = appendTimeDated(tt.buf, t, &tt.date)
	to = int32(len(tt.buf))
	if tt.n < len(tt.sec) {
		tt.sec[tt.n], tt.nsec[tt.n], tt.spans[tt.n] = sec, nsec, [2]int32{from, to}
		tt.n++
	}
	return from, to
}

// done fills in the strings set asked for and returns the text. It is a
// new string, so the report's strings outlive the storage tt reuses.
func (tt *timeTexts) done() string {
	var text string
	if tt.transient {
		// reportArena.reset clears every string of this text before
		// buf is written again.
		text = unsafe.String(unsafe.SliceData(tt.buf), len(tt.buf))
	} else {
		text = string(tt.buf)
	}
	for _, f := range tt.fix {
		*f.dst = text[f.from:f.to]
	}
	clear(tt.fix) // keeps no pool the arena has since replaced alive
	tt.fix = tt.fix[:0]
	return text
}

// attemptReport fills ar, a zeroed report, with attempt n; the values ar
// points at are kept in box, and times are formatted through times.
func attemptReport(ar *AttemptReport, box *attemptBox, times *timeTexts, n int64, a *attemptState, cfg foldConfig, stale time.Duration) {
	started, last := a.StartedAt(), a.LastAt()
	// ar is zeroed: set field by field, not as a whole struct written again.
	ar.Attempt, ar.Status, ar.Started, ar.Line = n, string(liveState(a, cfg.now, stale, cfg.margin)), started, a.LastLine()
	times.set(&ar.StartedAt, started)
	var x runstore.AttemptRecovery // read once, and only when there is one
	if a.HasRecovery() {
		x = a.Recovery()
	}
	switch {
	case x.JobOutcome != 0:
		ar.Status = x.JobOutcome.String()
		box.ended, ar.Ended = formatTime(x.JobAt), x.JobAt.UTC()
		box.dur = max(x.JobAt.Sub(started).Seconds(), 0)
		ar.EndedAt, ar.DurationSeconds = &box.ended, &box.dur
		from, line := "job_log", x.JobLine
		ar.AdjudicatedFrom, ar.JobLogLine = &from, &line
	case a.Status() == StatusStarted:
		silent := cfg.now.Sub(last)
		if silent < 0 {
			silent = 0
		}
		box.silent = silent.Seconds()
		ar.SilentForSeconds = &box.silent
		ar.StaleCandidate = ar.Status == StageStalled
	case a.Status() == StatusUnknown:
	default:
		times.set(&box.ended, last)
		ar.Ended = last
		box.dur = secondsBetween(started, last)
		ar.EndedAt, ar.DurationSeconds = &box.ended, &box.dur
	}
	if rc, ok := a.Returncode(); ok {
		box.rc = rc
		ar.Returncode = &box.rc
	}
	if text, ok := a.ErrorText(); ok {
		box.err = text
		ar.Error = &box.err
	}
	if !a.HasRecovery() {
		return
	}
	ar.AttemptID = optString(x.AttemptID)
	ar.Owner = optString(x.Owner)
	ar.ErrorCode = optString(x.ErrorCode)
	if !x.Lease.IsZero() {
		l := formatTime(x.Lease)
		ar.LeaseExpiresAt = &l
	}
	ar.Reason = optString(x.Reason)
	if r := x.Resolution; r != nil {
		ar.Resolution = &ResolutionReport{
			Resolution: r.Outcome.String(), Reason: r.Reason, EvidenceRef: r.EvidenceRef, ResolvedBy: r.ResolvedBy,
			ApprovedBy: optString(r.ApprovedBy), ResolvedAt: formatTime(r.At), Line: r.Line,
		}
	}
	if t := x.Takeover; t != nil {
		tr := &TakeoverReport{Outcome: t.Outcome.String(), Owner: optString(t.Owner), StopConfirmedBy: t.ConfirmedBy,
			StopEvidenceRef: t.EvidenceRef, StopMethod: t.Method, TakenOverAt: formatTime(t.At), Line: t.Line}
		if t.AdvancedLine > 0 {
			n := t.AdvancedLine
			tr.HeartbeatAdvancedLine = &n
		}
		ar.Takeover = tr
	}
}

// secondsBetween is to.Sub(from).Seconds() for times without a monotonic
// clock reading (the store's), without Sub's check for an overflow when
// the two are less than 285 years apart and it cannot overflow: a run
// report takes one for each of its attempts. TestSecondsBetween holds it
// to Sub.
func secondsBetween(from, to time.Time) float64 {
	if ds := to.Unix() - from.Unix(); ds > -9e9 && ds < 9e9 {
		return (time.Duration(ds)*time.Second + time.Duration(to.Nanosecond()-from.Nanosecond())).Seconds()
	}
	return to.Sub(from).Seconds()
}

// optString is s, or nil when it is empty (a field the log did not give).
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optInt is n, or nil when it is 0 (a line or count the log did not give).
func optInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
