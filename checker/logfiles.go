package checker

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"sort"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/proof"
)

// toolName is the snapshot's tool.name.
const toolName = "greenlight"

// DevelVersion is the tool version of a build that names none: neither a
// release nor a module version (a build in a checkout without VCS stamping,
// a test binary). Options.ToolVersion defaults to it.
const DevelVersion = "devel"

// Tool names the program that wrote a snapshot (the snapshot's tool):
// greenlight and its version, as "greenlight version" prints it.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// toolOf is the snapshot's tool for opts.
func toolOf(opts Options) Tool {
	v := opts.ToolVersion
	if v == "" {
		v = DevelVersion
	}
	return Tool{Name: toolName, Version: v}
}

// The values of SourceFile.Compression.
const (
	CompressionNone = "none"
	CompressionGzip = "gzip"
	CompressionZstd = "zstd"
)

// SourceFile is one file of the log a snapshot was made from (the
// snapshot's source.files), in reading order. SHA256 and Size are those of
// the file as stored (what sha256sum and ls -l show, compressed or not);
// LineCount counts the lines of its text (after decompression).
type SourceFile struct {
	Path        string `json:"path"`
	SHA256      string `json:"sha256"`
	Size        int64  `json:"size"`
	LineCount   int    `json:"line_count"`
	Compression string `json:"compression"`
}

// StoredFile is what a shell knows of a file once it has been read whole:
// the SHA-256 (64 lowercase hex digits) and size in bytes of its bytes as
// stored, and how they were compressed (CompressionNone, CompressionGzip
// or CompressionZstd).
type StoredFile struct {
	SHA256      string
	Size        int64
	Compression string
}

// LogFile is one file of a log read as one log: the files of a rotated log,
// given to CheckFiles in reading order. Line numbers start again at 1 in
// each file, and a file's end ends its last line, newline or not.
type LogFile struct {
	// Path names the file in violations and in source.files ("-" for
	// standard input).
	Path string
	// R gives the file's JSON Lines text; a compressed file's shell
	// decompresses it (internal/logsource). When the text cannot be read
	// whole (a truncated or corrupt compressed stream), R returns an error
	// that wraps a *BrokenStreamError.
	R io.Reader
	// Stored, when not nil, is called once R is read to its end and
	// describes the file as stored (a compressed file). When nil, the
	// bytes R gives are the file as stored, and Check hashes them.
	Stored func() StoredFile
	// At, when not nil, reads the bytes R gives at any offset (a regular
	// file stored as read; Stored is nil). A check resumed from a
	// checkpoint (Options.Resume) then hashes the part of the file the
	// checkpoint read from At while it decodes the rest, read from At too
	// (R is not read).
	At io.ReaderAt
}

// BrokenStreamError is the error a LogFile's reader returns when the file's
// bytes stop making text part way (a truncated gzip or zstd stream, a bad
// checksum). CheckFiles reports it as an invalid_json violation on the line
// where the file's text broke off, so the log is invalid (exit 2) and never
// a silently short log; Msg says what broke, without the file's name.
type BrokenStreamError struct{ Msg string }

func (e *BrokenStreamError) Error() string { return e.Msg }

// fileSpan is where one file of the log starts: its path and the number of
// lines of the files before it.
type fileSpan struct {
	path string
	base int
}

// locate turns a line of the log (counted across its files) into its file
// and its line within that file.
func (c *contractState) locate(line int) (string, int) {
	if len(c.files) == 0 {
		return c.opts.File, line
	}
	i := sort.Search(len(c.files), func(i int) bool { return c.files[i].base >= line }) - 1
	if i < 0 {
		i = 0
	}
	return c.files[i].path, line - c.files[i].base
}

// lineText names a line of the log (counted across its files) in the
// words of a message: "line 6" in a log of one file, "line 6 of FILE" (the
// line within FILE) in a log of several. Violations, recovery steps and
// every other message of the core name lines this way.
func (c *contractState) lineText(line int) string {
	if len(c.files) <= 1 {
		return fmt.Sprintf("line %d", line)
	}
	file, n := c.locate(line)
	if c.applying > 0 && c.fileAt(c.applying) != file {
		c.otherFile = file
	}
	return lineWords(file, n)
}

// fileAt is the file of a line of the log (counted across its files).
func (c *contractState) fileAt(line int) string {
	file, _ := c.locate(line)
	return file
}

