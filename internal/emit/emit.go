// Package emit appends events to a greenlight event log, safely and only
// when they keep the log valid (docs/emit.md). It is the writing side of
// "greenlight emit" and "greenlight run" (run.go); the checker
// stays a pure reader, and emit asks it, through its public API, whether
// the log plus the new event is still valid.
//
// Every append takes an exclusive advisory lock on LOG.lock beside the file
// the log's path resolves to (LockPath; flock(2), or LockFileEx on Windows,
// through github.com/gofrs/flock), reads the log,
// refuses a log whose last line has no newline, checks the log plus the
// candidate event with checker.Check judged at the event's own time, and
// then writes the event as one whole line with one write(2) on a descriptor
// opened with O_APPEND, followed by fsync.
package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// TimeLayout is how emit writes timestamp_utc and lease_expires_at: RFC 3339
// in UTC with all nine digits of nanoseconds, so that lines sort as text.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// LockSuffix names the lock file beside the log: LOG + LockSuffix. The log
// itself is not locked because LockFileEx, unlike flock(2), keeps other
// handles from reading the locked bytes; a shell writer can take the same
// lock with flock(1) on this file.
const LockSuffix = ".lock"

// LockPath is the lock file of the log at path: beside the file the path
// resolves to, through every symbolic link (of the log, of a parent
// directory, of a link whose target does not exist yet), plus LockSuffix.
// Two writers that spell the log differently (current.jsonl, a link to
// events.jsonl) so take the same lock, events.jsonl.lock. A relative path
// that involves no link stays relative. Hard links of one log are two
// names the lock cannot see through: give writers one name.
func LockPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r + LockSuffix
	}
	return cli.ResolvePath(path) + LockSuffix
}

// DefaultLockTimeout is how long an append waits for another writer's
// lock. A writer holds it only to read, check and append one line.
const DefaultLockTimeout = time.Minute

// lockRetry is how often a waiting append tries the lock again.
const lockRetry = 5 * time.Millisecond

// Event is one event to append, before the log gives it its attempt and
// its time. Empty strings and nil pointers are absent fields. A run-level
// event (status closed) has the zero Stage: it is written without stage
// and attempt.
type Event struct {
	RunID string
	Stage checker.StageID
	// Attempt is the attempt number; 0 lets the log choose it: the next
	// attempt of the stage in the run for started, else its latest (1 when
	// the stage has none).
	Attempt int64
	// Status is the event's status as the log writes it (started,
	// succeeded, failed, heartbeat, unknown, resolved, skipped); the checker's
	// schema check refuses any other.
	Status     string
	Returncode *int64
	Error      *string
	Owner      string
	AttemptID  string
	// Lease, when > 0, sets lease_expires_at to the event's time plus Lease.
	Lease time.Duration
	// The proof that the attempt's owner stopped, on an outcome that takes
	// over another owner's attempt (stop_confirmed_by, stop_evidence_ref,
	// stop_method; docs/recovery.md); "" leaves a field out.
	StopConfirmedBy, StopEvidenceRef, StopMethod string
	// RequestID is the request_id: on a run's event, the request that
	// started the run; it keys a request event (Status requested or
	// claimed), which has no stage or attempt and names RunID only when it
	// is not empty (docs/recovery.md, Claimed requests). ClaimedBy and
	// StaleRequestReconciled are written when not empty; ClaimedAt, on a
	// claimed event, defaults to the event's time.
	RequestID, ClaimedBy, StaleRequestReconciled string
	ClaimedAt                                    *time.Time
	// Fields are further fields, in order, each a key and one JSON value.
	Fields []Field
}

// Field is one extra field of an event: a key and its value as JSON text.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Log is an event log to append to.
type Log struct {
	// Path is the log's file name; the file is created when missing.
	Path string
	// Options are the checker options the log is judged with (Definition is
	// required); Now and File are set by each append.
	Options checker.Options
	// LockTimeout is how long an append waits for the lock before it
	// gives up with an error; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Clock gives each event its time, read once the lock is held, so that
	// events of one run are written in time order. Nil means time.Now.
	Clock func() time.Time
}

// Appended is what an append wrote.
type Appended struct {
	// Line is the 1-based line number of the event in the log.
	Line    int
	Attempt int64
	Time    time.Time
	// Text is the line written, newline included.
	Text []byte
	// Warnings are the checker's warnings about the new event
	// (retry_past_brake without enforce).
	Warnings []checker.Violation
}

