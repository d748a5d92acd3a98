package checker

import "slices"

// The fold state's part of a checkpoint (docs/state.md): the retry-brake
// warnings, every run with its attempts in first-line order, and the
// attempt ids. Times are Unix seconds and nanoseconds, a run's as deltas from
// its first event and an attempt's from its start; lines likewise. What
// only the snapshot derives (states, stalls, leases, missed slots, job-log
// adjudications) is not kept: it is judged at the next check's now.

// Flags of a run and of an attempt in the encoding.
const (
	runScheduled  = 1 << 0
	runRequesters = 1 << 1
	runApprovers  = 1 << 2

	attemptCode     = 1 << 0
	attemptError    = 1 << 1
	attemptNever    = 1 << 2
	attemptRecovery = 1 << 3

	recoveryLease      = 1 << 0
	recoveryRerun      = 1 << 1
	recoveryResolution = 1 << 2

	resolutionManual      = 1 << 0
	resolutionCompensated = 1 << 1
)

// encodeFold appends c's fold state to e.
func (c *contractState) encodeFold(e *stateEncoder) {
	e.uvarint(uint64(len(c.opts.Definition.Stages)))
	e.uvarint(uint64(len(c.warnings)))
	for _, w := range c.warnings {
		e.uvarint(uint64(w.Line))
		e.str(string(w.Rule))
		e.str(w.Message)
		e.str(w.RunID)
		if w.Stage == nil {
			e.byte(0)
		} else {
			e.byte(1)
			e.stage(*w.Stage)
		}
		e.varint(w.Attempt)
	}
	e.texts = make(map[string]uint64)
	e.uvarint(uint64(len(c.order)))
	for _, run := range c.order {
		e.run(run)
	}
	ids := make([]string, 0, len(c.attemptIDs))
	for id := range c.attemptIDs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	e.uvarint(uint64(len(ids)))
	for _, id := range ids {
		k := c.attemptIDs[id]
		e.str(id)
		e.str(k.run)
		e.uvarint(uint64(k.stage))
		e.varint(k.attempt)
	}
}

func (e *stateEncoder) stage(s StageID) {
	if s.Str != "" {
		e.byte(1)
		e.str(s.Str)
		return
	}
	e.byte(0)
	e.varint(s.Int)
}

func (e *stateEncoder) people(p *people) {
	e.uvarint(uint64(len(p.list)))
	for _, id := range p.list {
		e.str(id.name)
		e.str(id.key)
		e.uvarint(uint64(id.line))
	}
}

func (e *stateEncoder) run(run *runState) {
	e.str(run.id)
	e.uvarint(uint64(run.firstLine))
	e.varint(run.firstSec)
	e.uvarint(uint64(run.firstNsec))
	e.varint(run.lastSec - run.firstSec)
	e.uvarint(uint64(run.lastNsec))
	x := run.x()
	var flags byte
	if x.hasScheduledFor {
		flags |= runScheduled
	}
	if len(x.requesters.list) > 0 {
		flags |= runRequesters
	}
	if len(x.approvers.list) > 0 {
		flags |= runApprovers
	}
	e.byte(flags)
	if x.hasScheduledFor {
		e.time(x.scheduledFor)
		e.uvarint(uint64(x.scheduledLine))
	}
	if flags&runRequesters != 0 {
		e.people(&x.requesters)
	}
	if flags&runApprovers != 0 {
		e.people(&x.approvers)
	}
	for _, atts := range run.stages {
		e.uvarint(uint64(len(atts)))
		for k := range atts {
			e.attempt(run, &atts[k])
		}
	}
}

// hasRecovery tells whether x holds anything a later line or the snapshot
// reads: an empty recovery part is the same as none.
func hasRecovery(x *recoveryAttempt) bool {
	return x != nil && (x.owner != "" || x.attemptID != "" || x.errorCode != "" || !x.lease.IsZero() || x.reason != "" || x.rerunFrom || x.resolution != nil)
}

func (e *stateEncoder) attempt(run *runState, a *attemptState) {
	e.byte(byte(a.status))
	var flags byte
	if a.hasCode {
		flags |= attemptCode
	}
	if a.hasError {
		flags |= attemptError
	}
	if a.neverStalls {
		flags |= attemptNever
	}
	if hasRecovery(a.x) {
		flags |= attemptRecovery
	}
	e.byte(flags)
	e.varint(a.startSec - run.firstSec)
	e.uvarint(uint64(a.startNsec))
	e.varint(int64(a.startLine - run.firstLine))
	e.varint(a.lastSec - a.startSec)
	e.uvarint(uint64(a.lastNsec))
	e.varint(int64(a.lastLine - a.startLine))
	if a.hasCode {
		e.varint(a.returncode)
	}
	if a.hasError {
		if i, ok := e.texts[a.err]; ok {
			e.uvarint(i + 1)
		} else {
			e.uvarint(0)
			e.str(a.err)
			e.texts[a.err] = uint64(len(e.texts))
		}
	}
	if flags&attemptRecovery == 0 {
		return
	}
	x := a.x
	var xf byte
	if !x.lease.IsZero() {
		xf |= recoveryLease
	}
	if x.rerunFrom {
		xf |= recoveryRerun
	}
	if x.resolution != nil {
		xf |= recoveryResolution
	}
	e.byte(xf)
	e.str(x.owner)
	e.str(x.attemptID)
	e.str(x.errorCode)
	e.str(x.reason)
	if !x.lease.IsZero() {
		e.time(x.lease)
	}
	if r := x.resolution; r != nil {
		e.byte(byte(r.outcome))
		e.str(r.reason)
		e.str(r.evidenceRef)
		e.str(r.resolvedBy)
		e.str(r.approvedBy)
		var rf byte
		if r.manualCompletion {
			rf |= resolutionManual
		}
		if r.compensated {
			rf |= resolutionCompensated
		}
		e.byte(rf)
		e.time(r.at)
		e.uvarint(uint64(r.line))
	}
}

