package checker

import "time"

// snapshot folds the recorded runs into the health snapshot (DESIGN.md §3-4).
func (c *contractState) snapshot(src Source) *Snapshot {
	def := c.opts.Definition
	stale := c.opts.StaleAfterSeconds
	if stale <= 0 {
		stale = def.StaleAfterSeconds
	}
	if stale <= 0 {
		stale = DefaultStaleAfterSeconds
	}
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
		Runs:     make([]RunReport, 0, len(c.order)),
	}
	if def.Pipeline != "" {
		name := def.Pipeline
		s.Options.Pipeline = &name
	}
	var latest *runState
	for _, run := range c.order {
		if latest == nil || !run.firstAt.Before(latest.firstAt) {
			latest = run // ties go to the later line: c.order is in line order
		}
		rr := foldRun(run, def, c.opts.Now, time.Duration(stale)*time.Second)
		s.Runs = append(s.Runs, rr)
		switch rr.State {
		case RunFailed:
			s.StateCounts.Failed++
		case RunStalled:
			s.StateCounts.Stalled++
		case RunRunning:
			s.StateCounts.Running++
		case RunIncomplete:
			s.StateCounts.Incomplete++
		case RunSucceeded:
			s.StateCounts.Succeeded++
		}
	}
	s.Verdict = VerdictUnhealthy
	if latest != nil {
		id := latest.id
		s.LatestRunID = &id
		healthy := true
		for _, rr := range s.Runs {
			if c.opts.Gate == GateLatest && rr.RunID != id {
				continue
			}
			if rr.State != RunSucceeded {
				healthy = false
			}
		}
		if healthy {
			s.Verdict = VerdictHealthy
		}
	}
	return s
}

// foldRun gives one run its stage and run states. A stage's state is its
// latest attempt's; the run's is the first of failed > stalled > running >
// incomplete > succeeded that any stage shows.
func foldRun(run *runState, def *Definition, now time.Time, stale time.Duration) RunReport {
	rr := RunReport{
		RunID:           run.id,
		FirstEventAt:    formatTime(run.firstAt),
		LastEventAt:     formatTime(run.lastAt),
		DurationSeconds: run.lastAt.Sub(run.firstAt).Seconds(),
		FirstLine:       run.firstLine,
		Stages:          make([]StageReport, len(def.Stages)),
	}
	var failed, stalled, running, allSucceeded = false, false, false, true
	for i, sd := range def.Stages {
		atts := run.stages[i]
		sr := StageReport{Stage: sd.ID, Name: sd.Name, State: StagePending, AttemptCount: len(atts), Attempts: make([]AttemptReport, len(atts))}
		for k, a := range atts {
			sr.Attempts[k] = attemptReport(int64(k+1), a, now, stale)
		}
		if len(atts) > 0 {
			sr.State = sr.Attempts[len(atts)-1].Status
		}
		switch sr.State {
		case StageFailed:
			failed = true
		case StageStalled:
			stalled = true
		case StageRunning:
			running = true
		}
		if sr.State != StageSucceeded {
			allSucceeded = false
		}
		rr.Stages[i] = sr
	}
	switch {
	case failed:
		rr.State = RunFailed
	case stalled:
		rr.State = RunStalled
	case running:
		rr.State = RunRunning
	case !allSucceeded:
		rr.State = RunIncomplete
	default:
		rr.State = RunSucceeded
	}
	return rr
}

func attemptReport(n int64, a attemptState, now time.Time, stale time.Duration) AttemptReport {
	ar := AttemptReport{Attempt: n, StartedAt: formatTime(a.startedAt), Line: a.lastLine}
	switch a.status {
	case StatusStarted:
		silent := now.Sub(a.lastAt)
		if silent < 0 {
			silent = 0
		}
		secs := silent.Seconds()
		ar.SilentForSeconds = &secs
		ar.Status = StageRunning
		if silent > stale {
			ar.Status = StageStalled
		}
	default:
		ar.Status = a.status.String()
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
