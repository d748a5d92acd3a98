package checker

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"
)

// A checkpoint (docs/state.md) lets a check of a log that only grew since
// the last one read just the new bytes: it holds where the earlier check
// stopped in each file, the SHA-256 state of the bytes it read, and the fold
// state (runs, attempts, warnings, attempt ids) those bytes left. The
// next check hashes the prefix without decoding it, compares the hash state,
// loads the fold state and goes on from there, with the result a full check
// of the same log at the same now would give, byte for byte.

// CheckpointVersion is the first line of a checkpoint file: its format and
// version. A file with any other first line is no checkpoint of this
// greenlight.
const CheckpointVersion = "greenlight.state/v1"

// checkpointMagic is the checkpoint file's first line, newline included.
var checkpointMagic = []byte(CheckpointVersion + "\n")

// CheckpointFile is where a checkpoint's check stopped in one file of the
// log: its name as given, the bytes read (Offset, always the end of a line)
// and the lines in them.
type CheckpointFile struct {
	File   string
	Offset int64
	Lines  int
	// hashState is the file's crypto/sha256 digest state after Offset
	// bytes (encoding.BinaryMarshaler's form).
	hashState []byte
}

// Checkpoint is the state a valid check leaves for the next check of the
// same log: parsed from a file (ParseCheckpoint) to resume from
// (Options.Resume), or built by Check (Options.Checkpoint) to be written
// (WriteTo). Its layout is in docs/state.md.
type Checkpoint struct {
	files    []CheckpointFile
	settings checkpointSettings
	events   int
	// maxEvent is the latest timestamp of every event read, zero without
	// events: a later check whose now plus skew is before it would find
	// that event in the future.
	maxEvent time.Time
	// fold is the encoded fold state of a parsed checkpoint.
	fold []byte
	// c is the check whose state a built checkpoint writes.
	c *contractState
}

// Files lists where the checkpoint's check stopped in each file it read, in
// reading order.
func (cp *Checkpoint) Files() []CheckpointFile { return append([]CheckpointFile(nil), cp.files...) }

// checkpointSettings are the options that decide how a line is judged and
// what the fold keeps of it: a checkpoint written under other settings is a
// mismatch. The gate, the job log and now (beyond the latest event) only
// matter when the snapshot is built, so they may change between checks.
type checkpointSettings struct {
	definition    [sha256.Size]byte // of the definition's JSON form
	rules         [sha256.Size]byte // of the rule ids in checking order
	strict        bool
	maxLineBytes  uint64
	maxViolations uint64 // caps the listed retry-brake warnings
	staleAfter    uint64 // Options.StaleAfterSeconds
}

// settingsOf returns the settings of normalized options.
func settingsOf(opts Options) (checkpointSettings, error) {
	def, err := json.Marshal(opts.Definition)
	if err != nil {
		return checkpointSettings{}, fmt.Errorf("checker: the pipeline definition cannot be encoded for a checkpoint: %w", err)
	}
	rules := sha256.New()
	for _, r := range checkingOrder {
		rules.Write([]byte(r.ID))
		rules.Write([]byte{0})
	}
	s := checkpointSettings{definition: sha256.Sum256(def), strict: opts.Strict,
		maxLineBytes: uint64(opts.MaxLineBytes), maxViolations: uint64(opts.MaxViolations), staleAfter: uint64(max(opts.StaleAfterSeconds, 0))}
	rules.Sum(s.rules[:0])
	return s, nil
}

// differs names the first setting in which s and o differ, or "".
func (s checkpointSettings) differs(o checkpointSettings) string {
	switch {
	case s.definition != o.definition:
		return "the pipeline definition (stages, dependencies, schedule or thresholds)"
	case s.rules != o.rules:
		return "the contract rules of this greenlight"
	case s.strict != o.strict:
		return "--strict"
	case s.maxLineBytes != o.maxLineBytes:
		return "--max-line-bytes"
	case s.maxViolations != o.maxViolations:
		return "--max-violations"
	case s.staleAfter != o.staleAfter:
		return "--stale-after-seconds"
	}
	return ""
}

// CheckpointError is a checkpoint file that cannot be read: not a
// checkpoint, another version, or damaged. It is never a reason to check
// the whole log silently.
type CheckpointError struct {
	Reason string
}

func (e *CheckpointError) Error() string { return "the checkpoint is unusable: " + e.Reason }

