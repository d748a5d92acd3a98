// Package runstore holds what a log has shown of its runs and attempts, for
// the whole check: the 80-byte run and attempt states with named accessors,
// the slabs they are allocated from and the index that finds a run by its
// id (Store.Lookup). It decides nothing: the rules of package checker read
// and change the states through these accessors only, so that how a state
// is laid out in memory (a time as Unix seconds plus nanoseconds, the rare
// fields behind one pointer, the slab or a slice of its own) is this
// package's business alone.
//
// Every field of a state is a number, a string, a time or a flag, and a
// state points at no other state: the runs are reached through the Store
// in order of first line and the attempts through their run, so the whole
// can be written out and read back field by field, under a version of its
// own (docs/architecture.md).
package runstore

import (
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// Status is an attempt's status as the log wrote it (eventline.Status).
type Status = eventline.Status

// A log holds one Attempt per try and one Run per run: they are what memory
// grows with. So times are kept as Unix seconds and nanoseconds in separate
// fields (time.Time is 24 bytes with its location pointer; a
// seconds/nanoseconds pair packs into 12), an attempt keeps no end time of
// its own (an outcome is its last event: nothing may follow it), and the
// rarely used fields sit behind one pointer.

// Attempt is what the log has shown of one attempt: 80 bytes on a 64-bit
// target. The zero Attempt has not started; SetStart starts it.
type Attempt struct {
	startSec   int64 // started event, Unix seconds
	lastSec    int64 // latest event (the outcome once there is one), Unix seconds
	startLine  int
	lastLine   int
	returncode int64
	err        string
	// rec holds the recovery model's fields; nil while no event of the
	// attempt carried one, so that core-contract logs pay nothing for them.
	rec *AttemptRecovery
	// The small fields come last, together, so the struct has no padding
	// between them.
	startNsec   int32
	lastNsec    int32
	status      Status // StatusStarted while in progress
	hasCode     bool
	hasError    bool
	neverStalls bool
}

// unixTime is the UTC time sec seconds and nsec nanoseconds after the Unix
// epoch; it gives back exactly the time.Time that was split.
func unixTime(sec int64, nsec int32) time.Time { return time.Unix(sec, int64(nsec)).UTC() }

// SetStart records the attempt's started event, on line n at t, as its
// start and its latest event. neverStalls marks a stream or service (set by
// Feed): while in progress it is running however long it is silent.
func (a *Attempt) SetStart(t time.Time, n int, neverStalls bool) {
	*a = Attempt{status: eventline.StatusStarted, startSec: t.Unix(), startNsec: int32(t.Nanosecond()), startLine: n, neverStalls: neverStalls}
	a.Touch(t, n)
}

// StartedAt is the time of the attempt's started event (UTC).
func (a *Attempt) StartedAt() time.Time { return unixTime(a.startSec, a.startNsec) }

// StartLine is the line of the attempt's started event.
func (a *Attempt) StartLine() int { return a.startLine }

// LastAt is the time of the attempt's latest event (UTC); once the attempt
// has an outcome it is the outcome's time, its end.
func (a *Attempt) LastAt() time.Time { return unixTime(a.lastSec, a.lastNsec) }

// LastLine is the line of the attempt's latest event.
func (a *Attempt) LastLine() int { return a.lastLine }

// Touch records line n at t as the attempt's latest event.
func (a *Attempt) Touch(t time.Time, n int) {
	a.lastSec, a.lastNsec, a.lastLine = t.Unix(), int32(t.Nanosecond()), n
}

// Status is the attempt's status as the log wrote it: StatusStarted while
// it has no outcome (Outcome adds resolutions and the job log).
func (a *Attempt) Status() Status { return a.status }

// NeverStalls says the attempt is a stream or service (SetStart).
func (a *Attempt) NeverStalls() bool { return a.neverStalls }

// SetOutcome records the attempt's outcome event, of status s on line n at
// t, with its returncode when hasCode.
func (a *Attempt) SetOutcome(s Status, t time.Time, n int, hasCode bool, returncode int64) {
	a.status = s
	a.Touch(t, n)
	a.hasCode, a.returncode = hasCode, returncode
}

// SetError records the error text of the attempt's outcome.
func (a *Attempt) SetError(text string) { a.hasError, a.err = true, text }

// Returncode is the outcome's returncode; ok is false when it had none.
func (a *Attempt) Returncode() (rc int64, ok bool) { return a.returncode, a.hasCode }

// ErrorText is the outcome's error text; ok is false when it had none.
func (a *Attempt) ErrorText() (text string, ok bool) { return a.err, a.hasError }

// HasRecovery says an event of the attempt carried a field of the recovery
// model, or a resolution or the job log adjudicated it.
func (a *Attempt) HasRecovery() bool { return a.rec != nil }

// Recovery returns the attempt's recovery fields; the zero value when it
// has none.
func (a *Attempt) Recovery() AttemptRecovery {
	if a.rec == nil {
		return AttemptRecovery{}
	}
	return *a.rec
}

// recovery returns the attempt's recovery fields for a setter, allocating
// them on first use.
func (a *Attempt) recovery() *AttemptRecovery {
	if a.rec == nil {
		a.rec = &AttemptRecovery{}
	}
	return a.rec
}

// SetAttemptID records the attempt's attempt_id.
func (a *Attempt) SetAttemptID(id string) { a.recovery().AttemptID = id }

// SetLease records the owner, the lease (zero: none) and rerun_from of the
// attempt's started event.
func (a *Attempt) SetLease(owner string, lease time.Time, rerunFrom bool) {
	r := a.recovery()
	r.Owner, r.Lease, r.RerunFrom = owner, lease, rerunFrom
}

// SetHeartbeatLease records the lease of a heartbeat (zero: none) and its
// owner when not "". An attempt without recovery fields gets them only
// when there is something to keep.
func (a *Attempt) SetHeartbeatLease(owner string, lease time.Time) {
	if a.rec == nil && lease.IsZero() && owner == "" {
		return
	}
	r := a.recovery()
	r.Lease = lease
	if owner != "" {
		r.Owner = owner
	}
}

// SetErrorCode records the error_code of the attempt's failed event.
func (a *Attempt) SetErrorCode(code string) { a.recovery().ErrorCode = code }

// SetReason records the reason of the attempt's unknown event.
func (a *Attempt) SetReason(reason string) { a.recovery().Reason = reason }

// SetResolution records a person's adjudication of the attempt.
func (a *Attempt) SetResolution(r Resolution) { a.recovery().Resolution = &r }

// SetJobOutcome records the job log's adjudication of the attempt: its
// outcome, the record's time and line.
func (a *Attempt) SetJobOutcome(outcome Status, at time.Time, line int) {
	r := a.recovery()
	r.JobOutcome, r.JobAt, r.JobLine = outcome, at, line
}

// Outcome is the attempt's effective status: a resolution's outcome, else a
// job-log adjudication, else what the orchestrator logged.
func (a *Attempt) Outcome() Status {
	if a.rec == nil {
		return a.status
	}
	if a.rec.Resolution != nil {
		return a.rec.Resolution.Outcome
	}
	if a.rec.JobOutcome != 0 {
		return a.rec.JobOutcome
	}
	return a.status
}

// AttemptRecovery is what the log has shown of one attempt under the
// recovery model (docs/recovery.md).
type AttemptRecovery struct {
	Owner     string
	AttemptID string
	ErrorCode string
	Lease     time.Time // of the latest started/heartbeat; zero when it had none
	Reason    string    // of the unknown event
	RerunFrom bool
	// Resolution is the attempt's resolved event; nil when none.
	Resolution *Resolution
	// Takeover is the outcome event that another owner wrote to end the
	// attempt (docs/recovery.md, takeovers); nil when its own owner ended
	// it or it has not ended.
	Takeover *Takeover
	// JobOutcome is the job log's adjudication (0: none), with the record's
	// time and line.
	JobOutcome Status
	JobAt      time.Time
	JobLine    int
}

// Takeover is an outcome event that ended another owner's attempt, with
// the proof that the owner had stopped.
type Takeover struct {
	Outcome     Status // the outcome the takeover wrote
	Owner       string // who took over; "" when the event named none
	ConfirmedBy string // stop_confirmed_by
	EvidenceRef string // stop_evidence_ref
	Method      string // stop_method
	At          time.Time
	Line        int
	// AdvancedLine is the first heartbeat of the attempt's own owner after
	// the takeover (HEARTBEAT_ADVANCED: the owner was alive), at
	// AdvancedAt; 0 when none.
	AdvancedLine int
	AdvancedAt   time.Time
}

// SetTakeover records that the attempt's outcome, recorded already, was a
// takeover by another owner.
func (a *Attempt) SetTakeover(t Takeover) { a.recovery().Takeover = &t }

// HeartbeatAdvanced records a heartbeat of the attempt's own owner, on line
// n at t, after a takeover: the owner was alive when it was taken over, so
// the takeover's outcome is not adopted and the attempt's outcome becomes
// unknown with reason until a person adjudicates it. Later heartbeats of
// the owner only touch the attempt.
func (a *Attempt) HeartbeatAdvanced(t time.Time, n int, reason string) {
	tk := a.recovery().Takeover
	if tk.AdvancedLine == 0 {
		tk.AdvancedLine, tk.AdvancedAt = n, t
		a.status, a.hasCode, a.returncode, a.hasError, a.err = eventline.StatusUnknown, false, 0, false, ""
		a.rec.Reason = reason
	}
	a.Touch(t, n)
}

// Resolution is one resolved event: a person's adjudication.
type Resolution struct {
	Outcome          Status
	Reason           string
	EvidenceRef      string
	ResolvedBy       string
	ApprovedBy       string
	ManualCompletion bool
	Compensated      bool
	At               time.Time
	Line             int
}

// Run is what the log has shown of one run: 80 bytes on a 64-bit target.
// Its stages are indexed like its definition's stages, and a stage's
// attempts are in order, attempt k+1 at index k.
type Run struct {
	id        string
	firstLine int
	firstSec  int64 // first event, Unix seconds
	lastSec   int64 // latest event, Unix seconds
	stages    [][]Attempt
	// ext holds what few runs have; nil until one of its fields is set.
	ext       *runExt
	firstNsec int32
	lastNsec  int32
}

// runExt is the part of a run's state that only schedules, OpenLineage
// feeds and the recovery model use.
type runExt struct {
	// scheduledFor is the slot the run's events name (scheduled_for), from
	// the first event that names one; hasScheduledFor says there is one.
	hasScheduledFor bool
	scheduledFor    time.Time
	scheduledLine   int
	// definition is the run's own definition, numbered by the caller from
	// 1; 0 is the check's.
	definition int32
	// requesters are the requested_by of every event of the run, and
	// approvers the approved_by of its non-idempotent success resolutions.
	requesters People
	approvers  People
	// rerunStage is the index plus one of the stage whose latest started
	// event with rerun_from opened a rerun of it and its descendants, on
	// rerunLine; 0 when none did.
	rerunStage int32
	rerunLine  int
	// close is the run's close (close.go); nil when it has none.
	close *Close
}

// ID is the run's run_id.
func (r *Run) ID() string { return r.id }

// FirstLine is the line of the run's first event.
func (r *Run) FirstLine() int { return r.firstLine }

// FirstAt and LastAt are the times of the run's first and latest events (UTC).
func (r *Run) FirstAt() time.Time { return unixTime(r.firstSec, r.firstNsec) }
func (r *Run) LastAt() time.Time  { return unixTime(r.lastSec, r.lastNsec) }

// SetLast records t as the time of the run's latest event.
func (r *Run) SetLast(t time.Time) { r.lastSec, r.lastNsec = t.Unix(), int32(t.Nanosecond()) }

// Stages are the run's attempts by stage index.
func (r *Run) Stages() [][]Attempt { return r.stages }

// Attempts are the attempts of stage si so far.
func (r *Run) Attempts(si int) []Attempt { return r.stages[si] }

// Attempt is attempt n (from 1) of stage si; nil when it has not started.
func (r *Run) Attempt(si int, n int64) *Attempt {
	atts := r.stages[si]
	if n < 1 || n > int64(len(atts)) {
		return nil
	}
	return &atts[n-1]
}

// ext returns the run's rare fields for a setter, allocating them on first
// use.
func (r *Run) wext() *runExt {
	if r.ext == nil {
		r.ext = &runExt{}
	}
	return r.ext
}

// ScheduledFor is the slot the run's events name (scheduled_for) and the
// line that first named it; ok is false when none did.
func (r *Run) ScheduledFor() (slot time.Time, line int, ok bool) {
	if r.ext == nil || !r.ext.hasScheduledFor {
		return time.Time{}, 0, false
	}
	return r.ext.scheduledFor, r.ext.scheduledLine, true
}

// LogicalAt is the run's logical time (docs/contract.md, "Which run latest
// judges"): the slot its events name (scheduled_for), else its first event.
func (r *Run) LogicalAt() time.Time {
	if r.ext != nil && r.ext.hasScheduledFor {
		return r.ext.scheduledFor
	}
	return r.FirstAt()
}

// SetScheduledFor records slot, named on line n, unless an earlier event
// named one.
func (r *Run) SetScheduledFor(slot time.Time, n int) {
	if r.ext != nil && r.ext.hasScheduledFor {
		return
	}
	x := r.wext()
	x.hasScheduledFor, x.scheduledFor, x.scheduledLine = true, slot, n
}

// Definition is the number the caller gave the run's own definition
// (SetDefinition); 0 when the run follows the check's.
func (r *Run) Definition() int32 {
	if r.ext == nil {
		return 0
	}
	return r.ext.definition
}

// SetDefinition records that the run follows definition number n (from 1)
// of the caller's.
func (r *Run) SetDefinition(n int32) {
	if n != 0 || r.ext != nil {
		r.wext().definition = n
	}
}

// Requesters are the people named by requested_by on the run's events;
// nil when none.
func (r *Run) Requesters() *People {
	if r.ext == nil {
		return nil
	}
	return &r.ext.requesters
}

// Approvers are the people named by approved_by on the run's
// non-idempotent success resolutions; nil when none.
func (r *Run) Approvers() *People {
	if r.ext == nil {
		return nil
	}
	return &r.ext.approvers
}

// AddRequester adds id to the run's requesters.
func (r *Run) AddRequester(id Identity) { r.wext().requesters.Add(id) }

// AddApprover adds id to the run's approvers.
func (r *Run) AddApprover(id Identity) { r.wext().approvers.Add(id) }

// Rerun is the stage (its index) whose latest started event with
// rerun_from opened a rerun of it and every stage downstream of it, and
// that event's line; ok is false when the run has none.
func (r *Run) Rerun() (si int, line int, ok bool) {
	if r.ext == nil || r.ext.rerunStage == 0 {
		return 0, 0, false
	}
	return int(r.ext.rerunStage - 1), r.ext.rerunLine, true
}

// SetRerun records a started event with rerun_from of stage si on line n.
func (r *Run) SetRerun(si int, n int) {
	x := r.wext()
	x.rerunStage, x.rerunLine = int32(si+1), n
}