// separateLogsHint ends the message of a violation on line (counted across
// the log's files) that names a line of another file, or whose run began
// in another file (c.otherFile): the
// two files may be the logs of separate pipelines, which can reuse run ids
// (Airflow names scheduled runs scheduled__<logical date> in every DAG), so
// that events of two pipelines' runs meet in one run of the log.
func (c *contractState) separateLogsHint(line int) string {
	file := c.fileAt(line)
	return fmt.Sprintf("; %s and %s may be separate pipelines' logs, which can share run ids (Airflow's scheduled__2026-12-04T02:00:00+00:00 is one in every DAG): check each on its own, then merge the snapshots",
		displayFile(c.otherFile), displayFile(file))
}

// lineWords is "line N of FILE", the words for line n of a file of a log
// of several.
func lineWords(file string, n int) string {
	return fmt.Sprintf("line %d of %s", n, displayFile(file))
}

// Locate turns a line of the log the snapshot was made from (the lines its
// runs and attempts name, counted across the log's files) into the file it
// is in and its line there. For a log of one file it is that file and the
// same line; a line past the last file is in the last file.
func (s Source) Locate(line int) (path string, fileLine int) {
	if len(s.Files) == 0 {
		return s.Path, line
	}
	for _, f := range s.Files[:len(s.Files)-1] {
		if line <= f.LineCount {
			return f.Path, line
		}
		line -= f.LineCount
	}
	return s.Files[len(s.Files)-1].Path, line
}

// LineText names a line of the log the snapshot was made from (counted
// across its files, as the snapshot's lines are) the way the checker's own
// messages do: "line 6" for a log of one file, "line 2 of FILE" (its line
// within FILE, found by Locate) for a log of several. Renderers use it for
// the lines they name in words; the snapshot's numbers stay as they are.
func (s Source) LineText(line int) string {
	if len(s.Files) <= 1 {
		return fmt.Sprintf("line %d", line)
	}
	return lineWords(s.Locate(line))
}