// StateMismatchError is a checkpoint that does not fit the log or the
// options it is resumed with: the log no longer starts with the bytes the
// checkpoint read (rewritten, truncated, rotated away), or the checkpoint
// was written for another file or under other options. File and Offset
// name the file and the byte offset the checkpoint stopped at.
type StateMismatchError struct {
	File   string
	Offset int64
	Reason string
}

func (e *StateMismatchError) Error() string {
	return fmt.Sprintf("the checkpoint does not fit %s at byte offset %d: %s", displayFile(e.File), e.Offset, e.Reason)
}

// ParseCheckpoint reads a checkpoint file's bytes. The error is a
// *CheckpointError for anything that is not an intact checkpoint of
// CheckpointVersion.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	bad := func(format string, args ...any) (*Checkpoint, error) {
		return nil, &CheckpointError{Reason: fmt.Sprintf(format, args...)}
	}
	line, _, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !bytes.HasPrefix(line, []byte("greenlight.state/")) {
		return bad("it is not a greenlight checkpoint (its first line is not %s)", CheckpointVersion)
	}
	if string(line) != CheckpointVersion {
		return bad("it is a checkpoint of version %.40q, and this greenlight reads %s only", line, CheckpointVersion)
	}
	if len(data) < len(checkpointMagic)+sha256.Size {
		return bad("it is truncated")
	}
	body, sum := data[len(checkpointMagic):len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(data[:len(data)-sha256.Size]); !bytes.Equal(got[:], sum) {
		return bad("its SHA-256 trailer does not match its contents (truncated or damaged)")
	}
	d := &stateDecoder{b: body}
	cp := &Checkpoint{}
	d.readSettings(&cp.settings)
	n := d.count()
	for range n {
		f := CheckpointFile{File: d.str(), Offset: int64(d.uvarint()), Lines: int(d.uvarint()), hashState: []byte(d.str())}
		if f.Offset < 0 || f.Lines < 0 {
			d.fail("a file offset out of range")
		}
		cp.files = append(cp.files, f)
	}
	cp.events = int(d.uvarint())
	if d.byte() == 1 {
		cp.maxEvent = d.time()
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(cp.files) != 1 {
		return bad("it lists %d files; this greenlight checks one", len(cp.files))
	}
	cp.fold = d.b
	return cp, nil
}

// WriteTo writes the checkpoint file: for a checkpoint built by Check its
// encoding, for a parsed one the bytes it was parsed from.
func (cp *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	e := &stateEncoder{}
	e.b = append(e.b, checkpointMagic...)
	e.writeSettings(cp.settings)
	e.uvarint(uint64(len(cp.files)))
	for _, f := range cp.files {
		e.str(f.File)
		e.uvarint(uint64(f.Offset))
		e.uvarint(uint64(f.Lines))
		e.str(string(f.hashState))
	}
	e.uvarint(uint64(cp.events))
	if cp.maxEvent.IsZero() {
		e.byte(0)
	} else {
		e.byte(1)
		e.time(cp.maxEvent)
	}
	if cp.c != nil {
		cp.c.encodeFold(e)
	} else {
		e.b = append(e.b, cp.fold...)
	}
	sum := sha256.Sum256(e.b)
	e.b = append(e.b, sum[:]...)
	n, err := w.Write(e.b)
	return int64(n), err
}

// resume verifies that the log r starts with the bytes cp read and loads
// cp's fold state into c: it reads cp's prefix of r into h at hash speed,
// without decoding it, and compares the SHA-256 state. It returns the
// prefix's length and lines.
func (c *contractState) resume(cp *Checkpoint, r io.Reader, h hash.Hash) (offset int64, lines int, err error) {
	f := cp.files[0]
	mismatch := func(format string, args ...any) (int64, int, error) {
		return 0, 0, &StateMismatchError{File: c.opts.File, Offset: f.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	if f.File != c.opts.File {
		return mismatch("the checkpoint was written for the log %q", f.File)
	}
	settings, err := settingsOf(c.opts)
	if err != nil {
		return 0, 0, err
	}
	if what := cp.settings.differs(settings); what != "" {
		return mismatch("it was written under other options: %s differs", what)
	}
	if cp.maxEvent.After(c.horizon) {
		return mismatch("it holds an event at %s, after --now %s plus the %d s clock skew (a full check would find it in the future)",
			formatTime(cp.maxEvent), formatTime(c.opts.Now), int64(c.skew/time.Second))
	}
	n, err := io.CopyN(h, r, f.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, err
	}
	if n < f.Offset {
		return mismatch("the log has only %d bytes (truncated, or rotated away)", n)
	}
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return 0, 0, err
	}
	if !bytes.Equal(state, f.hashState) {
		return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", f.Offset)
	}
	if err := c.decodeFold(cp.fold); err != nil {
		return 0, 0, err
	}
	c.events = cp.events
	return f.Offset, f.Lines, nil
}

// checkpointOf builds the checkpoint of a valid check that read offset
// bytes and lines lines of the log into h; ok is false with the reason
// when the state cannot be resumed exactly.
func (c *contractState) checkpointOf(offset int64, lines int, h hash.Hash, endsWithNewline bool) (cp *Checkpoint, why string, err error) {
	if offset > 0 && !endsWithNewline {
		return nil, "the log's last line has no newline, and a line may still be being written: the next check could not tell", nil
	}
	if h == nil {
		return nil, "the log's SHA-256 was given (Options.SHA256), not computed", nil
	}
	settings, err := settingsOf(c.opts)
	if err != nil {
		return nil, "", err
	}
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, "", err
	}
	cp = &Checkpoint{settings: settings, events: c.events, c: c,
		files: []CheckpointFile{{File: c.opts.File, Offset: offset, Lines: lines, hashState: state}}}
	for _, run := range c.order {
		if t := run.lastAt(); t.After(cp.maxEvent) {
			cp.maxEvent = t
		}
	}
	return cp, "", nil
}

// tailReader remembers whether the last byte read from r was a newline.
type tailReader struct {
	r       io.Reader
	newline bool
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.newline = p[n-1] == '\n'
	}
	return n, err
}

