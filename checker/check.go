// Package checker is greenlight's pure core: it reads an event log, checks it
// against the event contract (schemas/event.schema.json and the sequence
// rules of docs/rules.md), folds valid events into run, stage and attempt
// states, and builds the health snapshot. It does no file or network I/O,
// reads no clock and keeps no global state: the caller passes the log as an
// io.Reader and "now" as a value, so every shell gives the same bytes.
package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// isSHA256Hex tells whether s is a SHA-256 digest in lowercase hex.
func isSHA256Hex(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// DefaultClockSkewSeconds is how far (seconds) an event may lie after now
// before it is timestamp_in_future.
const DefaultClockSkewSeconds = 300

// Options configure one Check. Definition and Now are required.
type Options struct {
	// Definition declares the expected stages; required.
	Definition *Definition
	// Now is the moment the log is judged at (stalls, future timestamps,
	// generated_at_utc); required.
	Now time.Time
	// StaleAfterSeconds overrides the definition's stall threshold when > 0.
	StaleAfterSeconds int
	// Gate is the verdict's scope; empty means GateAll.
	Gate Gate
	// File is the log's name as the user gave it ("-" for standard input),
	// used in violations and the snapshot's source.path.
	File string
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// Strict refuses fields outside the contract (rule unknown_field).
	Strict bool
	// MaxViolations caps the violations listed; 0 means DefaultMaxViolations.
	MaxViolations int
	// SchemaEveryEvent validates every event with the JSON Schema validator
	// instead of only those the compiled fast path rejects: slower, and the
	// obviously-correct reference.
	SchemaEveryEvent bool
	// JobLog, when not nil, is the job's own record of how attempts ended
	// (JSON Lines, schemas/joblog.schema.json), reconciled with the event
	// log (docs/recovery.md); JobLogFile is its name for messages.
	JobLog     io.Reader
	JobLogFile string
	// SHA256, when not empty, is the log's SHA-256 digest (64 lowercase hex
	// digits) computed by the caller, who vouches for it: Check then does
	// not hash the log and records this digest. The browser viewer passes
	// WebCrypto's digest, because SHA-256 compiled to WebAssembly runs at
	// about 20 MB/s.
	SHA256 string
	// Progress, when not nil, is called with the number of bytes of the log
	// read so far, from the goroutine that called Check, about every
	// ProgressEvery bytes and once when reading ends.
	Progress func(bytesRead int64)
	// Resume, when not nil, is the checkpoint of an earlier check of the
	// same log (docs/state.md): Check verifies that the log starts with
	// the bytes it read (a *StateMismatchError when not), loads its state
	// and decodes only the bytes after it.
	Resume *Checkpoint
	// Checkpoint asks for Result.Checkpoint when the log is valid.
	Checkpoint bool
}

// normalized is opts with every zero that means a default replaced by it,
// or an error for a value no check can use: the one normalization of
// Options, for Check and NewFeed (and, through Request.Options, for every
// shell). A zero Gate is GateAll, a zero or negative MaxLineBytes
// DefaultMaxLineBytes and MaxViolations DefaultMaxViolations; Now is
// required.
func (opts Options) normalized() (Options, error) {
	if opts.Now.IsZero() {
		return opts, errors.New("checker: Options.Now is required")
	}
	if opts.Gate == "" {
		opts.Gate = GateAll
	}
	if opts.Gate != GateAll && opts.Gate != GateLatest {
		return opts, fmt.Errorf("unknown gate %q (use all or latest)", opts.Gate)
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.MaxViolations <= 0 {
		opts.MaxViolations = DefaultMaxViolations
	}
	return opts, nil
}

// ProgressEvery is how many bytes (1 MiB) Options.Progress lets pass
// between calls.
const ProgressEvery = eventline.ProgressEvery

// DefaultMaxLineBytes is the longest line read by default (1 MiB).
const DefaultMaxLineBytes = 1 << 20

// MaxNumberChars is the longest a number in a contract field may be
// written, in characters (bytes: a JSON number is ASCII). No value in the
// event schema's ranges needs more (4294967295 has 10 digits), and a longer
// literal would cost the validator's exact arithmetic time that grows faster
// than the line. A longer one is a schema violation, refused before either
// check of the event schema runs, on every line: docs/contract.md.
const MaxNumberChars = eventline.MaxNumberChars

// Result is the outcome of a Check: Report always (Valid false when any rule
// was broken), and Snapshot only when the log is valid.
type Result struct {
	Report   *Report
	Snapshot *Snapshot
	// Checkpoint, with Options.Checkpoint and a valid log, is the state
	// for the next check of the log; nil with the reason in NoCheckpoint
	// when the state could not be resumed exactly.
	Checkpoint   *Checkpoint
	NoCheckpoint string
}

// Check reads the whole log from r, checks every line against the contract
// and, when no rule is broken, folds the events into a Snapshot judged at
// opts.Now. It never stops at the first violation. The error is non-nil only
// when opts are unusable or reading r fails; a broken contract is not an
// error but a Report with Valid false.
func Check(r io.Reader, opts Options) (*Result, error) {
	if opts.Definition == nil || len(opts.Definition.Stages) == 0 {
		return nil, errors.New("no pipeline definition: declare the expected stages with --pipeline FILE or --stages 1,2")
	}
	opts, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	c := newContractState(opts)
	if opts.JobLog != nil {
		if c.jobLog, err = readJobLog(opts.JobLog, opts.JobLogFile, opts.MaxLineBytes); err != nil {
			return nil, err
		}
	}
	var h hash.Hash
	if opts.SHA256 == "" {
		h = sha256.New()
	} else if !isSHA256Hex(opts.SHA256) {
		return nil, fmt.Errorf("checker: Options.SHA256 %q is not 64 lowercase hex digits", opts.SHA256)
	}
	var offset int64
	var lines int
	if opts.Resume != nil || opts.Checkpoint {
		if h == nil {
			return nil, errors.New("checker: a checkpoint needs the log's SHA-256 computed by Check, not Options.SHA256")
		}
		if opts.Resume != nil {
			if offset, lines, err = c.resume(opts.Resume, r, h); err != nil {
				return nil, err
			}
		}
	}
	tail := &tailReader{r: r, newline: offset > 0}
	r = tail
	if offset == 0 {
		var fault *eventline.Fault
		var stop bool
		r, fault, stop, err = eventline.Sniff(r)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", displayFile(opts.File), err)
		}
		if fault != nil {
			c.violate(1, RuleID(fault.Kind), fault.Msg, nil)
		}
		if stop {
			return &Result{Report: c.report}, nil
		}
	}
	lr := eventline.NewLineReader(r, opts.MaxLineBytes, h)
	lr.CountFrom(lines)
	cfg := eventline.Config{MaxLineBytes: opts.MaxLineBytes, Strict: opts.Strict, SchemaEveryEvent: opts.SchemaEveryEvent, Progress: opts.Progress}
	if err := eventline.Read(lr, &cfg, c.apply); err != nil {
		return nil, fmt.Errorf("reading %s: %w", displayFile(opts.File), err)
	}
	digest := opts.SHA256
	if h != nil {
		digest = hex.EncodeToString(h.Sum(nil))
	}
	res := &Result{Report: c.report}
	if !c.report.Valid {
		return res, nil
	}
	if opts.Checkpoint {
		if res.Checkpoint, res.NoCheckpoint, err = c.checkpointOf(offset+lr.BytesRead(), lr.Line(), h, tail.newline); err != nil {
			return nil, err
		}
	}
	res.Snapshot = c.snapshot(Source{
		Path:       opts.File,
		SHA256:     digest,
		EventCount: c.events,
		LineCount:  lr.Line(),
	})
	return res, nil
}

func displayFile(f string) string {
	if f == "" || f == "-" {
		return "standard input"
	}
	return f
}

// A log holds one attemptState per try and one runState per run, for the
// whole check: they are what memory grows with (issue 7 asks for a quarter
// of the Python peer's). So times are kept as Unix seconds and nanoseconds
// in separate fields (time.Time is 24 bytes with its location pointer; a
// seconds/nanoseconds pair packs into 12), an attempt keeps no end time
// of its own (an outcome is its last event: nothing may follow it), and a
// run's rarely used fields sit behind one pointer.

// attemptState is what the log has shown of one attempt: 80 bytes.
type attemptState struct {
	startSec   int64 // started event, Unix seconds
	lastSec    int64 // latest event (the outcome once there is one), Unix seconds
	startLine  int
	lastLine   int
	returncode int64
	err        string
	// x holds the recovery model's fields; nil while no event of the attempt
	// carried one, so that core-contract logs pay nothing for them.
	x *recoveryAttempt
	// The small fields come last, together, so the struct has no padding
	// between them.
	startNsec int32
	lastNsec  int32
	status    Status // StatusStarted while in progress
	hasCode   bool
	hasError  bool
	// neverStalls marks a stream or service (set by Feed): while in
	// progress it is running however long it is silent.
	neverStalls bool
}

// startedAt is the time of the attempt's started event (UTC).
func (a *attemptState) startedAt() time.Time { return unixTime(a.startSec, a.startNsec) }

// lastAt is the time of the attempt's latest event (UTC); once the attempt
// has an outcome it is the outcome's time, its end.
func (a *attemptState) lastAt() time.Time { return unixTime(a.lastSec, a.lastNsec) }

// touch records line n at t as the attempt's latest event.
func (a *attemptState) touch(t time.Time, n int) {
	a.lastSec, a.lastNsec, a.lastLine = t.Unix(), int32(t.Nanosecond()), n
}

// unixTime is the UTC time sec seconds and nsec nanoseconds after the Unix
// epoch; it gives back exactly the time.Time that was split.
func unixTime(sec int64, nsec int32) time.Time { return time.Unix(sec, int64(nsec)).UTC() }

// runState is what the log has shown of one run: 80 bytes. stages is
// indexed like the definition's stages and stages[i][k] is attempt k+1.
type runState struct {
	id        string
	firstLine int
	firstSec  int64 // first event, Unix seconds
	lastSec   int64 // latest event, Unix seconds
	stages    [][]attemptState
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
	// def, set by Feed, is this run's own list of expected stages; nil
	// means Options.Definition. plan is def's stage plan.
	def  *Definition
	plan *stagePlan
	recoveryRun
}

// firstAt and lastAt are the times of the run's first and latest events (UTC).
func (r *runState) firstAt() time.Time { return unixTime(r.firstSec, r.firstNsec) }
func (r *runState) lastAt() time.Time  { return unixTime(r.lastSec, r.lastNsec) }

// setLast records t as the time of the run's latest event.
func (r *runState) setLast(t time.Time) { r.lastSec, r.lastNsec = t.Unix(), int32(t.Nanosecond()) }

// x returns the run's rare fields for reading: the zero value when it has
// none.
func (r *runState) x() runExt {
	if r.ext == nil {
		return runExt{}
	}
	return *r.ext
}

// wx returns the run's rare fields for writing, allocating them on first use.
func (r *runState) wx() *runExt {
	if r.ext == nil {
		r.ext = &runExt{}
	}
	return r.ext
}

// slabSize is how many states one slab allocation holds.
const slabSize = 1024

// slabs hand out run and attempt states from large allocations, so that
// each costs its exact size (no size-class rounding, no per-object
// allocation) and the garbage collector sees a few large objects.
type slabs struct {
	runs     []runState
	stages   [][]attemptState
	attempts []attemptState
}

// newRun returns a run's state, its first event on line n at t, with
// room for the attempts of stages stages.
func (s *slabs) newRun(id string, n int, t time.Time, stages int) *runState {
	if len(s.runs) == cap(s.runs) {
		s.runs = make([]runState, 0, slabSize)
	}
	if cap(s.stages)-len(s.stages) < stages {
		s.stages = make([][]attemptState, 0, max(slabSize, stages))
	}
	s.runs = s.runs[:len(s.runs)+1]
	run := &s.runs[len(s.runs)-1]
	sec, nsec := t.Unix(), int32(t.Nanosecond())
	*run = runState{id: id, firstLine: n, firstSec: sec, lastSec: sec, firstNsec: nsec, lastNsec: nsec,
		stages: s.stages[len(s.stages) : len(s.stages)+stages : len(s.stages)+stages]}
	s.stages = s.stages[:len(s.stages)+stages]
	return run
}

// firstAttempt returns a slice holding a, with capacity 1: most stages have
// one attempt; a retry moves the stage's attempts to a slice of its own.
func (s *slabs) firstAttempt(a attemptState) []attemptState {
	if len(s.attempts) == cap(s.attempts) {
		s.attempts = make([]attemptState, 0, slabSize)
	}
	s.attempts = append(s.attempts, a)
	return s.attempts[len(s.attempts)-1 : len(s.attempts) : len(s.attempts)]
}

// contractState carries the sequence rules across lines.
type contractState struct {
	opts       Options
	stageIndex map[StageID]int
	// plan is the definition's dependencies as stage indexes.
	plan *stagePlan
	// declaredList is declared()'s text, once built.
	declaredList string
	// smallStages[k] is 1 + the index of integer stage k, 0 when k is not
	// declared, for k up to maxSmallStage: most pipelines number their
	// stages, and a slice index is cheaper than hashing a StageID.
	smallStages []int
	report      *Report
	runs        runIndex // finds a run in order by its id
	// last is the run of the latest applied event: most events follow
	// one of the same run, and then the runs map is not consulted.
	last   *runState
	order  []*runState // in order of first line
	events int
	skew   time.Duration
	// horizon is now plus skew: a later timestamp is in the future.
	horizon time.Time
	// errorTexts shares repeated error texts (errorText).
	errorTexts map[string]string
	attemptIDs map[string]attemptKey
	warnings   []Violation
	jobLog     *jobLog
	slabs      *slabs // shared with the per-run states of a Feed
	// line is the event being checked (apply, Feed.Run).
	line lineCheck
}

func newContractState(opts Options) *contractState {
	c := &contractState{
		opts:       opts,
		stageIndex: make(map[StageID]int, len(opts.Definition.Stages)),
		report:     NewReport(),
		runs:       newRunIndex(),
		slabs:      &slabs{},
		errorTexts: make(map[string]string),
		attemptIDs: make(map[string]attemptKey),
		skew:       DefaultClockSkewSeconds * time.Second,
	}
	for i, s := range opts.Definition.Stages {
		c.stageIndex[s.ID] = i
		if s.ID.Str == "" && s.ID.Int >= 0 && s.ID.Int <= maxSmallStage {
			if int(s.ID.Int) >= len(c.smallStages) {
				c.smallStages = append(c.smallStages, make([]int, int(s.ID.Int)+1-len(c.smallStages))...)
			}
			c.smallStages[s.ID.Int] = i + 1
		}
	}
	c.plan = newStagePlan(opts.Definition, c.stageOf)
	c.horizon = opts.Now.Add(c.skew)
	return c
}

// planOf returns the stage plan of run's definition: its own when it was fed
// with its own stages (Feed), else the check's.
func (c *contractState) planOf(run *runState) *stagePlan {
	if run.ext != nil && run.ext.plan != nil {
		return run.ext.plan
	}
	return c.plan
}

// errorText returns the error text of an event as a string. Pipelines fail
// the same few ways again and again, so texts are shared: the first
// maxErrorTexts distinct texts up to maxErrorTextBytes long are kept and
// reused, and every later failure with one of them costs no memory.
func (c *contractState) errorText(b []byte) string {
	if len(b) > maxErrorTextBytes {
		return string(b)
	}
	if s, ok := c.errorTexts[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(c.errorTexts) < maxErrorTexts {
		c.errorTexts[s] = s
	}
	return s
}

// The bounds of the shared error texts: a log of ever-new errors (each
// with its own id or path) must not grow a table beside the attempts.
const (
	maxErrorTexts     = 4096
	maxErrorTextBytes = 512
)

// maxSmallStage is the largest integer stage id smallStages indexes.
const maxSmallStage = 255

// stageOf returns the index of stage id in the definition, and whether the
// definition declares it.
func (c *contractState) stageOf(id StageID) (int, bool) {
	if id.Str == "" && id.Int >= 0 && id.Int < int64(len(c.smallStages)) {
		i := c.smallStages[id.Int]
		return i - 1, i > 0
	}
	si, ok := c.stageIndex[id]
	return si, ok
}

// eventRef names the event a violation is about.
type eventRef struct {
	run     string
	stage   StageID
	attempt int64
}

func (c *contractState) violate(line int, rule RuleID, msg string, ref *eventRef) {
	v := Violation{File: c.opts.File, Line: line, Rule: rule, Message: msg}
	if ref != nil {
		st := ref.stage
		v.RunID, v.Stage, v.Attempt = ref.run, &st, ref.attempt
	}
	c.report.Add(v, c.opts.MaxViolations)
}

// apply checks a decoded line against the rules in checking order
// (rules.go) and, when it breaks none, records it. At most one violation is
// reported per line: the first rule it breaks.
func (c *contractState) apply(dl *eventline.Decoded) {
	n := dl.Line
	if dl.Fault != nil {
		c.violate(n, RuleID(dl.Fault.Kind), dl.Fault.Msg, nil)
		return
	}
	ev := &dl.Event
	c.events++
	x := &c.line // reused: a lineCheck passed to the checks would escape
	*x = lineCheck{ev: ev, unknown: dl.Unknown}
	if rule, msg := c.check(x); rule != "" {
		c.violate(n, rule, msg, &eventRef{run: string(ev.RunID), stage: ev.Stage, attempt: ev.Attempt})
		return
	}
	c.record(x)
}

// declared lists the declared stage ids for an unknown_stage message. It is
// built once per check: a log of unknown stages against a definition of
// thousands of stages costs one list, not one per line.
func (c *contractState) declared() string {
	if c.declaredList == "" {
		var b strings.Builder
		for i, st := range c.opts.Definition.Stages {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(st.ID.String())
		}
		c.declaredList = b.String()
	}
	return c.declaredList
}

func attemptOutcome(a attemptState) string {
	if r := a.rx().resolution; r != nil {
		return "was resolved " + r.outcome.String()
	}
	switch a.status {
	case StatusStarted:
		return "is still running"
	case StatusSucceeded:
		return "succeeded"
	case StatusUnknown:
		return "has an unknown outcome that nobody resolved"
	}
	return a.status.String()
}

func stageWord(s Status) string {
	if s == StatusStarted {
		return "running"
	}
	return s.String()
}

// formatTime is the one layout of times in greenlight's output: RFC 3339 in
// UTC with the shortest exact fraction, as time.RFC3339Nano lays it out.
// Years 0 to 9999 are written by hand, a snapshot holds millions of
// times; TestFormatTime keeps the two equal.
func formatTime(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format(time.RFC3339Nano)
	}
	hour, minute, sec := t.Clock()
	var b [30]byte
	put := func(i, v, width int) {
		for k := i + width - 1; k >= i; k-- {
			b[k] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, year, 4)
	b[4] = '-'
	put(5, int(month), 2)
	b[7] = '-'
	put(8, day, 2)
	b[10] = 'T'
	put(11, hour, 2)
	b[13] = ':'
	put(14, minute, 2)
	b[16] = ':'
	put(17, sec, 2)
	n := 19
	if ns := t.Nanosecond(); ns != 0 {
		b[19] = '.'
		put(20, ns, 9)
		n = 29
		for b[n-1] == '0' {
			n--
		}
	}
	b[n] = 'Z'
	return string(b[:n+1])
}
