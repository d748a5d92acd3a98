// Package checker is greenlight's pure core: it reads an event log, checks it
// against the event contract (schemas/event.schema.json and the sequence
// rules of docs/rules.md), folds valid events into run, stage and attempt
// states, and builds the health snapshot. It does no file or network I/O,
// reads no clock and keeps no global state: the caller passes the log as an
// io.Reader and "now" as a value, so every shell gives the same bytes.
package checker

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
	"github.com/greenlight-ci/greenlight/internal/limits"
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
	// InferStages says an OpenLineage log without a definition may have
	// its stages inferred from the log under a gate (Request.InferStages);
	// the snapshot records it.
	InferStages bool
	// MaxAge is the freshness expectation (docs/contract.md, Freshness);
	// when not zero it overrides the definition's max_age.
	MaxAge MaxAge
	// Since, when above zero, limits the runs gate all judges to those
	// whose logical time (scheduled_for, else their first event) is at
	// most Since before Now (--since); freshness still applies. With a
	// window, a folded run that did not succeed is judged still, since its
	// record keeps no logical time to compare. It is an error with
	// GateLatest. Zero: every run.
	Since time.Duration
	// File is the log's name as the user gave it ("-" for standard input),
	// used in violations and the snapshot's source.path.
	File string
	// MaxLineBytes is the longest accepted line; 0 means limits.DefaultMaxLineBytes.
	MaxLineBytes int
	// Strict refuses fields outside the contract (rule unknown_field).
	Strict bool
	// MaxViolations caps the violations listed; 0 means limits.DefaultMaxViolations.
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
	// ToolVersion is the version of the program that checks, for the
	// snapshot's tool.version ("greenlight version" prints it); empty means
	// "devel", a build that names no version. A checkpoint records it (another build may fold the
	// same rules differently), and Feed's snapshots name it too, so it is
	// an option of the check, not of how the log is read.
	ToolVersion string
	// Window, when not zero, keeps in full only the runs in it and folds
	// the others whose attempts have all ended into compact records
	// (docs/window.md): the snapshot lists the runs in the window and
	// counts the folded ones; a checkpoint keeps the window's state
	// (docs/state.md). It cannot be combined with JobLog, nor given to
	// NewFeed.
	Window Window
}

// Reading is how a shell reads a log for CheckFiles, beside Options (what
// to check): the log's digest (given, computed by a host hash, or none),
// progress, and the checkpoints of --state (docs/state.md). The zero
// Reading hashes the log with crypto/sha256, reports no progress and
// neither resumes nor writes a checkpoint; it is what Check uses.
type Reading struct {
	// SHA256, when not empty, is the log's SHA-256 digest (64 lowercase hex
	// digits) computed by the caller, who vouches for it: CheckFiles then
	// does not hash the log and records this digest. It is for a log of
	// one file stored as read only. The browser viewer passes WebCrypto's
	// digest, because SHA-256 compiled to WebAssembly is slow.
	SHA256 string
	// NewSHA256, when not nil, makes the SHA-256 hashes CheckFiles
	// computes over the bytes it reads (nil: crypto/sha256's). Each
	// hash's state must marshal as crypto/sha256's
	// (encoding.BinaryMarshaler) for Checkpoint and Resume. The GitHub
	// Action's wasm module passes one that its host (node's crypto)
	// computes over those very bytes (internal/action).
	NewSHA256 func() hash.Hash
	// ContractOnly says the caller reads the Report and the snapshot's
	// counts only, as greenlight validate does: CheckFiles then hashes
	// nothing it reads, and the Snapshot's source sha256 (the log's, and
	// each file's but a compressed one's, which LogFile.Stored gives) is
	// empty, which the snapshot schema refuses, so such a snapshot is
	// never written out. It cannot be combined with SHA256, Checkpoint or
	// Resume.
	ContractOnly bool
	// Progress, when not nil, is called with the number of bytes of the log
	// read so far, from the goroutine that called CheckFiles, about every
	// MiB (1,048,576 bytes) and once when reading ends.
	Progress func(bytesRead int64)
	// Resume, when not nil, is the checkpoint of an earlier check of the
	// same log (ParseCheckpoint): CheckFiles verifies that each file it
	// read starts with the bytes it read there (a *CheckpointError with Mismatch when
	// not, a *CheckpointError when its state is damaged), loads its state
	// and decodes only the bytes after it.
	Resume *Checkpoint
	// Checkpoint asks for Result.Checkpoint when the log is valid.
	Checkpoint bool
	// CheckpointEncoded, when not nil, is called at most once, from the
	// goroutine that called CheckFiles, with the new checkpoint of a check
	// resumed from Resume at a file's offset (LogFile.At), once it is
	// encoded and while the old part of the log may still be being proven:
	// a shell can write it to a temporary file meanwhile (docs/state.md).
	// It is the check's checkpoint only when CheckFiles then returns it as
	// Result.Checkpoint with no error; otherwise it is to be thrown away.
	CheckpointEncoded func(cp *Checkpoint)

	// pieceSize is the bytes of a proof piece of the checkpoints written
	// (checkpoint.go), 0 for defaultPieceBytes: tests cut small logs into
	// several pieces.
	pieceSize int64
}

