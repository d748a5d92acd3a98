package checker

import "time"

// Slot statuses in a ScheduleReport.
const (
	// slotOnTime: a run filled the slot and started within the grace.
	slotOnTime = "on_time"
	// slotLate: the run claimed the slot by scheduled_for but started after
	// the grace; reported, not unhealthy by itself.
	slotLate = "late"
	// slotMissed: no run filled the slot; the verdict is unhealthy.
	slotMissed = "missed"
)

// How a run came to fill a slot.
const (
	claimScheduledFor = "scheduled_for" // an event of the run names the slot
	claimWindow       = "window"        // its first event is within the slot's grace
)

// ScheduleReport is the schedule section of a snapshot, present only when the
// pipeline definition has a schedule. Times are RFC 3339 UTC strings and
// durations seconds.
type ScheduleReport struct {
	Cron              *string        `json:"cron"`
	EverySeconds      *int64         `json:"every_seconds"`
	Timezone          string         `json:"timezone"`
	StartGraceSeconds int64          `json:"start_grace_seconds"`
	MaxRuntimeSeconds *int64         `json:"max_runtime_seconds"`
	LookbackSlots     int            `json:"lookback_slots"`
	Since             *string        `json:"since"`
	ExpectedSlots     int            `json:"expected_slots"`
	Slots             []SlotReport   `json:"slots"`
	Missed            []MissedSlot   `json:"missed"`
	Late              []LateRun      `json:"late"`
	Early             []EarlyRun     `json:"early"`
	Duplicates        []DuplicateRun `json:"duplicates"`
	// DoubleExecutions are the duplicates that ran a stage declared
	// idempotent: false as the run that fills the slot did.
	DoubleExecutions []DoubleExecution `json:"double_executions"`
	Unscheduled      []UnscheduledRun  `json:"unscheduled"`
	NextSlot         *string           `json:"next_slot"`
	NextDueAt        *string           `json:"next_due_at"`
}

// SlotReport is one judged slot: when the run was due to start, by when it
// had to (DueAt = ScheduledFor + start grace), and the run that filled it.
type SlotReport struct {
	ScheduledFor string  `json:"scheduled_for"`
	DueAt        string  `json:"due_at"`
	Status       string  `json:"status"`
	RunID        *string `json:"run_id"`
	ClaimedBy    *string `json:"claimed_by"`
}

// MissedSlot is a judged slot that no run filled.
type MissedSlot struct {
	ScheduledFor string `json:"scheduled_for"`
	DueAt        string `json:"due_at"`
	// Slot is ScheduledFor as a value (UTC).
	Slot time.Time `json:"-"`
}

// LateRun is a run that claimed its slot by scheduled_for but whose first
// event came after the slot's due time, by LateBySeconds.
type LateRun struct {
	ScheduledFor  string  `json:"scheduled_for"`
	RunID         string  `json:"run_id"`
	FirstEventAt  string  `json:"first_event_at"`
	LateBySeconds float64 `json:"late_by_seconds"`
	// Slot is ScheduledFor as a value (UTC).
	Slot time.Time `json:"-"`
}

// EarlyRun is a run whose scheduled_for names a slot its first event came
// before, by EarlyBySeconds, more than the allowed clock skew: it did not run
// for that slot, so it fills none (outside review).
type EarlyRun struct {
	ScheduledFor   string  `json:"scheduled_for"`
	RunID          string  `json:"run_id"`
	FirstEventAt   string  `json:"first_event_at"`
	EarlyBySeconds float64 `json:"early_by_seconds"`
	// Slot is ScheduledFor as a value (UTC).
	Slot time.Time `json:"-"`
}

// DuplicateRun is a second run for a slot another run already fills (a
// duplicate trigger): reported, not a violation.
type DuplicateRun struct {
	ScheduledFor string `json:"scheduled_for"`
	RunID        string `json:"run_id"`
	FilledBy     string `json:"filled_by"`
	// Slot is ScheduledFor as a value (UTC).
	Slot time.Time `json:"-"`
}

// UnscheduledRun is a run that claims no slot and whose first event is
// outside every slot's window; it fills no slot.
type UnscheduledRun struct {
	RunID        string `json:"run_id"`
	FirstEventAt string `json:"first_event_at"`
}

// claim is the slot a run fills and how; ok is false for a run that claims
// no slot. early marks a run whose scheduled_for names slot although its
// first event came before it (ok is then false).
type claim struct {
	slot  time.Time
	by    string
	ok    bool
	early bool
}

// runClaim finds the slot a run fills: the one an event names in
// scheduled_for when that is a slot, else the window its first event falls
// in. A run cannot have run for a slot it started before: a scheduled_for
// slot more than skew after the run's first event is an early claim, and the
// run fills no slot at all (its own scheduled_for contradicts every window).
func (s *Schedule) runClaim(run *runState, skew time.Duration) claim {
	if slot, _, ok := run.ScheduledFor(); ok && s.isSlot(slot) {
		if run.FirstAt().Before(slot.Add(-skew)) {
			return claim{slot: slot, early: true}
		}
		return claim{slot, claimScheduledFor, true, false}
	}
	if w, ok := s.windowSlot(run.FirstAt()); ok {
		return claim{w, claimWindow, true, false}
	}
	return claim{}
}

