package checker

import (
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// SnapshotVersion is the schema_version of a health snapshot.
const SnapshotVersion = "greenlight.snapshot/v3"

// RunState is a run's state in a snapshot (RunReport.State), StageState a
// stage's (StageReport.State) and Verdict the snapshot's: types of their
// own, so that a run's state is not taken for a stage's, with the values the
// snapshot's JSON writes. Their constants below are untyped, as a
// renderer's helper may switch over run and stage state names together.
type (
	RunState   string
	StageState string
	Verdict    string
)

// Run states, in precedence order (docs/contract.md, docs/recovery.md): the
// first that applies wins. RunOverdue (in progress longer than the schedule's
// max_runtime_seconds) exists only when the pipeline definition has a schedule.
const (
	RunUnknown    = "unknown"
	RunFailed     = "failed"
	RunCancelled  = "cancelled"
	RunStalled    = "stalled"
	RunOverdue    = "overdue"
	RunRunning    = "running"
	RunIncomplete = "incomplete"
	RunSucceeded  = "succeeded"
)

// Stage and attempt states. An attempt is running or stalled while it has no
// terminal event; stalled is a candidate inferred from silence, not proof.
// unknown is an outcome nobody could confirm; blocked is a stage not started
// because a stage it depends on failed, is unknown, was cancelled or is blocked;
// skipped is a skippable stage that logged skipped, or a stage never started
// because a stage it depends on is skipped (markBlocked), and counts as done.
const (
	StagePending   = "pending"
	StageBlocked   = "blocked"
	StageUnknown   = "unknown"
	StageCancelled = "cancelled"
	StageRunning   = "running"
	StageStalled   = "stalled"
	StageSucceeded = "succeeded"
	StageFailed    = "failed"
	StageSkipped   = "skipped"
)

// Verdicts.
const (
	VerdictHealthy   = "healthy"
	VerdictUnhealthy = "unhealthy"
)

// Gate says which runs the verdict looks at.
type Gate string

// The gate scopes: every run, or only the latest (docs/contract.md, States).
const (
	GateAll    Gate = "all"
	GateLatest Gate = "latest"
)

// Snapshot is the health snapshot of schemas/snapshot.schema.json. Field order
// is the document's key order; times are RFC 3339 UTC strings and durations
// float seconds.
type Snapshot struct {
	SchemaVersion string `json:"schema_version"`
	// Tool is the program that wrote the snapshot and its version.
	Tool           Tool   `json:"tool"`
	GeneratedAtUTC string `json:"generated_at_utc"`
	// GeneratedAt is GeneratedAtUTC as a value: the check's now, in UTC.
	GeneratedAt time.Time       `json:"-"`
	Source      Source          `json:"source"`
	Options     SnapshotOptions `json:"options"`
	Verdict     Verdict         `json:"verdict"`
	LatestRunID *string         `json:"latest_run_id"`
	RunCount    int             `json:"run_count"`
	StateCounts StateCounts     `json:"state_counts"`
	// Window is set only by a check with a window (Options.Window): the
	// runs listed are those in it, and it counts the folded ones.
	Window *WindowReport `json:"window,omitempty"`
	// Schedule is set only when the pipeline definition has a schedule.
	Schedule *ScheduleReport `json:"schedule,omitempty"`
	// Freshness is the freshness judgement (docs/contract.md, Freshness):
	// always set by a check; a stale pipeline is unhealthy.
	Freshness *FreshnessReport `json:"freshness"`
	// Warnings are rules that only warn (retry_past_brake without enforce).
	Warnings []Violation `json:"warnings"`
	// Reconciliation is the job-log comparison; nil without --job-log.
	Reconciliation *Reconciliation `json:"reconciliation"`
	// Requests are the log's requests (docs/recovery.md, Claimed
	// requests); nil when it has no request event.
	Requests *RequestsReport `json:"requests,omitempty"`
	// runs are the run reports, in order: built one at a time as they are
	// asked for (Runs, At, Collect, and render's views). The document's
	// "runs" key is written by MarshalJSON and render.WriteSnapshotJSON.
	runs runSource
}

// runSource is where a snapshot's run reports come from: the fold of a
// Check or Feed (foldedRuns), or reports given whole (reportList: decoded
// from a document, or set through runview.SetRuns).
type runSource interface {
	count() int
	id(i int) string
	attempts(i int) int
	// head is run i's head, cheaper than its report.
	head(i int) runview.Head
	// order is what of run i's head orders it in a listing: its first
	// event, first line and whether it succeeded.
	order(i int) (first time.Time, line int, succeeded bool)
	// report builds run i's report in *rr, pointing into ar's storage
	// (nil: storage of its own). rr may be &ar.rr: a report is written
	// where it is read, not returned and copied (a few hundred bytes, for
	// each of hundreds of thousands of runs).
	report(i int, ar *reportArena, rr *RunReport)
}

// reportList is a runSource of reports given whole.
type reportList []RunReport

func (l reportList) count() int      { return len(l) }
func (l reportList) id(i int) string { return l[i].RunID }
func (l reportList) attempts(i int) int {
	n := 0
	for _, st := range l[i].Stages {
		n += len(st.Attempts)
	}
	return n
}
func (l reportList) report(i int, _ *reportArena, rr *RunReport) { *rr = l[i] }
func (l reportList) order(i int) (time.Time, int, bool) {
	return l[i].LogicalTime(), l[i].FirstLine, l[i].State == RunSucceeded
}
func (l reportList) head(i int) runview.Head {
	return runview.Head{RunID: l[i].RunID, State: string(l[i].State), FirstEvent: l[i].FirstEvent, LastEvent: l[i].LastEvent, FirstLine: l[i].FirstLine}
}

// The run states in one byte each, as foldedRuns keeps them: a code is an
// index of runStateCodes.
const (
	stateUnknown uint8 = iota
	stateFailed
	stateCancelled
	stateStalled
	stateOverdue
	stateRunning
	stateIncomplete
	stateSucceeded
)

var runStateCodes = [...]RunState{stateUnknown: RunUnknown, stateFailed: RunFailed, stateCancelled: RunCancelled,
	stateStalled: RunStalled, stateOverdue: RunOverdue, stateRunning: RunRunning, stateIncomplete: RunIncomplete, stateSucceeded: RunSucceeded}

func (s *Snapshot) source() runSource {
	if s.runs == nil {
		return reportList(nil)
	}
	return s.runs
}

// place returns s's run source after checking that i is a place in it: a
// run's 0-based index in the order of Runs. It panics naming the caller's
// method when i is out of range.
func (s *Snapshot) place(method string, i int) runSource {
	src := s.source()
	if i < 0 || i >= src.count() {
		panic(fmt.Sprintf("checker: Snapshot.%s(%d) of %d runs", method, i, src.count()))
	}
	return src
}

// Len is how many runs Runs yields: RunCount, except for a snapshot whose
// runs a window folded (Options.Window) or one built by hand.
func (s *Snapshot) Len() int { return s.source().count() }

// At returns the report of the run at place i (0 <= i < Len, in the order
// of Runs), built in storage of its own. It panics when i is out of range.
func (s *Snapshot) At(i int) RunReport {
	var rr RunReport
	s.place("At", i).report(i, nil, &rr)
	return rr
}

// Runs yields every run report in order. The reports are built one at a
// time in reused storage, so a log of millions of runs never holds them
// all: the loop body may keep a report's strings, but not the report or
// its slices and pointers past its iteration, except for the report it
// breaks at. Collect gives reports to keep.
func (s *Snapshot) Runs() iter.Seq[*RunReport] {
	return s.reports(s.Len(), func(k int) int { return k })
}

// reports yields the reports of n runs, the k-th at place at(k), built one
// at a time in reused storage (Runs, and the views' Reports).
func (s *Snapshot) reports(n int, at func(k int) int) iter.Seq[*RunReport] {
	return func(yield func(*RunReport) bool) {
		src := s.source()
		if l, ok := src.(reportList); ok {
			for k := range n {
				if !yield(&l[at(k)]) {
					return
				}
			}
			return
		}
		if f, ok := src.(*foldedRuns); ok {
			f.decodeAll()
		}
		var ar reportArena
		for k := range n {
			i := at(k)
			if i < 0 || i >= src.count() {
				panic(fmt.Sprintf("checker: run place %d of %d runs", i, src.count()))
			}
			src.report(i, &ar, &ar.rr)
			if !yield(&ar.rr) {
				return
			}
		}
	}
}

// Collect returns every run report, each in storage of its own: for
// callers that need them all at once (tests, small logs). Its memory grows
// with the reports; Runs does not.
func (s *Snapshot) Collect() []RunReport {
	src := s.source()
	if f, ok := src.(*foldedRuns); ok {
		f.decodeAll()
	}
	out := make([]RunReport, src.count())
	for i := range out {
		src.report(i, nil, &out[i])
	}
	return out
}

// The views checker/render reaches through checker/internal/runview.
func init() {
	runview.Register(func(s *Snapshot) runview.Views[RunReport] { return snapshotViews{s} },
		func(s *Snapshot, runs []RunReport) { s.runs = reportList(runs) })
}

// snapshotViews are a snapshot's runview.Views.
type snapshotViews struct{ s *Snapshot }

func (v snapshotViews) Head(i int) runview.Head { return v.s.place("Head", i).head(i) }

func (v snapshotViews) Order(i int) (time.Time, int, bool) { return v.s.place("Order", i).order(i) }

func (v snapshotViews) ID(i int) string { return v.s.place("ID", i).id(i) }

func (v snapshotViews) EncodeRuns(enc func(dst []byte, i int, r *RunReport) []byte, write func([]byte) error) error {
	return v.s.encodeRuns(enc, write)
}

func (v snapshotViews) Latest() *RunReport { return v.s.latest() }

func (v snapshotViews) Reports(places []int) iter.Seq[*RunReport] {
	return v.s.reports(len(places), func(k int) int { return places[k] })
}

// snapshotDoc is the snapshot document's form: the snapshot's fields, then
// its runs.
type snapshotDoc struct {
	snapshotFields
	Runs []RunReport `json:"runs"`
}

// snapshotFields is Snapshot without its methods, so that encoding it does
// not call MarshalJSON again.
type snapshotFields Snapshot

// MarshalJSON encodes the snapshot document of schemas/snapshot.schema.json
// with every run report (built by Collect), so that encoding/json never
// drops the runs. greenlight's outputs use render.WriteSnapshotJSON, which
// writes the same values in its own layout (a run per line), run by run.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	return json.Marshal(snapshotDoc{snapshotFields(s), s.Collect()})
}