// check refuses a Reading no check can use.
func (rd Reading) check() error {
	if rd.ContractOnly && (rd.SHA256 != "" || rd.Checkpoint || rd.Resume != nil) {
		return errors.New("checker: Reading.ContractOnly hashes nothing: it cannot be combined with SHA256, Checkpoint or Resume")
	}
	if rd.SHA256 != "" && !isSHA256Hex(rd.SHA256) {
		return fmt.Errorf("checker: Reading.SHA256 %q is not 64 lowercase hex digits", rd.SHA256)
	}
	return nil
}

// pieceBytes is the size of a proof piece of the checkpoints written.
func (rd Reading) pieceBytes() int64 {
	if rd.pieceSize > 0 {
		return rd.pieceSize
	}
	return defaultPieceBytes
}

// newSHA256 is a new hash of NewSHA256's, or this build's SHA-256
// (defaultSHA256) without one.
func (rd Reading) newSHA256() hash.Hash {
	if rd.NewSHA256 != nil {
		return rd.NewSHA256()
	}
	return defaultSHA256()
}

// normalized is opts with every zero that means a default replaced by it,
// or an error for a value no check can use: the one normalization of
// Options, for Check and NewFeed (and, through Request.Options, for every
// shell). A zero Gate is GateAll, a zero or negative MaxLineBytes
// limits.DefaultMaxLineBytes and MaxViolations limits.DefaultMaxViolations; Now is
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
	if opts.Since < 0 || (opts.Since > 0 && opts.Gate != GateAll) {
		return opts, errors.New("since limits gate all: give it with gate all only")
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = limits.DefaultMaxLineBytes
	}
	if opts.MaxViolations <= 0 {
		opts.MaxViolations = limits.DefaultMaxViolations
	}
	if !opts.Window.isZero() {
		switch {
		case opts.Window.Duration > 0 && opts.Window.Runs > 0:
			return opts, errors.New("checker: a Window is a duration or a run count, not both")
		case opts.Window.Duration%time.Second != 0 || opts.Window.Duration > maxWindowDuration || opts.Window.Runs > maxWindowRuns:
			return opts, fmt.Errorf("checker: Window %s is not whole seconds up to 36500 days or a run count up to %d", opts.Window.text(), maxWindowRuns)
		case opts.JobLog != nil:
			return opts, errors.New("checker: Options.Window cannot be combined with Options.JobLog: the reconciliation compares every attempt")
		}
	}
	return opts, nil
}

// Result is the outcome of a Check: Report always (Valid false when any rule
// was broken), and Snapshot only when the log is valid.
type Result struct {
	Report   *Report
	Snapshot *Snapshot
	// Checkpoint, with Reading.Checkpoint and a valid log, is the state
	// for the next check of the log (Reading.Resume itself when the log
	// gained nothing since); nil with the reason in NoCheckpoint when the
	// state could not be resumed exactly.
	Checkpoint   *Checkpoint
	NoCheckpoint string
}

// Check reads the whole log from r, checks every line against the contract
// and, when no rule is broken, folds the events into a Snapshot judged at
// opts.Now. It never stops at the first violation. The error is non-nil only
// when opts are unusable or reading r fails; a broken contract is not an
// error but a Report with Valid false. It reads as the zero Reading does;
// CheckFiles takes a Reading.
func Check(r io.Reader, opts Options) (*Result, error) {
	return CheckFiles([]LogFile{{Path: opts.File, R: r}}, opts, Reading{})
}

func displayFile(f string) string {
	if f == "" || f == "-" {
		return "standard input"
	}
	return f
}

// The state of runs and attempts lives in checker/internal/runstore: the
// rules read and change it through its accessors only.
type (
	runState     = runstore.Run
	attemptState = runstore.Attempt
)