// decodeFold loads the fold state of a checkpoint into c, a check that has
// read nothing yet. The error is a *CheckpointError.
func (c *contractState) decodeFold(b []byte) error {
	d := &stateDecoder{b: b}
	stages := len(c.opts.Definition.Stages)
	if int(d.uvarint()) != stages && d.err == nil {
		d.fail("another number of stages")
	}
	for range d.count() {
		w := Violation{File: c.opts.File, Line: int(d.uvarint()), Rule: RuleID(d.str()), Message: d.str(), RunID: d.str()}
		if d.byte() == 1 {
			st := d.stage()
			w.Stage = &st
		}
		w.Attempt = d.varint()
		c.warnings = append(c.warnings, w)
	}
	n := d.count()
	c.order = slices.Grow(c.order, n)
	for range n {
		if !d.run(c, stages) {
			break
		}
	}
	for range d.count() {
		id, run := d.str(), d.str()
		k := attemptKey{stage: int(d.uvarint()), attempt: d.varint()}
		r := c.runs.findString(run, c.order)
		if d.err != nil {
			break
		}
		if r == nil || k.stage < 0 || k.stage >= stages || k.attempt < 1 || k.attempt > int64(len(r.stages[k.stage])) {
			d.fail("an attempt id of no attempt")
			break
		}
		k.run = r.id
		c.attemptIDs[id] = k
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("bytes after its end")
	}
	return d.err
}

func (d *stateDecoder) stage() StageID {
	if d.byte() == 1 {
		return StrStage(d.str())
	}
	return IntStage(d.varint())
}

func (d *stateDecoder) people(p *people) {
	for range d.count() {
		p.add(identity{name: d.str(), key: d.str(), line: int(d.uvarint())})
	}
}

// run decodes one run into c's run store; false after a fault.
func (d *stateDecoder) run(c *contractState, stages int) bool {
	id := d.str()
	firstLine := int(d.uvarint())
	first := d.time()
	lastDelta, lastNsec := d.varint(), d.uvarint()
	flags := d.byte()
	if d.err != nil {
		return false
	}
	known, h := c.runs.find([]byte(id), c.order)
	if known != nil {
		d.fail("a run twice")
		return false
	}
	run := c.slabs.newRun(id, firstLine, first, stages)
	c.runs.add(run.id, h, len(c.order))
	c.order = append(c.order, run)
	if lastNsec >= 1e9 {
		d.fail("a time out of range")
		return false
	}
	run.lastSec, run.lastNsec = run.firstSec+lastDelta, int32(lastNsec)
	if flags&runScheduled != 0 {
		x := run.wx()
		x.hasScheduledFor, x.scheduledFor, x.scheduledLine = true, d.time(), int(d.uvarint())
	}
	if flags&runRequesters != 0 {
		d.people(&run.wx().requesters)
	}
	if flags&runApprovers != 0 {
		d.people(&run.wx().approvers)
	}
	for si := range stages {
		n := d.count()
		if n == 0 {
			continue
		}
		var atts []attemptState
		if n == 1 {
			atts = c.slabs.firstAttempt(attemptState{})
		} else {
			atts = make([]attemptState, n)
		}
		for k := range atts {
			d.attempt(c, run, &atts[k])
		}
		run.stages[si] = atts
	}
	return d.err == nil
}

func (d *stateDecoder) attempt(c *contractState, run *runState, a *attemptState) {
	status := Status(d.byte())
	flags := d.byte()
	if status < StatusStarted || status > StatusCancelled {
		d.fail("an unknown status")
		return
	}
	a.status = status
	a.hasCode, a.hasError, a.neverStalls = flags&attemptCode != 0, flags&attemptError != 0, flags&attemptNever != 0
	startDelta, startNsec, startLine := d.varint(), d.uvarint(), d.varint()
	lastDelta, lastNsec, lastLine := d.varint(), d.uvarint(), d.varint()
	if startNsec >= 1e9 || lastNsec >= 1e9 {
		d.fail("a time out of range")
		return
	}
	a.startSec, a.startNsec, a.startLine = run.firstSec+startDelta, int32(startNsec), run.firstLine+int(startLine)
	a.lastSec, a.lastNsec, a.lastLine = a.startSec+lastDelta, int32(lastNsec), a.startLine+int(lastLine)
	if a.hasCode {
		a.returncode = d.varint()
	}
	if a.hasError {
		if i := d.uvarint(); i == 0 {
			a.err = c.errorText(d.bytes())
			d.texts = append(d.texts, a.err)
		} else if i <= uint64(len(d.texts)) {
			a.err = d.texts[i-1]
		} else {
			d.fail("an error text of no number")
			return
		}
	}
	if flags&attemptRecovery == 0 {
		return
	}
	x := a.wx()
	xf := d.byte()
	x.owner, x.attemptID, x.errorCode, x.reason = d.str(), d.str(), d.str(), d.str()
	x.rerunFrom = xf&recoveryRerun != 0
	if xf&recoveryLease != 0 {
		x.lease = d.time()
	}
	if xf&recoveryResolution != 0 {
		r := &resolutionState{outcome: Status(d.byte())}
		r.reason, r.evidenceRef, r.resolvedBy, r.approvedBy = d.str(), d.str(), d.str(), d.str()
		rf := d.byte()
		r.manualCompletion, r.compensated = rf&resolutionManual != 0, rf&resolutionCompensated != 0
		r.at, r.line = d.time(), int(d.uvarint())
		x.resolution = r
	}
}