// RefusedError is an event that would make the log invalid: the violations
// check would report on its line. Nothing was appended.
type RefusedError struct {
	Path       string
	Violations []checker.Violation
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "%s:%d: %s: %s\n", render.Terminal(v.File), v.Line, v.Rule, render.TerminalMessage(v.Message))
	}
	fmt.Fprintf(&b, "refused: the event would make %s invalid, so nothing was appended", render.Terminal(e.Path))
	return b.String()
}

// InvalidLogError is a log that is invalid before anything is appended:
// emit appends only to a valid log. Report holds check's violations.
type InvalidLogError struct {
	Path   string
	Report *checker.Report
}

// shownViolations is how many violations of an invalid log an error lists.
const shownViolations = 5

func (e *InvalidLogError) Error() string {
	var b strings.Builder
	for i, v := range e.Report.Violations {
		if i == shownViolations {
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s: %s\n", render.Terminal(v.File), v.Line, v.Rule, render.TerminalMessage(v.Message))
	}
	fmt.Fprintf(&b, "refused: %s is already invalid (%s), and greenlight appends only to a valid log; see \"greenlight check\" and fix it first",
		render.Terminal(e.Path), words.Count(e.Report.ViolationCount, "contract violation"))
	return b.String()
}

// TornLineError is a log whose last line has no newline: a writer may have
// stopped in the middle of it. Nothing was appended.
type TornLineError struct {
	Path string
	Line int // the last line's 1-based number
}

func (e *TornLineError) Error() string {
	p := render.Terminal(e.Path)
	return fmt.Sprintf("refused: the last line of %s (line %d) has no newline, so a writer may have stopped in the middle of it; greenlight does not guess. "+
		"Look at that line (tail -n 1 %s): if it is a whole event, end it with a newline (printf '\\n' >> %s); if it is cut off, move it out of the log and record what happened to its attempt. Then append again",
		p, e.Line, p, p)
}

// Append writes ev to the log if the log stays valid with it. The errors
// are *RefusedError, *InvalidLogError and *TornLineError for the log's
// reasons, and others for files that cannot be locked, read or written.
func (l *Log) Append(ev Event) (Appended, error) {
	return l.append(ev, false)
}

// AppendStart appends a started event after asking the log whether the
// stage can start now with the event stripped of attempt_id: a second start
// is then refused as duplicate_start, not as an attempt that changes its id
// (duplicate_attempt_id). The event itself is checked as Append checks it.
func (l *Log) AppendStart(ev Event) (Appended, error) {
	return l.append(ev, true)
}

func (l *Log) append(ev Event, probe bool) (Appended, error) {
	lockPath := LockPath(l.Path)
	lock := flock.New(lockPath, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o644))
	wait := l.LockTimeout
	if wait <= 0 {
		wait = DefaultLockTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	ok, err := lock.TryLockContext(ctx, lockRetry)
	cancel()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return Appended{}, fmt.Errorf("cannot lock %s: %s", render.Terminal(lockPath), osfile.Describe(err))
	}
	if !ok {
		return Appended{}, fmt.Errorf("cannot lock %s within %s: another writer holds it; nothing was appended", render.Terminal(lockPath), wait)
	}
	defer lock.Close()

	f, err := osfile.Open(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = nil, nil
	}
	if err != nil {
		return Appended{}, fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
	}
	if f != nil {
		defer f.Close()
	}
	log := &logFile{f: f}
	if torn, lines, err := log.endsTorn(); err != nil {
		return Appended{}, fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
	} else if torn {
		return Appended{}, &TornLineError{Path: l.Path, Line: lines}
	}
	clock := l.Clock
	if clock == nil {
		clock = time.Now
	}
	now := clock().UTC()
	opts := l.Options
	opts.Now = now
	opts.File = l.Path

	attempt := ev.Attempt
	if attempt == 0 && ev.Stage != (checker.StageID{}) { // a run-level or request event (zero Stage) has no attempt
		r, err := log.reader()
		if err != nil {
			return Appended{}, fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
		}
		res, err := checker.Check(r, opts)
		if err != nil {
			return Appended{}, err
		}
		if !res.Report.Valid {
			return Appended{}, &InvalidLogError{Path: l.Path, Report: res.Report}
		}
		attempt = chooseAttempt(res.Snapshot, ev)
	}
	if probe && ev.AttemptID != "" {
		bare := ev
		bare.AttemptID = ""
		if _, _, err := l.check(log, Encode(bare, attempt, now), opts); err != nil {
			return Appended{}, err
		}
	}
	text := Encode(ev, attempt, now)
	res, line, err := l.check(log, text, opts)
	if err != nil {
		return Appended{}, err
	}
	var warnings []checker.Violation
	for _, w := range res.Snapshot.Warnings {
		if w.Line == line {
			warnings = append(warnings, w)
		}
	}
	// The last check read the log through: its size is what was checked.
	if err := appendLine(l.Path, text, log.size); err != nil {
		return Appended{}, err
	}
	return Appended{Line: line, Attempt: attempt, Time: now, Text: text, Warnings: warnings}, nil
}