// runDef is a run's own definition (given by Feed) with its stage plan.
type runDef struct {
	def  *Definition
	plan *stagePlan
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
	// runs holds every run's state, in order of first line; shared with
	// the per-run states of a Feed.
	runs *runstore.Store
	// defs are the runs' own definitions (Feed), numbered from 1 in the
	// runs' states; shared with the per-run states of a Feed.
	defs   *[]runDef
	events int
	skew   time.Duration
	// horizon is now plus skew: a later timestamp is in the future.
	horizon time.Time
	// errorTexts shares repeated error texts (errorText).
	errorTexts map[string]string
	attemptIDs map[string]attemptKey
	// streaks are the retry brake's streaks across runs, by stage index
	// of the check's definition (brake_runs.go); nil until first used.
	streaks []brakeStreak
	// brakeTrips are the brakes that tripped across runs, by run and stage
	// (addToStreak); nil when none did.
	brakeTrips map[tripKey]*brakeTrip
	warnings   []Violation
	jobLog     *jobLog
	// line is the event being checked (apply, Feed.Run).
	line lineCheck
	// files are the log's files read so far (CheckFiles), for locate.
	files []fileSpan
	// applying is the line apply checks (0 outside apply); otherFile is
	// set by lineText when a message about it names a line of another
	// file of the log (separateLogsHint).
	applying  int
	otherFile string
	// window is what a check with Options.Window keeps of the runs it
	// folds; nil without a window.
	window *windowState
	// foldCfg judges the state of a run the window folds.
	foldCfg foldConfig
	// req holds the requests of request events (rule_request.go).
	req requestState
}