// CheckFiles is Check of a log made of several files, read one after the
// other as one log: a run that spans two files is one run. Violations name
// the file and the line within it; the snapshot's runs and attempts count
// lines across the files (Source.Locate maps them back), and source.files
// lists each file. opts.File names the whole log (source.path); opts.SHA256
// may be given only for a log of one file whose bytes are stored as read.
func CheckFiles(files []LogFile, opts Options) (res *Result, err error) {
	if len(files) == 0 {
		return nil, errors.New("checker: a log needs at least one file")
	}
	if opts.Definition == nil || len(opts.Definition.Stages) == 0 {
		return nil, errors.New("checker: no pipeline definition: set Options.Definition (ParseDefinition, or LinearDefinition of the stage ids)")
	}
	opts, err = opts.normalized()
	if err != nil {
		return nil, err
	}
	if opts.SHA256 != "" && (len(files) != 1 || files[0].Stored != nil) {
		return nil, errors.New("checker: Options.SHA256 is for a log of one file stored as read")
	}
	c := newContractState(opts)
	defer func() {
		if err != nil {
			res = nil
		}
	}()
	// A run of the checkpoint that does not decode when the check reads it.
	defer recoverDamage(&err)
	if opts.JobLog != nil {
		if c.jobLog, err = readJobLog(opts.JobLog, opts.JobLogFile, opts.MaxLineBytes); err != nil {
			return nil, err
		}
	}
	var h hash.Hash
	switch {
	case opts.ContractOnly: // nothing to hash
	case opts.SHA256 == "":
		h = opts.newSHA256()
	case !isSHA256Hex(opts.SHA256):
		return nil, fmt.Errorf("checker: Options.SHA256 %q is not 64 lowercase hex digits", opts.SHA256)
	}
	var cp *Checkpoint
	waitFold := func() error { return nil }
	var foldDone <-chan struct{}
	// verify, when not nil, waits for the proof of the last file's part
	// the checkpoint read (verifyAt): nothing is returned before it, and a
	// misfit it finds is the check's error, unless the fold state is
	// damaged (a damaged checkpoint is never a mismatch to recheck).
	var verify func() error
	var prf *fileProof // verify's proof, for a file resumed at its offset
	defer func() {
		if verify == nil {
			return
		}
		var damage *CheckpointError
		if verr := verify(); verr != nil && !errors.As(err, &damage) {
			res, err = nil, verr
		}
	}()
	if opts.Resume != nil || opts.Checkpoint {
		if h == nil {
			return nil, errors.New("checker: a checkpoint needs the log's SHA-256 computed by Check, not Options.SHA256")
		}
		if cp = opts.Resume; cp != nil {
			if err := c.fits(cp, files); err != nil {
				return nil, err
			}
			waitFold, foldDone = c.startFold(cp)
		}
	}
	progress := opts.Progress
	var done int64 // bytes of the files before the current one
	lines := 0
	src := make([]SourceFile, 0, len(files))
	read := make([]CheckpointFile, 0, len(files)) // where the check stopped in each file
	newline := false                              // whether the last file read ends with a newline
	for i, f := range files {
		c.files = append(c.files, fileSpan{path: f.Path, base: lines})
		// A file stored as read is hashed on its own when the log has
		// several: the log's digest covers them all.
		var own hash.Hash
		r := f.R
		// The last file the checkpoint read, when it can be read at an
		// offset, is read from there on while another goroutine proves
		// the part before it.
		resumed := cp != nil && i < len(cp.files)
		at := resumed && i == len(cp.files)-1 && f.At != nil && f.Stored == nil
		// A checkpoint written keeps the digests of the text's pieces: a
		// file the checkpoint read goes on from its pieces, after the
		// part of its last piece read again (to prove it, at an offset).
		var pc *proof.Pieces
		if at {
			offset := cp.files[i].Offset
			r = io.NewSectionReader(f.At, offset, math.MaxInt64-offset)
			pc = resumePieces(cp.files[i])
			prf = verifyAt(cp, i, f, len(files) == 1, pc)
			verify = prf.wait
		}
		if f.Stored == nil && len(files) > 1 && !opts.ContractOnly {
			own = opts.newSHA256()
			r = eventline.HashingReader(r, own)
		}
		// text is the digest of the file's text a checkpoint keeps: the
		// log's own in a log of one file, own for a file stored as read,
		// and for a compressed one a digest of its text, when a checkpoint
		// is read or written.
		text := own
		switch {
		case len(files) == 1:
			text = h
		case f.Stored != nil && (opts.Checkpoint || cp != nil):
			text = opts.newSHA256()
			r = eventline.HashingReader(r, text)
		}
		if opts.Checkpoint {
			skip := int64(0)
			switch {
			case at:
				// pc holds the last piece's bytes before the offset
			case resumed:
				pc = resumePieces(cp.files[i])
				skip = wholeBytes(cp.files[i])
			default:
				pc = proof.New(opts.pieceBytes())
			}
			r = proof.Feed(r, pc, skip)
		}
		counted := &countingReader{r: r}
		tail := &tailReader{r: counted}
		if at && cp.files[i].Offset > 0 {
			// Read from the checkpoint's offset on, which is the end of a
			// line: a file that gained nothing still ends with a newline.
			tail.newline = true
		}
		// A file the checkpoint read is hashed up to where it stopped,
		// not decoded; an earlier file must have ended there, and the last
		// one is decoded from there on.
		var fileLines int
		if resumed {
			var err error
			if at {
				counted.n = cp.files[i].Offset
				if err = c.resumeAt(cp, i, text, h, verify); err == nil {
					// The check's goroutine hashes pieces while the fold
					// state loads, and one goroutine more hashes them once
					// it has (startProof says why).
					prf.HashUntil(foldDone)
				}
			} else {
				err = c.resumeFile(cp, i, f, tail, text, h)
			}
			if err != nil || i == len(cp.files)-1 {
				// A damaged fold state is never a mismatch to recheck.
				if err := waitFold(); err != nil {
					return nil, err
				}
			}
			if err != nil {
				return nil, err
			}
			if i == len(cp.files)-1 {
				c.locateWarnings()
			}
			fileLines = cp.files[i].Lines
		}
		if progress != nil {
			base := done + counted.n
			c.opts.Progress = func(n int64) { progress(base + n) }
		}
		switch {
		case resumed && i < len(cp.files)-1:
			// unchanged since the checkpoint: nothing more to read
		case resumed && cp.files[i].Offset > 0:
			n, err := c.readLines(tail, f.Path, lines+fileLines, h)
			if err != nil {
				return nil, err
			}
			fileLines += n
		default:
			n, err := c.readFile(tail, f.Path, lines, h)
			if err != nil {
				return nil, err
			}
			fileLines = n
		}
		lines += fileLines
		done += counted.n
		newline = tail.newline
		sf := SourceFile{Path: f.Path, LineCount: fileLines, Size: counted.n, Compression: CompressionNone}
		switch {
		case f.Stored != nil:
			st := f.Stored()
			sf.SHA256, sf.Size, sf.Compression = st.SHA256, st.Size, st.Compression
		case own != nil:
			sf.SHA256 = hex.EncodeToString(own.Sum(nil))
		}
		src = append(src, sf)
		if opts.Checkpoint {
			state, err := hashState(text)
			if err != nil {
				return nil, err
			}
			read = append(read, CheckpointFile{File: f.Path, Compression: sf.Compression, Offset: counted.n, Lines: fileLines, hashState: state,
				pieceSize: pc.Size(), pieceSums: pc.Sums(), pieceTail: pc.TailSum()})
		}
	}
	digest := opts.SHA256
	if h != nil {
		digest = hex.EncodeToString(h.Sum(nil))
	}
	if len(src) == 1 && src[0].SHA256 == "" {
		src[0].SHA256 = digest
	}
	res = &Result{Report: c.report}
	if !c.report.Valid {
		return res, nil
	}
	if opts.Checkpoint {
		if res.Checkpoint, res.NoCheckpoint, err = c.checkpointOf(read, h, newline); err != nil {
			return nil, err
		}
		if verify != nil && res.Checkpoint != nil && res.Checkpoint != cp {
			// Encoded while the old part is still being proven, on the
			// other core; WriteTo writes these bytes.
			if res.Checkpoint.encoded, err = res.Checkpoint.encode(); err != nil {
				return nil, err
			}
			if opts.CheckpointEncoded != nil {
				// The shell may write it meanwhile, and while the snapshot
				// is built (it reads only the encoded bytes, and the old
				// checkpoint's, which nothing changes): its fsync (45 ms
				// for the 1M-event log's 18 MB on the benchmark machine)
				// ends with the proof, not after it.
				opts.CheckpointEncoded(res.Checkpoint)
			}
		}
	}
	res.Snapshot = c.snapshot(Source{
		Path:       opts.File,
		SHA256:     digest,
		EventCount: c.events,
		LineCount:  lines,
		Files:      src,
	})
	return res, nil
}