// Source describes the log a snapshot was made from. InputFormat and
// ReorderedEvents are set only for an OpenLineage log (see Feed), so a native
// snapshot keeps its four keys.
type Source struct {
	Path       string `json:"path"`
	SHA256     string `json:"sha256"`
	EventCount int    `json:"event_count"`
	LineCount  int    `json:"line_count"`
	// Files lists the log's files in reading order, for a native log
	// (CheckFiles); nil for OpenLineage. EventCount and LineCount count all
	// of them, and SHA256 hashes their text, one after the other.
	Files []SourceFile `json:"files,omitempty"`
	// InputFormat is "openlineage" for an OpenLineage log, empty for native.
	InputFormat string `json:"input_format,omitempty"`
	// ReorderedEvents counts the OpenLineage events put back in eventTime
	// order; nil for native.
	ReorderedEvents *int `json:"reordered_events,omitempty"`
	// IgnoredEvents counts the OpenLineage events that are no state
	// transition of a run; nil for native.
	IgnoredEvents *IgnoredEvents `json:"ignored_events,omitempty"`
	// JobAliases lists the other names an OpenLineage log gives a run's
	// job; absent when there is none, and for native.
	JobAliases []JobAlias `json:"job_aliases,omitempty"`
}

// IgnoredEvents counts, by kind, the OpenLineage events that are validated
// and counted in event_count but change no state (docs/openlineage.md):
// RunEvents of type OTHER, RunEvents without eventType (optional since spec
// 2-0-x), and DatasetEvents and JobEvents, which the spec's object model
// calls not associated with a run.
type IgnoredEvents struct {
	Other        int `json:"other"`
	NoEventType  int `json:"no_event_type"`
	DatasetEvent int `json:"dataset_event"`
	JobEvent     int `json:"job_event"`
}