func newContractState(opts Options) *contractState {
	c := &contractState{
		opts:       opts,
		stageIndex: make(map[StageID]int, len(opts.Definition.Stages)),
		report:     NewReport(),
		runs:       runstore.New(),
		defs:       &[]runDef{},
		errorTexts: make(map[string]string),
		attemptIDs: make(map[string]attemptKey),
		streaks:    make([]brakeStreak, len(opts.Definition.Stages)),
		skew:       limits.ClockSkewSeconds * time.Second,
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
	if !opts.Window.isZero() {
		c.window = &windowState{win: opts.Window, nextSweep: minSweep}
		c.foldCfg = foldConfig{now: opts.Now, stale: time.Duration(c.staleAfter()) * time.Second, defs: c.defs, lineText: c.lineText, planOf: c.planOf}
	}
	return c
}

// planOf returns the stage plan of run's definition: its own when it was fed
// with its own stages (Feed), else the check's.
func (c *contractState) planOf(run *runState) *stagePlan {
	if n := run.Definition(); n > 0 {
		return (*c.defs)[n-1].plan
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
	file, line := c.locate(line)
	v := Violation{File: file, Line: line, Rule: rule, Message: msg}
	if ref != nil {
		st := ref.stage
		v.RunID, v.Stage, v.Attempt = ref.run, &st, ref.attempt
		if st == (StageID{}) { // a run-level event (closed) names no stage
			v.Stage, v.Attempt = nil, 0
		}
	}
	c.report.Add(v, c.opts.MaxViolations)
}

// listed reports whether the next violation would be listed in the report
// (within MaxViolations); beyond, a schema violation is counted without the
// validator's message (eventline.Config.Listed).
func (c *contractState) listed() bool {
	return len(c.report.Violations) < c.opts.MaxViolations
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
	c.applying, c.otherFile = n, ""
	var rule RuleID
	var msg string
	if ev.Status.IsRequest() {
		rule, msg = c.checkRequest(x) // rule_request.go: no stage, attempt or run
	} else {
		rule, msg = c.check(x)
	}
	c.applying = 0
	if rule != "" {
		if c.otherFile == "" && len(c.files) > 1 && x.run != nil {
			// The run the event joins began in another file.
			if first, _ := c.locate(x.run.FirstLine()); first != c.fileAt(n) {
				c.otherFile = first
			}
		}
		if c.otherFile != "" {
			msg += c.separateLogsHint(n)
		}
		ref := &eventRef{run: string(ev.RunID), stage: ev.Stage, attempt: ev.Attempt}
		if ev.Status.IsRequest() {
			ref = nil
		}
		c.violate(n, rule, msg, ref)
		return
	}
	if ev.Status.IsRequest() {
		c.recordRequest(x)
		return
	}
	c.record(x)
	if ev.RequestID != "" {
		c.linkRequest(ev, x.runID())
	}
	if c.window != nil {
		c.line.run = nil // a sweep moves the runs
		c.noteEvent(ev.Time)
	}
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
	if r := a.Recovery().Resolution; r != nil {
		return "was resolved " + r.Outcome.String()
	}
	switch a.Status() {
	case StatusStarted:
		return "is still running"
	case StatusSucceeded:
		return "succeeded"
	case StatusUnknown:
		return "has an unknown outcome that nobody resolved"
	}
	return a.Status().String()
}

func stageWord(s Status) string {
	if s == StatusStarted {
		return "running"
	}
	return s.String()
}

// formatTime is the one layout of times in greenlight's output: RFC 3339 in
// UTC with the shortest exact fraction, as time.RFC3339Nano lays it out.
// The years 0000 (from March) to 9999 are written by hand from the Unix
// time, without the time package's calendar, as a snapshot holds millions
// of times; TestFormatTime keeps the two equal.
func formatTime(t time.Time) string {
	var b [30]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends formatTime(t) to dst.
func appendTime(dst []byte, t time.Time) []byte { return appendTimeDated(dst, t, nil) }

// dateText is the date part ("2026-01-01T") of the day a report's time
// was last formatted in, so that the next time of the same day, as most
// times of a log are, is written without the calendar.
type dateText struct {
	day  int64 // formatTime's day number plus one; 0 before the first
	text [11]byte
}

// appendTimeDated is appendTime, keeping the date part of t's day in dc
// (when not nil) and taking it from there when t is of dc's day.
func appendTimeDated(dst []byte, t time.Time, dc *dateText) []byte {
	sec := t.Unix()
	if sec < minFormatUnix || sec > maxFormatUnix {
		return t.UTC().AppendFormat(dst, time.RFC3339Nano)
	}
	// Days since 0000-03-01 and the second of the day.
	days, secOfDay := (sec-minFormatUnix)/86400, int((sec-minFormatUnix)%86400)
	n0 := len(dst)
	dst = slices.Grow(dst, 30)
	b := (*[30]byte)(dst[n0 : n0+30])
	two := func(i, v int) { b[i], b[i+1] = digitPairs[2*v], digitPairs[2*v+1] }
	if dc != nil && dc.day == days+1 {
		*(*[11]byte)(b[:11]) = dc.text
	} else {
		// A year starts in March here, so that February's leap day ends
		// it (the civil-from-days algorithm of Howard Hinnant's
		// "chrono-Compatible Low-Level Date Algorithms", for days from
		// year 0 on, which are never negative).
		era, doe := days/146097, days%146097
		yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
		doy := doe - (365*yoe + yoe/4 - yoe/100)
		mp := (5*doy + 2) / 153
		day := int(doy - (153*mp+2)/5 + 1)
		month := int(mp + 3)
		if month > 12 {
			month -= 12
		}
		year := int(era*400 + yoe)
		if month <= 2 {
			year++
		}
		two(0, year/100)
		two(2, year%100)
		b[4] = '-'
		two(5, month)
		b[7] = '-'
		two(8, day)
		b[10] = 'T'
		if dc != nil {
			dc.day, dc.text = days+1, *(*[11]byte)(b[:11])
		}
	}
	hour, minute := secOfDay/3600, secOfDay/60%60
	two(11, hour)
	b[13] = ':'
	two(14, minute)
	b[16] = ':'
	two(17, secOfDay%60)
	n := 19
	if ns := t.Nanosecond(); ns != 0 {
		b[19] = '.'
		b[20] = byte('0' + ns/1e8)
		two(21, ns/1e6%100)
		two(23, ns/1e4%100)
		two(25, ns/100%100)
		two(27, ns%100)
		n = 29
		for b[n-1] == '0' {
			n--
		}
	}
	b[n] = 'Z'
	return dst[:n0+n+1]
}

// Bounds of the instants formatTime writes itself, in Unix seconds: from
// 0000-03-01 to the end of 9999 in UTC (TestFormatTime checks them against
// the time package). It writes two digits at a time from digitPairs.
const (
	minFormatUnix = -62162035200 // 0000-03-01T00:00:00Z, day 0 of formatTime's calendar
	maxFormatUnix = 253402300799 // 9999-12-31T23:59:59Z
)

// digitPairs holds the two ASCII digits of each number 00 to 99, in order:
// digitPairs[2*v] and digitPairs[2*v+1] are v's tens and units, for
// writing decimal digits two at a time.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
