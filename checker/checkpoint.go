package checker

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/proof"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// A checkpoint (docs/state.md) lets a check of a log that only grew since
// the last one read just the new bytes: it holds where the earlier check
// stopped in each file, the SHA-256 state of the bytes it read, and the fold
// state (runs, attempts, warnings, attempt ids, a window's folded runs)
// those bytes left. The next check hashes the prefix without decoding it,
// compares the hash state, loads the fold state and goes on from there,
// with the result a full check of the same log at the same now would give,
// byte for byte.

// checkpointVersion is the first line of a checkpoint file: its format and
// version (docs/state.md). A file with any other first line is no
// checkpoint of this greenlight.
const checkpointVersion = "greenlight.state/v6"

// checkpointMagic is the checkpoint file's first line, newline included.
var checkpointMagic = []byte(checkpointVersion + "\n")

// checkpointFile is where a checkpoint's check stopped in one file of the
// log: its name as given, how it was stored (Compression: "none",
// "gzip" or "zstd"), the bytes of its text read (Offset:
// the whole text's length, except in the last file, where it is always the
// end of a line) and the lines in them.
type checkpointFile struct {
	File        string
	Compression string
	Offset      int64
	Lines       int
	// hashState is the crypto/sha256 digest state of the file's own text
	// after Offset bytes (encoding.BinaryMarshaler's form).
	hashState []byte
	// pieceSize is the bytes of a proof piece (checker/internal/proof),
	// pieceSums the SHA-256 digest of each whole piece of the first Offset
	// bytes, and pieceTail the digest of the bytes after the last one.
	pieceSize int64
	pieceSums []byte
	pieceTail []byte
}

// Checkpoint is the state a valid check leaves for the next check of the
// same log: parsed from a file (ParseCheckpoint) to resume from
// (Reading.Resume), or built by CheckFiles (Reading.Checkpoint) to be written
// (WriteTo). Its layout is in docs/state.md.
type Checkpoint struct {
	files    []checkpointFile
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
	// encoded, when not nil, is the file's bytes in parts (encode),
	// encoded by CheckFiles while the proof of the log's old part ran
	// (verifyAt).
	encoded [][]byte
	// c is the check whose state a built checkpoint writes.
	c *contractState
}

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
	staleAfter    uint64 // the stall threshold in force (staleAfterOf), seconds
	window        string // Options.Window (Window.String), "" without one
	// tool is the version of the greenlight that wrote the checkpoint
	// (Options.ToolVersion): another build may fold the same rules
	// differently, so its fold state is not trusted.
	tool string
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
		maxLineBytes: uint64(opts.MaxLineBytes), maxViolations: uint64(opts.MaxViolations), staleAfter: uint64(staleAfterOf(opts)),
		window: opts.Window.text(), tool: toolOf(opts).Version}
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
	case s.window != o.window:
		return "--window"
	case s.tool != o.tool:
		return "the greenlight version"
	}
	return ""
}

// CheckpointError is a checkpoint that cannot be resumed from, for one of
// two reasons that a shell tells apart by Mismatch:
//
//   - Mismatch false: the checkpoint file cannot be read: not a
//     checkpoint, another version, or damaged. ParseCheckpoint returns
//     it, and so does CheckFiles for a fold state found damaged once the
//     check reads it; a run of the checkpoint first decoded while a
//     snapshot's runs are read panics with it (the shell reports it as it
//     reports the error). It is never a reason to check the whole log
//     silently.
//   - Mismatch true: the checkpoint is intact but does not fit the log or
//     the options it is resumed with (CheckFiles): the log no longer
//     starts with the bytes the checkpoint read (rewritten, truncated,
//     rotated away), the checkpoint was written under other options, or it
//     holds an event after now plus the clock skew; in a log of several
//     files, also a file fewer or an earlier file grown. File and Offset
//     name the file that does not fit (or the log, for what is not one
//     file's) and the byte offset the checkpoint stopped at in it.
//
// Reason says what is wrong, in words, without the checkpoint's name.
type CheckpointError struct {
	Mismatch bool
	File     string
	Offset   int64
	Reason   string
}