// JobAlias is a name an OpenLineage parent or root facet gives a run's job
// that differs from the name greenlight uses: a run is its runId (spec
// RootRun.runId, "the globally unique ID of the root run"), and the name
// comes from the run's own events (docs/openlineage.md). OpenLineage Spark
// 1.31 to 1.43, for one, names the application in parent.root by its raw
// spark.app.name.
type JobAlias struct {
	// RunID is the run (lower case); Job the name greenlight uses for it,
	// namespace/name; Alias the other name.
	RunID string `json:"run_id"`
	Job   string `json:"job"`
	Alias string `json:"alias"`
	// Facet is parent or root (parent.root); InRun is the run whose event
	// holds it, and Line that event's line (for an event directory, its
	// file's position), the first that gives the alias.
	Facet string `json:"facet"`
	InRun string `json:"in_run"`
	Line  int    `json:"line"`
}

// SnapshotOptions records the options that shaped the verdict.
type SnapshotOptions struct {
	Pipeline           *string    `json:"pipeline"`
	StaleAfterSeconds  int        `json:"stale_after_seconds"`
	LeaseMarginSeconds int        `json:"lease_margin_seconds"`
	RetryBrake         RetryBrake `json:"retry_brake"`
	Gate               Gate       `json:"gate"`
	// MaxAgeSeconds is the max_age that applies (--max-age, else the
	// definition's) in seconds; null without one. MaxAgeNone records an
	// explicit max_age none (--max-age none).
	MaxAgeSeconds *int64     `json:"max_age_seconds"`
	MaxAgeNone    bool       `json:"max_age_none"`
	Stages        []StageDef `json:"stages"`
	// InferStages is true when the check was told to take an OpenLineage
	// log's stages from the log itself (Options.InferStages); absent
	// otherwise.
	InferStages bool `json:"infer_stages,omitempty"`
	// SinceSeconds is --since in seconds: gate all judged only the runs
	// whose logical time is within it; absent without one.
	SinceSeconds *int64 `json:"since_seconds,omitempty"`
}