// scheduleJudgement is the schedule section of a snapshot with what the
// run reports and the verdict need: each run's claim (indexed like the
// runs) and the index of the latest run of the latest judged slot (-1 when
// it was missed or no slot was judged).
type scheduleJudgement struct {
	report     *ScheduleReport
	claims     []claim
	latestSlot int
	// after are the indexes of the runs that fill no slot and started
	// after the latest judged slot's run, which gate latest judges too.
	after []int
	// liveAt maps the index of a run of the store to its index among the
	// judged runs, when a window's folded runs are judged too (nil: the
	// same index).
	liveAt []int
}

// at is the index among the judged runs of run i of the store.
func (j *scheduleJudgement) at(i int) int {
	if j.liveAt == nil {
		return i
	}
	return j.liveAt[i]
}

// judgeSchedule matches runs (in line order) to the schedule's slots at now.
// For each slot one run fills it: a scheduled_for claim before a window
// claim, then the earlier line; the others are duplicates. skew is the
// allowed clock skew, which an early claim must exceed.
func judgeSchedule(s *Schedule, runs []*runState, now time.Time, skew time.Duration) *scheduleJudgement {
	sr := newScheduleReport(s)
	j := &scheduleJudgement{report: sr, claims: make([]claim, len(runs)), latestSlot: -1}
	// filled maps a slot (Unix nanoseconds) to the index of its run, and
	// latestOf to the index of the latest run that claims it (the latest
	// first event, ties to the later line, as gate latest picks a run).
	filled := map[int64]int{}
	latestOf := map[int64]int{}
	for i, run := range runs {
		cl := s.runClaim(run, skew)
		j.claims[i] = cl
		if cl.early {
			sr.Early = append(sr.Early, EarlyRun{ScheduledFor: formatTime(cl.slot), Slot: cl.slot.UTC(), RunID: run.ID(), FirstEventAt: formatTime(run.FirstAt()), EarlyBySeconds: cl.slot.Sub(run.FirstAt()).Seconds()})
			continue
		}
		if !cl.ok {
			sr.Unscheduled = append(sr.Unscheduled, UnscheduledRun{RunID: run.ID(), FirstEventAt: formatTime(run.FirstAt())})
			continue
		}
		key := cl.slot.UnixNano()
		if k, taken := filled[key]; !taken || (cl.by == claimScheduledFor && j.claims[k].by == claimWindow) {
			filled[key] = i
		}
		if k, seen := latestOf[key]; !seen || !run.FirstAt().Before(runs[k].FirstAt()) {
			latestOf[key] = i
		}
	}
	for i, cl := range j.claims {
		if !cl.ok {
			continue
		}
		k := filled[cl.slot.UnixNano()]
		if k != i {
			sr.Duplicates = append(sr.Duplicates, DuplicateRun{ScheduledFor: formatTime(cl.slot), Slot: cl.slot.UTC(), RunID: runs[i].ID(), FilledBy: runs[k].ID()})
			continue
		}
		if due := cl.slot.Add(s.grace()); cl.by == claimScheduledFor && runs[i].FirstAt().After(due) {
			sr.Late = append(sr.Late, LateRun{ScheduledFor: formatTime(cl.slot), Slot: cl.slot.UTC(), RunID: runs[i].ID(), FirstEventAt: formatTime(runs[i].FirstAt()), LateBySeconds: runs[i].FirstAt().Sub(due).Seconds()})
		}
	}
	sortBySlot(sr.Duplicates, func(d DuplicateRun) time.Time { return d.Slot })
	sortBySlot(sr.Late, func(l LateRun) time.Time { return l.Slot })
	sortBySlot(sr.Early, func(e EarlyRun) time.Time { return e.Slot })
	var lastSlot time.Time
	for _, slot := range s.judgedSlots(now) {
		lastSlot = slot
		due := formatTime(slot.Add(s.grace()))
		row := SlotReport{ScheduledFor: formatTime(slot), DueAt: due, Status: slotMissed}
		j.latestSlot = -1
		if i, ok := filled[slot.UnixNano()]; ok {
			j.latestSlot = latestOf[slot.UnixNano()]
			id, by := runs[i].ID(), j.claims[i].by
			row.RunID, row.ClaimedBy, row.Status = &id, &by, slotOnTime
			if by == claimScheduledFor && runs[i].FirstAt().After(slot.Add(s.grace())) {
				row.Status = slotLate
			}
		} else {
			sr.Missed = append(sr.Missed, MissedSlot{ScheduledFor: row.ScheduledFor, DueAt: due, Slot: slot.UTC()})
		}
		sr.Slots = append(sr.Slots, row)
	}
	sr.ExpectedSlots = len(sr.Slots)
	// The runs that fill no slot (unscheduled, early, a duplicate) and
	// started after the latest judged slot's run (or, when it was
	// missed, after the slot) are evidence of the latest work too: gate
	// latest judges them (the DST fall-back night's second 01:30 run,
	// PrefectHQ/prefect #7461), so declaring a schedule never makes the
	// gate greener.
	if len(sr.Slots) > 0 {
		ref := lastSlot
		if j.latestSlot >= 0 {
			ref = runs[j.latestSlot].FirstAt()
		}
		for i, cl := range j.claims {
			fills := cl.ok && filled[cl.slot.UnixNano()] == i
			if i != j.latestSlot && !fills && runs[i].FirstAt().After(ref) {
				j.after = append(j.after, i)
			}
		}
	}
	if next, ok := s.nextSlot(now); ok {
		v, d := formatTime(next), formatTime(next.Add(s.grace()))
		sr.NextSlot, sr.NextDueAt = &v, &d
	}
	return j
}