func (e *CheckpointError) Error() string {
	if e.Mismatch {
		return fmt.Sprintf("the checkpoint does not fit %s at byte offset %d: %s", displayFile(e.File), e.Offset, e.Reason)
	}
	return "the checkpoint is unusable: " + e.Reason
}

// ParseCheckpoint reads a checkpoint file's bytes. The error is a
// *CheckpointError for anything that is not an intact checkpoint of
// checkpointVersion ("greenlight.state/v6"). The checkpoint keeps data, which must not change
// while it, or a check resumed from it, is used: its runs are read from
// there when needed, and the next checkpoint writes them from there.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	bad := func(format string, args ...any) (*Checkpoint, error) {
		return nil, &CheckpointError{Reason: fmt.Sprintf(format, args...)}
	}
	line, _, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !bytes.HasPrefix(line, []byte("greenlight.state/")) {
		return bad("it is not a greenlight checkpoint (its first line is not %s)", checkpointVersion)
	}
	if string(line) != checkpointVersion {
		return bad("it is a checkpoint of version %.40q, and this greenlight reads %s only", line, checkpointVersion)
	}
	if len(data) < len(checkpointMagic)+trailerSize {
		return bad("it is truncated")
	}
	body, sum := data[len(checkpointMagic):len(data)-trailerSize], data[len(data)-trailerSize:]
	if crc32.Checksum(data[:len(data)-trailerSize], castagnoli) != binary.LittleEndian.Uint32(sum) {
		return bad("its CRC-32C trailer does not match its contents (truncated or damaged)")
	}
	d := runstore.NewDecoder(body)
	cp := &Checkpoint{}
	readSettings(d, &cp.settings)
	n := d.Count()
	for range n {
		f := checkpointFile{File: d.String(), Compression: d.String()}
		f.Offset, f.Lines = int64(d.Uvarint()), d.Int()
		f.hashState = []byte(d.String())
		f.pieceSize = int64(d.Uvarint())
		f.pieceSums = []byte(d.String())
		f.pieceTail = []byte(d.String())
		switch {
		case f.Offset < 0 || f.Lines < 0:
			d.Fail("a file offset out of range")
		case int64(f.Lines) > f.Offset:
			// A line is at least its one byte.
			d.Fail("a line count out of range")
		case f.pieceSize <= 0 || f.pieceSize > maxPieceBytes:
			d.Fail("a proof piece size out of range")
		}
		// The first fault is the one kept (Decoder.Fail), and the piece
		// size divides only once it is known to be in range.
		if d.Fault() == "" {
			switch {
			case int64(len(f.pieceSums)) != f.Offset/f.pieceSize*proof.DigestSize:
				d.Fail("a file's piece digests do not cover its offset")
			case len(f.pieceTail) != proof.DigestSize:
				d.Fail("a file's last piece digest is not 32 bytes")
			}
		}
		cp.files = append(cp.files, f)
	}
	cp.logHash = []byte(d.String())
	events := d.Uvarint()
	lines := 0
	for _, f := range cp.files {
		lines = min(lines, math.MaxInt-f.Lines) + f.Lines // saturating
	}
	if events > uint64(lines) && d.Fault() == "" {
		// An event is one line; compared as uint64, so that a count int
		// cannot hold is out of range on a 32-bit target too.
		d.Fail("an event count out of range")
	}
	cp.events = int(min(events, uint64(lines)))
	if d.Bool() {
		cp.maxEvent = d.Time()
	}
	if d.Fault() != "" {
		return nil, damaged(d.Fault())
	}
	if len(cp.files) == 0 {
		return bad("it lists no file")
	}
	for _, f := range cp.files {
		switch f.Compression {
		case compressionNone, compressionGzip, compressionZstd:
		default:
			return bad("it lists a file stored as %.20q, which this greenlight does not read", f.Compression)
		}
	}
	cp.fold = d.Rest()
	return cp, nil
}