// StateCounts counts runs per state; every state is present, zeros
// included, except Overdue, which is present only with a schedule.
type StateCounts struct {
	Failed     int  `json:"failed"`
	Stalled    int  `json:"stalled"`
	Overdue    *int `json:"overdue,omitempty"`
	Running    int  `json:"running"`
	Incomplete int  `json:"incomplete"`
	Succeeded  int  `json:"succeeded"`
	Unknown    int  `json:"unknown"`
	Cancelled  int  `json:"cancelled"`
}

// RunReport is one run in a snapshot.
type RunReport struct {
	RunID           string   `json:"run_id"`
	State           RunState `json:"state"`
	FirstEventAt    string   `json:"first_event_at"`
	LastEventAt     string   `json:"last_event_at"`
	DurationSeconds float64  `json:"duration_seconds"`
	FirstLine       int      `json:"first_line"`
	// ScheduledFor is the slot the run fills (or duplicates), set only with
	// a schedule and when the run claims a slot.
	ScheduledFor *string `json:"scheduled_for,omitempty"`
	// LogicalAt is the run's logical time (docs/contract.md, "The order of
	// runs") as RFC 3339 UTC text: the scheduled_for its events name, set
	// only when that differs from its first event (a backfill's date);
	// absent, the logical time is FirstEventAt.
	LogicalAt *string `json:"logical_at,omitempty"`
	// OverdueBySeconds is how far past the schedule's max_runtime_seconds a
	// run in progress is, set only then.
	OverdueBySeconds *float64 `json:"overdue_by_seconds,omitempty"`
	// Close is the run's close (docs/recovery.md, The run's close); nil
	// (and absent from the JSON) when the log shows none.
	Close    *CloseReport  `json:"close,omitempty"`
	Recovery Recovery      `json:"recovery"`
	Stages   []StageReport `json:"stages"`
	// FirstEvent, LastEvent and Slot are FirstEventAt, LastEventAt and
	// ScheduledFor as values (UTC; Slot zero when the run claims none), so
	// that no reader parses the texts back.
	FirstEvent, LastEvent, Slot time.Time `json:"-"`
	// Logical is LogicalAt as a value (UTC): the run's logical time when it
	// differs from its first event, else zero.
	Logical time.Time `json:"-"`
}