// newScheduleReport is the report of schedule s before any run is matched:
// the schedule as declared, and empty lists of slots and findings.
func newScheduleReport(s *Schedule) *ScheduleReport {
	sr := &ScheduleReport{
		Timezone:          s.Timezone,
		StartGraceSeconds: s.StartGraceSeconds,
		LookbackSlots:     s.LookbackSlots,
		Slots:             []SlotReport{},
		Missed:            []MissedSlot{},
		Late:              []LateRun{},
		Early:             []EarlyRun{},
		Duplicates:        []DuplicateRun{},
		DoubleExecutions:  []DoubleExecution{},
		Unscheduled:       []UnscheduledRun{},
	}
	if s.Cron != "" {
		c := s.Cron
		sr.Cron = &c
	} else {
		e := s.EverySeconds
		sr.EverySeconds = &e
	}
	if s.MaxRuntimeSeconds > 0 {
		m := s.MaxRuntimeSeconds
		sr.MaxRuntimeSeconds = &m
	}
	if !s.Since.IsZero() {
		v := formatTime(s.Since)
		sr.Since = &v
	}
	return sr
}

// sortBySlot orders xs by slot time, keeping line order within a slot.
func sortBySlot[T any](xs []T, slot func(T) time.Time) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && slot(xs[j]).Before(slot(xs[j-1])); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// healthy is the verdict with a schedule. Gate all: at least one run, no
// judged slot missed and every run succeeded. Gate latest asks the freshness
// question: did the latest run of the latest judged slot succeed, and every
// run that fills no slot but started after it? Its runs
// are the one that fills it and its duplicates, so a later failed rerun is
// never hidden by the run that filled the slot first (outside review). With no
// judged slot yet, gate latest falls back to the latest run.
func (j *scheduleJudgement) healthy(gate Gate, runs []*runState, latest *runState, allSucceeded bool, state func(*runState) RunState) bool {
	if gate == GateLatest {
		if len(j.report.Slots) == 0 {
			return latest != nil && state(latest) == RunSucceeded
		}
		if j.latestSlot < 0 || state(runs[j.latestSlot]) != RunSucceeded {
			return false
		}
		for _, i := range j.after {
			if state(runs[i]) != RunSucceeded {
				return false
			}
		}
		return true
	}
	return len(runs) > 0 && len(j.report.Missed) == 0 && allSucceeded
}

// annotate adds the schedule's view to the report of run i: the slot it
// claims, how far past max_runtime_seconds it is, and the state overdue.
func (j *scheduleJudgement) annotate(rr *RunReport, i int, run *runState, s *Schedule, now time.Time) {
	if cl := j.claims[i]; cl.ok {
		v := formatTime(cl.slot)
		rr.ScheduledFor, rr.Slot = &v, cl.slot.UTC()
	}
	if over, ok := overdueBy(run, s, now); ok {
		secs := over.Seconds()
		rr.OverdueBySeconds = &secs
		if rr.State == RunRunning {
			rr.State = RunOverdue
		}
	}
}

// overdueBy says how far past the schedule's max runtime, counted from its
// first event to now, a run in progress (an attempt without a terminal
// event) is; ok is false when it is not in progress or not past it.
func overdueBy(run *runState, s *Schedule, now time.Time) (time.Duration, bool) {
	if s == nil || s.MaxRuntimeSeconds <= 0 {
		return 0, false
	}
	inProgress := false
	for _, atts := range run.Stages() {
		if len(atts) > 0 && atts[len(atts)-1].Outcome() == StatusStarted {
			inProgress = true
		}
	}
	over := now.Sub(run.FirstAt()) - time.Duration(s.MaxRuntimeSeconds)*time.Second
	return over, inProgress && over > 0
}

// scheduledState is the run's state at now, with overdue (between stalled
// and running) when the schedule has a max runtime the running run is past.
func scheduledState(run *runState, def *Definition, cfg foldConfig, mismatch bool) RunState {
	st := runStateOf(run, def, cfg, mismatch)
	if st == RunRunning {
		if _, over := overdueBy(run, def.Schedule, cfg.now); over {
			return RunOverdue
		}
	}
	return st
}