// logFile is the log as it is read under the lock: streamed from its
// start for each check, its lines counted on the way, so that a large log
// is never held in memory whole. f is nil for a log that does not exist.
type logFile struct {
	f     *os.File
	lines int   // newlines seen by the latest reader, once it is read through
	size  int64 // bytes read by the latest reader, once it is read through
}

// endsTorn reports whether the log's last byte is not a newline, and then
// the number of its last line.
func (l *logFile) endsTorn() (bool, int, error) {
	if l.f == nil {
		return false, 0, nil
	}
	st, err := l.f.Stat()
	if err != nil || st.Size() == 0 {
		return false, 0, err
	}
	last := make([]byte, 1)
	if _, err := l.f.ReadAt(last, st.Size()-1); err != nil {
		return false, 0, err
	}
	if last[0] == '\n' {
		return false, 0, nil
	}
	r, err := l.reader()
	if err != nil {
		return false, 0, err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return false, 0, err
	}
	return true, l.lines + 1, nil
}

// reader reads the log from its start, counting its newlines in l.lines
// and its bytes in l.size.
func (l *logFile) reader() (io.Reader, error) {
	l.lines, l.size = 0, 0
	if l.f == nil {
		return bytes.NewReader(nil), nil
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return lineCounter{l}, nil
}

type lineCounter struct{ l *logFile }

func (c lineCounter) Read(p []byte) (int, error) {
	n, err := c.l.f.Read(p)
	c.l.lines += bytes.Count(p[:n], []byte("\n"))
	c.l.size += int64(n)
	return n, err
}

// check checks the log plus the candidate line text and returns the result
// and the candidate's line number when the log stays valid with it.
func (l *Log) check(log *logFile, text []byte, opts checker.Options) (*checker.Result, int, error) {
	r, err := log.reader()
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
	}
	res, err := checker.Check(io.MultiReader(r, bytes.NewReader(text)), opts)
	if err != nil {
		return nil, 0, err
	}
	line := log.lines + 1
	if !res.Report.Valid {
		var mine []checker.Violation
		for _, v := range res.Report.Violations {
			if v.Line < line {
				return nil, 0, &InvalidLogError{Path: l.Path, Report: res.Report}
			}
			mine = append(mine, v)
		}
		return nil, 0, &RefusedError{Path: l.Path, Violations: mine}
	}
	return res, line, nil
}

// chooseAttempt picks the attempt of an event that does not name one: the
// next attempt of its stage in its run for started, else the latest (1 when
// the stage has none).
func chooseAttempt(s *checker.Snapshot, ev Event) int64 {
	var latest int64
	for r := range s.Runs() {
		if r.RunID != ev.RunID {
			continue
		}
		for j := range r.Stages {
			if r.Stages[j].Stage == ev.Stage {
				for _, a := range r.Stages[j].Attempts {
					latest = max(latest, a.Attempt)
				}
			}
		}
		break
	}
	if ev.Status == checker.StatusStarted.String() {
		return latest + 1
	}
	return max(latest, 1)
}

// Encode is the event's line: the contract fields in the schema's order,
// then returncode, error, owner, attempt_id, lease_expires_at,
// stop_confirmed_by, stop_evidence_ref, stop_method and the extra fields, ending in a newline. Strings are JSON-escaped (invalid UTF-8
// becomes U+FFFD); <, > and & are kept as they are.
func Encode(ev Event, attempt int64, at time.Time) []byte {
	if isRequestEvent(ev) {
		return encodeRequest(ev, at)
	}
	b := []byte(`{"run_id":`)
	b = appendString(b, ev.RunID)
	if ev.Stage != (checker.StageID{}) { // a run-level event (closed) names neither
		b = append(b, `,"stage":`...)
		stage, _ := ev.Stage.MarshalJSON()
		b = append(b, stage...)
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, attempt, 10)
	}
	b = append(b, `,"status":`...)
	b = appendString(b, ev.Status)
	b = append(b, `,"timestamp_utc":`...)
	b = appendString(b, at.UTC().Format(TimeLayout))
	if ev.Returncode != nil {
		b = append(b, `,"returncode":`...)
		b = strconv.AppendInt(b, *ev.Returncode, 10)
	}
	if ev.Error != nil {
		b = append(b, `,"error":`...)
		b = appendString(b, *ev.Error)
	}
	if ev.Owner != "" {
		b = append(b, `,"owner":`...)
		b = appendString(b, ev.Owner)
	}
	if ev.AttemptID != "" {
		b = append(b, `,"attempt_id":`...)
		b = appendString(b, ev.AttemptID)
	}
	if ev.Lease > 0 {
		b = append(b, `,"lease_expires_at":`...)
		b = appendString(b, at.Add(ev.Lease).UTC().Format(TimeLayout))
	}
	for _, f := range [...]struct{ key, value string }{
		{"stop_confirmed_by", ev.StopConfirmedBy}, {"stop_evidence_ref", ev.StopEvidenceRef}, {"stop_method", ev.StopMethod},
	} {
		if f.value != "" {
			b = append(b, `,"`+f.key+`":`...)
			b = appendString(b, f.value)
		}
	}
	if ev.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendString(b, ev.RequestID)
	}
	return appendFields(b, ev.Fields)
}