// LogicalTime is what orders the run in every listing and what gate
// latest judges by (docs/contract.md, "The order of runs"): the
// scheduled_for its events name, else its first event.
func (r *RunReport) LogicalTime() time.Time {
	if !r.Logical.IsZero() {
		return r.Logical
	}
	return r.FirstEvent
}

// StageReport is one expected stage of a run; its state is its latest
// attempt's.
type StageReport struct {
	Stage        StageID         `json:"stage"`
	Name         *string         `json:"name"`
	State        StageState      `json:"state"`
	StatusReason *string         `json:"status_reason"`
	AttemptCount int             `json:"attempt_count"`
	Attempts     []AttemptReport `json:"attempts"`
	// BrakeRuns are the runs whose failures tripped the retry brake, oldest
	// first, ending with this one, when failures of earlier runs count
	// towards it (docs/recovery.md, the brake across runs); nil (and
	// absent from the JSON) otherwise.
	BrakeRuns []string `json:"brake_runs,omitempty"`
	// brake is the tripped retry brake that StatusReason writes, as a
	// value for readers (the recovery advice); nil when it has not tripped.
	brake *brakeTrip
}

// AttemptReport is one attempt of a stage. EndedAt and DurationSeconds are
// nil while it is in progress; SilentForSeconds is set only then. Line is the
// line of the attempt's last event.
type AttemptReport struct {
	Attempt          int64    `json:"attempt"`
	Status           string   `json:"status"`
	StartedAt        string   `json:"started_at"`
	EndedAt          *string  `json:"ended_at"`
	DurationSeconds  *float64 `json:"duration_seconds"`
	Returncode       *int64   `json:"returncode"`
	Error            *string  `json:"error"`
	SilentForSeconds *float64 `json:"silent_for_seconds"`
	Line             int      `json:"line"`
	// The recovery model (docs/recovery.md).
	StaleCandidate  bool              `json:"stale_candidate"`
	AttemptID       *string           `json:"attempt_id"`
	Owner           *string           `json:"owner"`
	ErrorCode       *string           `json:"error_code"`
	LeaseExpiresAt  *string           `json:"lease_expires_at"`
	Reason          *string           `json:"reason"`
	Resolution      *ResolutionReport `json:"resolution"`
	AdjudicatedFrom *string           `json:"adjudicated_from"`
	JobLogLine      *int              `json:"job_log_line"`
	// Takeover is the outcome another owner wrote to end the attempt, with
	// its proof that the owner stopped; nil (and absent from the JSON)
	// when the attempt's own owner ended it.
	Takeover *TakeoverReport `json:"takeover,omitempty"`
	// Started and Ended are StartedAt and EndedAt as values (UTC; Ended
	// zero while EndedAt is nil).
	Started, Ended time.Time `json:"-"`
}

// TakeoverReport is an outcome event that ended another owner's attempt
// (docs/recovery.md, takeovers): the outcome it wrote, who took over (Owner,
// nil when the event named none), the proof that the owner stopped
// (stop_confirmed_by, stop_evidence_ref, stop_method), when (RFC 3339 UTC)
// and on which line. HeartbeatAdvancedLine is the line of the owner's first
// heartbeat after the takeover (HEARTBEAT_ADVANCED: the takeover's outcome
// is not adopted and the attempt is unknown), nil when none came.
type TakeoverReport struct {
	Outcome               string  `json:"outcome"`
	Owner                 *string `json:"owner"`
	StopConfirmedBy       string  `json:"stop_confirmed_by"`
	StopEvidenceRef       string  `json:"stop_evidence_ref"`
	StopMethod            string  `json:"stop_method"`
	TakenOverAt           string  `json:"taken_over_at"`
	Line                  int     `json:"line"`
	HeartbeatAdvancedLine *int    `json:"heartbeat_advanced_line"`
}