// WriteTo writes the checkpoint file (docs/state.md, "Format"): for a
// checkpoint built by CheckFiles its encoding, for a parsed one the bytes it
// was parsed from. It returns the bytes written and w's error, or, before
// anything is written, an error for a state the format cannot hold (over
// 4 GiB of run ids or encodings).
func (cp *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	parts := cp.encoded
	if parts == nil {
		var err error
		if parts, err = cp.encode(); err != nil {
			return 0, err
		}
	}
	var n int64
	for _, b := range parts {
		k, err := w.Write(b)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// encode is the checkpoint file's bytes, in parts: the runs of the
// checkpoint a check resumed from that no new event touched are that
// checkpoint's bytes, not copies (runstore.Encoder.Borrow).
func (cp *Checkpoint) encode() ([][]byte, error) {
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
		e.Uvarint(uint64(f.pieceSize))
		e.String(string(f.pieceSums))
		e.String(string(f.pieceTail))
	}
	e.String(string(cp.logHash))
	e.Uvarint(uint64(cp.events))
	e.Bool(!cp.maxEvent.IsZero())
	if !cp.maxEvent.IsZero() {
		e.Time(cp.maxEvent)
	}
	if cp.c != nil {
		if err := cp.c.encodeFold(e); err != nil {
			return nil, err
		}
	} else {
		e.Borrow(cp.fold)
	}
	parts := e.Parts()
	var sum uint32
	for _, b := range parts {
		sum = crc32.Update(sum, castagnoli, b)
	}
	return append(parts, binary.LittleEndian.AppendUint32(nil, sum)), nil
}

// A file's old part is proven piece by piece (checker/internal/proof,
// docs/state.md "The proof of the old part"): besides the digest state of
// the file's whole text, which the log's source.sha256 goes on from, a
// checkpoint keeps the SHA-256 digest of each piece of pieceSize bytes of
// the text, from its start, and of the bytes after the last whole piece.
// defaultPieceBytes is the size of a proof piece (1 MiB): a 137 MB log is
// 131 pieces, enough for several cores to share evenly, and a checkpoint
// holds 32 bytes for each. The last, partial piece is hashed again by
// every resumed check, so pieces are kept small. maxPieceBytes bounds what
// a checkpoint may name.
const (
	defaultPieceBytes = 1 << 20
	maxPieceBytes     = 1 << 30
)

// The trailer of a checkpoint is the CRC-32C (Castagnoli) of everything
// before it, little endian: it finds a truncated or damaged file (a CPU
// instruction computes it at memory speed); it is no seal against a
// writer, who could write any state anyway (docs/state.md).
const trailerSize = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sizeHint is about the bytes of the checkpoint's encoding.
func (cp *Checkpoint) sizeHint() int {
	if cp.c == nil {
		return len(cp.fold) + 4096
	}
	n := cp.c.runs.SizeHint() + 4096
	if w := cp.c.window; w != nil {
		n += w.folded.SizeHint() + 32*len(w.stubs)
	}
	return n
}

func writeSettings(e *runstore.Encoder, s checkpointSettings) {
	e.B = append(e.B, s.definition[:]...)
	e.B = append(e.B, s.rules[:]...)
	e.Bool(s.strict)
	e.Uvarint(s.maxLineBytes)
	e.Uvarint(s.maxViolations)
	e.Uvarint(s.staleAfter)
	e.String(s.window)
	e.String(s.tool)
}

func readSettings(d *runstore.Decoder, s *checkpointSettings) {
	copy(s.definition[:], d.Fixed(sha256.Size))
	copy(s.rules[:], d.Fixed(sha256.Size))
	s.strict = d.Bool()
	s.maxLineBytes = d.Uvarint()
	s.maxViolations = d.Uvarint()
	s.staleAfter = d.Uvarint()
	s.window = d.String()
	s.tool = d.String()
}

// damaged is the error of a checkpoint whose decoding found a fault.
func damaged(fault string) error {
	return &CheckpointError{Reason: "its contents are damaged (" + fault + ")"}
}