// stateEncoder appends a checkpoint's encoding to b: unsigned and signed
// varints (encoding/binary), strings as their length and bytes.
type stateEncoder struct {
	b []byte
	// texts numbers the error texts written so far: an error text is
	// written once and then referred to by its number.
	texts map[string]uint64
}

func (e *stateEncoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *stateEncoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *stateEncoder) byte(v byte)      { e.b = append(e.b, v) }

func (e *stateEncoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *stateEncoder) bool(v bool) {
	if v {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

// time writes t as Unix seconds and nanoseconds; a zero time is written as
// a flag byte 0 by the callers that allow one.
func (e *stateEncoder) time(t time.Time) {
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

func (e *stateEncoder) writeSettings(s checkpointSettings) {
	e.b = append(e.b, s.definition[:]...)
	e.b = append(e.b, s.rules[:]...)
	e.bool(s.strict)
	e.uvarint(s.maxLineBytes)
	e.uvarint(s.maxViolations)
	e.uvarint(s.staleAfter)
}

// stateDecoder reads what stateEncoder wrote; the first fault sticks in err
// (a *CheckpointError) and every later read returns zeros.
type stateDecoder struct {
	b     []byte
	err   error
	texts []string
}

func (d *stateDecoder) fail(what string) {
	if d.err == nil {
		d.err = &CheckpointError{Reason: "its contents are damaged (" + what + ")"}
	}
	d.b = nil
}

func (d *stateDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *stateDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *stateDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("it ends early")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *stateDecoder) bool() bool { return d.byte() == 1 }

// count reads a number of elements that follow, each at least one byte.
func (d *stateDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("a count beyond its end")
		return 0
	}
	return int(n)
}

func (d *stateDecoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *stateDecoder) str() string { return string(d.bytes()) }

func (d *stateDecoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 {
		d.fail("a time out of range")
		return time.Time{}
	}
	return unixTime(sec, int32(nsec))
}

func (d *stateDecoder) hash() (h [sha256.Size]byte) {
	if len(d.b) < sha256.Size {
		d.fail("it ends early")
		return h
	}
	copy(h[:], d.b)
	d.b = d.b[sha256.Size:]
	return h
}

func (d *stateDecoder) readSettings(s *checkpointSettings) {
	s.definition = d.hash()
	s.rules = d.hash()
	s.strict = d.bool()
	s.maxLineBytes = d.uvarint()
	s.maxViolations = d.uvarint()
	s.staleAfter = d.uvarint()
}