// latest returns the report of the run named by LatestRunID, or nil, built
// in storage of its own; also when a window folded that run out of the
// listed ones (Options.Window), as a full check would build it.
func (s *Snapshot) latest() *RunReport {
	if s.LatestRunID == nil {
		return nil
	}
	src := s.source()
	for i := range src.count() {
		if src.id(i) == *s.LatestRunID {
			var rr RunReport
			src.report(i, nil, &rr)
			return &rr
		}
	}
	// A window may have folded the latest run out of the listed ones
	// (docs/window.md); the check kept a copy of it for this.
	if f, ok := src.(*foldedRuns); ok {
		if rr, ok := f.foldedLatest(); ok && rr.RunID == *s.LatestRunID {
			return &rr
		}
	}
	return nil
}

// UnmarshalJSON reads a snapshot document (schemas/snapshot.schema.json), as
// greenlight merge does with the snapshots of other checks: its runs become
// the snapshot's run reports, and every typed time (GeneratedAt,
// a run's FirstEvent, LastEvent and Slot, an attempt's Started and Ended, a
// schedule row's Slot) is read from its text, as Check would have set it.
// A time that is not RFC 3339 is an error naming the field; validate the
// document against the schema first for a message about its shape.
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	var doc snapshotDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	*s = Snapshot(doc.snapshotFields)
	var bad error
	at := func(dst *time.Time, text, field string) {
		if bad != nil || text == "" {
			return
		}
		t, err := ParseTime(text)
		if err != nil {
			bad = fmt.Errorf("snapshot %s %q: %v", field, text, err)
			return
		}
		*dst = t
	}
	at(&s.GeneratedAt, s.GeneratedAtUTC, "generated_at_utc")
	for i := range doc.Runs {
		r := &doc.Runs[i]
		at(&r.FirstEvent, r.FirstEventAt, "first_event_at")
		at(&r.LastEvent, r.LastEventAt, "last_event_at")
		if r.ScheduledFor != nil {
			at(&r.Slot, *r.ScheduledFor, "scheduled_for")
		}
		if r.LogicalAt != nil {
			at(&r.Logical, *r.LogicalAt, "logical_at")
		}
		for j := range r.Stages {
			for k := range r.Stages[j].Attempts {
				a := &r.Stages[j].Attempts[k]
				at(&a.Started, a.StartedAt, "started_at")
				if a.EndedAt != nil {
					at(&a.Ended, *a.EndedAt, "ended_at")
				}
			}
		}
	}
	if sch := s.Schedule; sch != nil {
		for i := range sch.Missed {
			at(&sch.Missed[i].Slot, sch.Missed[i].ScheduledFor, "schedule.missed[].scheduled_for")
		}
		for i := range sch.Late {
			at(&sch.Late[i].Slot, sch.Late[i].ScheduledFor, "schedule.late[].scheduled_for")
		}
		for i := range sch.Early {
			at(&sch.Early[i].Slot, sch.Early[i].ScheduledFor, "schedule.early[].scheduled_for")
		}
		for i := range sch.Duplicates {
			at(&sch.Duplicates[i].Slot, sch.Duplicates[i].ScheduledFor, "schedule.duplicates[].scheduled_for")
		}
		for i := range sch.DoubleExecutions {
			at(&sch.DoubleExecutions[i].Slot, sch.DoubleExecutions[i].ScheduledFor, "schedule.double_executions[].scheduled_for")
		}
	}
	if bad != nil {
		return bad
	}
	s.runs = reportList(doc.Runs)
	return nil
}