// readFile reads one file of the log, its lines numbered after the base
// lines of the files before it, hashing its text with h (unless nil), and
// returns how many lines it holds. A broken stream is a violation on the
// line after the last whole one; any other read error is returned.
func (c *contractState) readFile(r io.Reader, name string, base int, h hash.Hash) (int, error) {
	rest, fault, stop, err := eventline.Sniff(r)
	if err != nil {
		return 0, c.readError(name, base+1, err)
	}
	if fault != nil {
		c.violate(base+1, RuleID(fault.Kind), fault.Msg, nil)
	}
	if stop {
		return 0, nil
	}
	return c.readLines(rest, name, base, h)
}

// readLines decodes the lines of r, numbered after the base lines read
// before them, hashing them with h (unless nil), and returns how many it
// read: the rest of readFile once the file's first bytes are sniffed, or
// the bytes a resumed file gained after its checkpoint.
func (c *contractState) readLines(r io.Reader, name string, base int, h hash.Hash) (int, error) {
	lr := eventline.NewLineReader(r, c.opts.MaxLineBytes, h)
	lr.CountFrom(base)
	cfg := eventline.Config{MaxLineBytes: c.opts.MaxLineBytes, Strict: c.opts.Strict, SchemaEveryEvent: c.opts.SchemaEveryEvent, Progress: c.opts.Progress,
		Listed: c.listed}
	err := eventline.Read(lr, &cfg, c.apply)
	n := lr.Line() - base
	if err != nil {
		if err := c.readError(name, lr.Line()+1, err); err != nil {
			return 0, err
		}
		n++ // the line the text broke off in
	}
	return n, nil
}

// readError reports a broken stream as an invalid_json violation on line
// and returns nil, or returns any other read error for the shell.
func (c *contractState) readError(name string, line int, err error) error {
	var broken *BrokenStreamError
	if errors.As(err, &broken) {
		c.violate(line, RuleInvalidJSON, broken.Msg+"; the rest of the file cannot be read, and a log cut short is no evidence", nil)
		return nil
	}
	return fmt.Errorf("reading %s: %w", displayFile(name), err)
}

// countingReader counts the bytes read through it: a file's size as read.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newSHA256 is a new hash of NewSHA256's, or this build's SHA-256
// (defaultSHA256) without one.
func (o Options) newSHA256() hash.Hash {
	if o.NewSHA256 != nil {
		return o.NewSHA256()
	}
	return defaultSHA256()
}
