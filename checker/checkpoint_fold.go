package checker

import (
	"slices"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The fold state's part of a checkpoint (docs/state.md): the number of
// stages, the retry-brake warnings, the run store (runstore.Store.Encode:
// every run with its attempts in first-line order), with a window its
// state (checkpoint_window.go), the attempt ids, and the retry brake's
// streaks and trips across runs (brake_runs.go).
// What only the snapshot derives (states, stalls, leases, missed slots,
// job-log adjudications) is not kept: it is judged at the next check's now.

// encodeFold appends c's fold state to e.
func (c *contractState) encodeFold(e *runstore.Encoder) error {
	e.Uvarint(uint64(len(c.opts.Definition.Stages)))
	e.Uvarint(uint64(len(c.warnings)))
	j := 0 // the file of the warning, in c.files: warnings come in line order
	for _, w := range c.warnings {
		j = c.fileOf(w, j)
		line := w.Line
		if j < len(c.files) {
			line += c.files[j].base
		}
		e.Uvarint(uint64(line)) // across the log's files
		e.String(string(w.Rule))
		e.String(w.Message)
		e.String(w.RunID)
		e.Bool(w.Stage != nil)
		if w.Stage != nil {
			writeStage(e, *w.Stage)
		}
		e.Varint(w.Attempt)
	}
	if err := c.runs.Encode(e, c.headCode); err != nil {
		return err
	}
	if c.window != nil {
		c.encodeWindow(e)
	}
	ids := make([]string, 0, len(c.attemptIDs))
	for id := range c.attemptIDs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	e.Uvarint(uint64(len(ids)))
	for _, id := range ids {
		k := c.attemptIDs[id]
		e.String(id)
		e.String(k.run)
		e.Uvarint(uint64(k.stage))
		e.Varint(k.attempt)
	}
	c.encodeStreaks(e)
	c.encodeRequests(e) // rule_request.go: nothing when the log has no request
	return nil
}

// fileOf is the index in c.files of the file warning w is in, from index
// j on: the first of that name whose lines reach w's line.
func (c *contractState) fileOf(w Violation, j int) int {
	for k := j; k < len(c.files); k++ {
		if c.files[k].path != w.File {
			continue
		}
		if k == len(c.files)-1 || w.Line <= c.files[k+1].base-c.files[k].base {
			return k
		}
	}
	return j
}

func writeStage(e *runstore.Encoder, s StageID) {
	e.Bool(s.Str != "")
	if s.Str != "" {
		e.String(s.Str)
	} else {
		e.Varint(s.Int)
	}
}

func readStage(d *runstore.Decoder) StageID {
	if d.Bool() {
		return StrStage(d.String())
	}
	return IntStage(d.Varint())
}

// headCode is the state code a checkpoint keeps in run's head
// (runstore.Head): its state when no stage's latest attempt is in progress,
// so that no now can change it; else runstore.NoCode, and a check resumed
// from the checkpoint judges the run at its own now. The job log's
// adjudications are not kept (a later check reconciles its own job log,
// and a run it names is judged afresh), so the code is the state without
// them: the bytes of a checkpoint never depend on the job log.
func (c *contractState) headCode(run *runState) uint8 {
	state, best := RunState(RunSucceeded), 0
	for i := range c.opts.Definition.Stages {
		atts := run.Attempts(i)
		st := StageState(StagePending)
		if len(atts) > 0 {
			last := &atts[len(atts)-1]
			o := last.Status()
			if last.HasRecovery() {
				if r := last.Recovery().Resolution; r != nil {
					o = r.Outcome
				}
			}
			if o == StatusStarted {
				return runstore.NoCode
			}
			st = StageState(o.String())
		}
		if r := runRank(st); r > best {
			state, best = RunState(st), r
		} else if best == 0 && st != StageSucceeded {
			state = RunIncomplete
		}
	}
	return codeOf(closedState(run, state))
}

// codeOf is the code of state st (runStateCodes).
func codeOf(st RunState) uint8 {
	switch st {
	case RunFailed:
		return stateFailed
	case RunCancelled:
		return stateCancelled
	case RunStalled:
		return stateStalled
	case RunOverdue:
		return stateOverdue
	case RunRunning:
		return stateRunning
	case RunIncomplete:
		return stateIncomplete
	case RunSucceeded:
		return stateSucceeded
	}
	return stateUnknown
}

// decodeFold loads the fold state of a checkpoint into c, a check that has
// read nothing yet. The error is a *CheckpointError.
func (c *contractState) decodeFold(b []byte) (err error) {
	defer recoverDamage(&err)
	d := runstore.NewDecoder(b)
	stages := len(c.opts.Definition.Stages)
	if n := d.Uvarint(); n != uint64(stages) && d.Fault() == "" {
		d.Fail("another number of stages")
	}
	for range d.Count() {
		// The line is across the log's files until locateWarnings.
		w := Violation{Line: d.Int()}
		w.Rule, w.Message, w.RunID = RuleID(d.String()), d.String(), d.String()
		if d.Bool() {
			st := readStage(d)
			w.Stage = &st
		}
		w.Attempt = d.Varint()
		c.warnings = append(c.warnings, w)
	}
	c.runs.Decode(d, stages, c.errorText, c.headCode)
	if c.window != nil && d.Fault() == "" {
		c.decodeWindow(d)
	}
	for range d.Count() {
		id, run := d.String(), d.Bytes()
		k := attemptKey{stage: d.Int(), attempt: d.Varint()}
		if d.Fault() != "" {
			break
		}
		// The run is found in the index, not decoded: that the attempt
		// exists is checked when the job log reads it (reconcile).
		runID, ok := c.runs.Has(run)
		if !ok && c.window != nil && k.stage >= 0 && k.stage < stages && k.attempt >= 1 {
			// An attempt of a run the window folded: its record holds
			// no attempt ids.
			if _, ok := c.window.folded.Find(run); ok {
				k.run = string(run)
				c.attemptIDs[id] = k
				continue
			}
		}
		if !ok || k.stage < 0 || k.stage >= stages || k.attempt < 1 {
			d.Fail("an attempt id of no attempt")
			break
		}
		k.run = runID
		c.attemptIDs[id] = k
	}
	if d.Fault() == "" {
		c.decodeStreaks(d, stages)
	}
	if d.Fault() == "" && len(d.Rest()) > 0 {
		c.decodeRequests(d) // rule_request.go: the requests, last and only when there are some
	}
	if d.Fault() == "" && len(d.Rest()) > 0 {
		d.Fail("bytes after its end")
	}
	c.runs.MarkUntouched() // the attempt ids' look-ups changed no run
	if d.Fault() != "" {
		return damaged(d.Fault())
	}
	return nil
}