// appendFields appends the extra fields and the line's end.
func appendFields(b []byte, fields []Field) []byte {
	for _, f := range fields {
		b = append(b, ',')
		b = appendString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, "}\n"...)
}

// isRequestEvent says whether ev is a request event (status requested or
// claimed), which names a request and no stage or attempt.
func isRequestEvent(ev Event) bool {
	return ev.Status == checker.StatusRequested.String() || ev.Status == checker.StatusClaimed.String()
}

// encodeRequest is Encode of a request event: request_id, status,
// timestamp_utc, then run_id, claimed_by, claimed_at (a claimed event's
// own time unless ClaimedAt is set), stale_request_reconciled, when given,
// and the extra fields.
func encodeRequest(ev Event, at time.Time) []byte {
	b := []byte(`{"request_id":`)
	b = appendString(b, ev.RequestID)
	b = append(b, `,"status":`...)
	b = appendString(b, ev.Status)
	b = append(b, `,"timestamp_utc":`...)
	b = appendString(b, at.UTC().Format(TimeLayout))
	claimedAt := ""
	if ev.Status == checker.StatusClaimed.String() {
		claimedAt = at.UTC().Format(TimeLayout)
		if ev.ClaimedAt != nil {
			claimedAt = ev.ClaimedAt.UTC().Format(TimeLayout)
		}
	}
	for _, f := range [...]struct{ key, value string }{
		{"run_id", ev.RunID}, {"claimed_by", ev.ClaimedBy}, {"claimed_at", claimedAt}, {"stale_request_reconciled", ev.StaleRequestReconciled},
	} {
		if f.value != "" {
			b = append(b, `,"`+f.key+`":`...)
			b = appendString(b, f.value)
		}
	}
	return appendFields(b, ev.Fields)
}

func appendString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendWrite is the one write of an append (writeOnce); tests replace it
// to make a short write.
var appendWrite = writeOnce

// appendLine writes text to the end of the log with one write(2) on a
// descriptor opened with O_APPEND, then fsyncs the file. checked is the
// log's size as the check read it under the lock: on a failed or short
// write, or a failed sync, the log is truncated back to it, so that it
// holds no torn line and the next writer is not refused (a full disk, or
// RLIMIT_FSIZE, writes part of a line), and the error says so.
func appendLine(path string, text []byte, checked int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open the event log for appending: %s", osfile.Describe(err))
	}
	undo := func(what string, err error) error {
		msg := fmt.Sprintf("cannot %s %s: %s", what, render.Terminal(path), osfile.Describe(err))
		if terr := f.Truncate(checked); terr != nil {
			f.Close()
			return fmt.Errorf("%s; truncating it back to the %s checked failed too (%s), so its last line may now be cut off (greenlight refuses to append until it is fixed)",
				msg, words.Count(int(checked), "byte"), osfile.Describe(terr))
		}
		serr := f.Sync()
		f.Close()
		if serr != nil {
			return fmt.Errorf("%s; it was truncated back to the %s checked, but syncing that failed (%s)", msg, words.Count(int(checked), "byte"), osfile.Describe(serr))
		}
		return fmt.Errorf("%s; nothing was appended: the log was truncated back to the %s checked", msg, words.Count(int(checked), "byte"))
	}
	n, err := appendWrite(f, text)
	if err == nil && n != len(text) {
		err = fmt.Errorf("wrote %d of %s", n, words.Count(len(text), "byte"))
	}
	if err != nil {
		return undo("append to", err)
	}
	if err := f.Sync(); err != nil {
		return undo("sync", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot close %s after appending: %s", render.Terminal(path), osfile.Describe(err))
	}
	return nil
}

// writeOnce makes exactly one write system call with all of b.
func writeOnce(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		n, werr = rawWrite(fd, b)
		return true
	}); err != nil {
		return n, err
	}
	return n, werr
}
