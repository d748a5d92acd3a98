package checker

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
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
// log: its name as given, how it was stored (Compression: "none" today),
// the bytes of its text read (Offset, always the end of a line) and the
// lines in them.
type CheckpointFile struct {
	File        string
	Compression string
	Offset      int64
	Lines       int
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
	// logHash is the digest state of the log's text read so far, across
	// its files (the snapshot's source.sha256); for a log of one file it
	// is that file's.
	logHash []byte
	events  int
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
// checkpoint read (rewritten, truncated, rotated away), the checkpoint was
// written under other options, or it holds an event after now plus the
// clock skew. File and Offset name the log and the byte offset the
// checkpoint stopped at.
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
	d := runstore.NewDecoder(body)
	cp := &Checkpoint{}
	readSettings(d, &cp.settings)
	n := d.Count()
	for range n {
		f := CheckpointFile{File: d.String(), Compression: d.String()}
		f.Offset, f.Lines = int64(d.Uvarint()), int(d.Uvarint())
		f.hashState = []byte(d.String())
		if f.Offset < 0 || f.Lines < 0 {
			d.Fail("a file offset out of range")
		}
		cp.files = append(cp.files, f)
	}
	cp.logHash = []byte(d.String())
	cp.events = int(d.Uvarint())
	if d.Bool() {
		cp.maxEvent = d.Time()
	}
	if d.Fault() != "" {
		return nil, damaged(d.Fault())
	}
	if len(cp.files) != 1 {
		return bad("it lists %d files; this greenlight resumes a log of one file", len(cp.files))
	}
	if c := cp.files[0].Compression; c != "none" {
		return bad("its file was stored as %.20q; this greenlight resumes an uncompressed file", c)
	}
	cp.fold = d.Rest()
	return cp, nil
}

// WriteTo writes the checkpoint file: for a checkpoint built by Check its
// encoding, for a parsed one the bytes it was parsed from.
func (cp *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	e := &runstore.Encoder{B: make([]byte, 0, cp.sizeHint())}
	e.B = append(e.B, checkpointMagic...)
	writeSettings(e, cp.settings)
	e.Uvarint(uint64(len(cp.files)))
	for _, f := range cp.files {
		e.String(f.File)
		e.String(f.Compression)
		e.Uvarint(uint64(f.Offset))
		e.Uvarint(uint64(f.Lines))
		e.String(string(f.hashState))
	}
	e.String(string(cp.logHash))
	e.Uvarint(uint64(cp.events))
	e.Bool(!cp.maxEvent.IsZero())
	if !cp.maxEvent.IsZero() {
		e.Time(cp.maxEvent)
	}
	if cp.c != nil {
		if err := cp.c.encodeFold(e); err != nil {
			return 0, err
		}
	} else {
		e.B = append(e.B, cp.fold...)
	}
	sum := sha256.Sum256(e.B)
	e.B = append(e.B, sum[:]...)
	n, err := w.Write(e.B)
	return int64(n), err
}

// resume verifies that the log r starts with the bytes cp read and loads
// cp's fold state into c: it reads cp's prefix of r into h at hash speed,
// without decoding it, and compares the SHA-256 state. A damaged fold
// state is a *CheckpointError, a prefix that does not fit a
// *StateMismatchError. It returns the
// prefix's length and lines.
func (c *contractState) resume(cp *Checkpoint, r io.Reader, h hash.Hash) (offset int64, lines int, err error) {
	f := cp.files[0]
	mismatch := func(format string, args ...any) (int64, int, error) {
		return 0, 0, &StateMismatchError{File: c.opts.File, Offset: f.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	// The file's name is not compared: the hash proves the bytes, and
	// the name in every output is the one given now (a log named
	// ./events.jsonl one time and events.jsonl the next is one log).
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
	// The prefix is hashed on another core while the fold state is
	// decoded: neither needs the other until both are done.
	type hashed struct {
		n   int64
		err error
	}
	done := make(chan hashed, 1)
	go func() {
		n, err := io.CopyBuffer(h, io.LimitReader(r, f.Offset), make([]byte, 1<<20))
		done <- hashed{n, err}
	}()
	foldErr := c.decodeFold(cp.fold)
	prefix := <-done
	if foldErr != nil {
		return 0, 0, foldErr // a damaged checkpoint is never a mismatch to recheck
	}
	if prefix.err != nil {
		return 0, 0, prefix.err
	}
	if prefix.n < f.Offset {
		return mismatch("the log has only %d bytes (truncated, or rotated away)", prefix.n)
	}
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return 0, 0, err
	}
	if !bytes.Equal(state, f.hashState) {
		return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", f.Offset)
	}
	c.events = cp.events
	return f.Offset, f.Lines, nil
}

// checkpointOf builds the checkpoint of a valid check that read offset
// bytes and lines lines of the log into h; ok is false with the reason
// when the state cannot be resumed exactly.
//
// A check resumed from a checkpoint that read nothing after it gets that
// very checkpoint back (Options.Resume): its bytes are the ones the check
// would write, and a shell may leave the file as it is.
func (c *contractState) checkpointOf(offset int64, lines int, h hash.Hash, endsWithNewline bool) (cp *Checkpoint, why string, err error) {
	if r := c.opts.Resume; r != nil && offset == r.files[0].Offset {
		return r, "", nil
	}
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
	cp = &Checkpoint{settings: settings, events: c.events, c: c, logHash: state,
		files: []CheckpointFile{{File: c.opts.File, Compression: "none", Offset: offset, Lines: lines, hashState: state}}}
	for _, run := range c.runs.Runs() {
		if t := run.LastAt(); t.After(cp.maxEvent) {
			cp.maxEvent = t
		}
	}
	return cp, "", nil
}

// sizeHint is about the bytes of the checkpoint's encoding: 56 a run.
func (cp *Checkpoint) sizeHint() int {
	if cp.c == nil {
		return len(cp.fold) + 4096
	}
	return 56*cp.c.runs.Len() + 4096
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

func writeSettings(e *runstore.Encoder, s checkpointSettings) {
	e.B = append(e.B, s.definition[:]...)
	e.B = append(e.B, s.rules[:]...)
	e.Bool(s.strict)
	e.Uvarint(s.maxLineBytes)
	e.Uvarint(s.maxViolations)
	e.Uvarint(s.staleAfter)
}

func readSettings(d *runstore.Decoder, s *checkpointSettings) {
	copy(s.definition[:], d.Fixed(sha256.Size))
	copy(s.rules[:], d.Fixed(sha256.Size))
	s.strict = d.Bool()
	s.maxLineBytes = d.Uvarint()
	s.maxViolations = d.Uvarint()
	s.staleAfter = d.Uvarint()
}

// damaged is the error of a checkpoint whose decoding found a fault.
func damaged(fault string) error {
	return &CheckpointError{Reason: "its contents are damaged (" + fault + ")"}
}
