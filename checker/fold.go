package checker

import "time"

// staleAfter resolves the stall threshold: the option, else the
// definition's, else DefaultStaleAfterSeconds (seconds).
func (c *contractState) staleAfter() int {
	switch {
	case c.opts.StaleAfterSeconds > 0:
		return c.opts.StaleAfterSeconds
	case c.opts.Definition.StaleAfterSeconds > 0:
		return c.opts.Definition.StaleAfterSeconds
	}
	return DefaultStaleAfterSeconds
}

// snapshot folds the recorded runs into the health snapshot (DESIGN.md §3-4).
// A first pass gives every run its state (for the counts and the verdict)
// without building reports; the run reports are then built all at once, or,
// with Options.StreamRuns, one at a time as Snapshot.EachRun asks for them.
func (c *contractState) snapshot(src Source) *Snapshot {
	def := c.opts.Definition
	stale := c.staleAfter()
	staleDur := time.Duration(stale) * time.Second
	s := &Snapshot{
		SchemaVersion:  SnapshotVersion,
		GeneratedAtUTC: formatTime(c.opts.Now),
		Source:         src,
		Options: SnapshotOptions{
			StaleAfterSeconds: stale,
			Gate:              c.opts.Gate,
			Stages:            def.Stages,
		},
		RunCount: len(c.order),
	}
	if def.Pipeline != "" {
		name := def.Pipeline
		s.Options.Pipeline = &name
	}
	sched := def.Schedule
	if sched != nil {
		zero := 0
		s.StateCounts.Overdue = &zero
	}
	var latest *runState
	allSucceeded := true
	for _, run := range c.order {
		if latest == nil || !run.firstAt.Before(latest.firstAt) {
			latest = run // ties go to the later line: c.order is in line order
		}
		state := scheduledState(run, sched, c.opts.Now, staleDur)
		if state != RunSucceeded {
			allSucceeded = false
		}
		switch state {
		case RunFailed:
			s.StateCounts.Failed++
		case RunStalled:
			s.StateCounts.Stalled++
		case RunOverdue:
			*s.StateCounts.Overdue++
		case RunRunning:
			s.StateCounts.Running++
		case RunIncomplete:
			s.StateCounts.Incomplete++
		case RunSucceeded:
			s.StateCounts.Succeeded++
		}
	}
	s.Verdict = VerdictUnhealthy
	var judged *scheduleJudgement
	if sched != nil {
		judged = judgeSchedule(sched, c.order, c.opts.Now)
		s.Schedule = judged.report
		if latest != nil {
			id := latest.id
			s.LatestRunID = &id
		}
		if judged.healthy(c.opts.Gate, c.order, latest, allSucceeded, func(r *runState) string {
			return scheduledState(r, sched, c.opts.Now, staleDur)
		}) {
			s.Verdict = VerdictHealthy
		}
	} else if latest != nil {
		id := latest.id
		s.LatestRunID = &id
		healthy := allSucceeded
		if c.opts.Gate == GateLatest {
			healthy = latest.state(c.opts.Now, staleDur) == RunSucceeded
		}
		if healthy {
			s.Verdict = VerdictHealthy
		}
	}
	each := func(yield func(*RunReport) bool) {
		for i, run := range c.order {
			rr := foldRun(run, run.definition(def), c.opts.Now, staleDur)
			if judged != nil {
				judged.annotate(&rr, i, run, sched, c.opts.Now)
			}
			if !yield(&rr) {
				return
			}
		}
	}
	if c.opts.StreamRuns {
		s.each = each
		return s
	}
	s.Runs = make([]RunReport, 0, len(c.order))
	each(func(rr *RunReport) bool {
		s.Runs = append(s.Runs, *rr)
		return true
	})
	return s
}

// state tells an attempt's status at now: running or stalled while it
// has no terminal event (stalled once silent for longer than stale, unless
// it never stalls), else its outcome.
func (a *attemptState) state(now time.Time, stale time.Duration) string {
	if a.status != StatusStarted {
		return a.status.String()
	}
	if now.Sub(a.lastAt) > stale && !a.neverStalls {
		return StageStalled
	}
	return StageRunning
}

// state gives the run's state: the first of failed > stalled > running >
// incomplete > succeeded that its stages show; a stage's state is its latest
// attempt's, or pending with none.
func (run *runState) state(now time.Time, stale time.Duration) string {
	var failed, stalled, running, incomplete bool
	for _, atts := range run.stages {
		if len(atts) == 0 {
			incomplete = true
			continue
		}
		switch atts[len(atts)-1].state(now, stale) {
		case StageFailed:
			failed = true
		case StageStalled:
			stalled = true
		case StageRunning:
			running = true
		}
	}
	switch {
	case failed:
		return RunFailed
	case stalled:
		return RunStalled
	case running:
		return RunRunning
	case incomplete:
		return RunIncomplete
	}
	return RunSucceeded
}

// foldRun builds the report of one run.
func foldRun(run *runState, def *Definition, now time.Time, stale time.Duration) RunReport {
	rr := RunReport{
		RunID:           run.id,
		State:           run.state(now, stale),
		FirstEventAt:    formatTime(run.firstAt),
		LastEventAt:     formatTime(run.lastAt),
		DurationSeconds: run.lastAt.Sub(run.firstAt).Seconds(),
		FirstLine:       run.firstLine,
		Stages:          make([]StageReport, len(def.Stages)),
	}
	for i, sd := range def.Stages {
		atts := run.stages[i]
		sr := StageReport{Stage: sd.ID, Name: sd.Name, State: StagePending, AttemptCount: len(atts), Attempts: make([]AttemptReport, len(atts))}
		for k := range atts {
			sr.Attempts[k] = attemptReport(int64(k+1), &atts[k], now, stale)
		}
		if len(atts) > 0 {
			sr.State = sr.Attempts[len(atts)-1].Status
		}
		rr.Stages[i] = sr
	}
	return rr
}

func attemptReport(n int64, a *attemptState, now time.Time, stale time.Duration) AttemptReport {
	ar := AttemptReport{Attempt: n, Status: a.state(now, stale), StartedAt: formatTime(a.startedAt), Line: a.lastLine}
	switch a.status {
	case StatusStarted:
		silent := now.Sub(a.lastAt)
		if silent < 0 {
			silent = 0
		}
		secs := silent.Seconds()
		ar.SilentForSeconds = &secs
	default:
		ended := formatTime(a.endedAt)
		d := a.endedAt.Sub(a.startedAt).Seconds()
		ar.EndedAt, ar.DurationSeconds = &ended, &d
	}
	if a.hasCode {
		rc := a.returncode
		ar.Returncode = &rc
	}
	if a.hasError {
		e := a.err
		ar.Error = &e
	}
	return ar
}
