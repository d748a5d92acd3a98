package checker

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// toolName is the snapshot's tool.name.
const toolName = "greenlight"

// develVersion is the tool version of a build that names none: neither a
// release nor a module version (a build in a checkout without VCS stamping,
// a test binary). Options.ToolVersion defaults to it; internal/version's
// Devel is the same text, and its test holds the two together.
const develVersion = "devel"

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
		v = develVersion
	}
	return Tool{Name: toolName, Version: v}
}

// The values of SourceFile.Compression that a checkpoint may record
// (internal/logsource names them for the shells).
const (
	compressionNone = "none"
	compressionGzip = "gzip"
	compressionZstd = "zstd"
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
	// that wraps one with a method BrokenStream() string saying what broke,
	// without the file's name (internal/logsource.BrokenStreamError):
	// CheckFiles reports it as an invalid_json violation on the line where
	// the file's text broke off, so the log is invalid (exit 2) and never a
	// silently short log. Any other error of R is CheckFiles' error.
	R io.Reader
	// Stored, when not nil, is called once R is read to its end and
	// describes the file as stored (a compressed file): the SHA-256 (64
	// lowercase hex digits) and size in bytes of its stored bytes, and
	// how they were compressed ("gzip", "zstd"), in
	// those fields of a SourceFile; its Path and LineCount are ignored.
	// When nil, the bytes R gives are the file as stored, and CheckFiles
	// hashes them.
	Stored func() SourceFile
	// At, when not nil, reads the bytes R gives at any offset (a regular
	// file stored as read; Stored is nil). A check resumed from a
	// checkpoint (Reading.Resume) then hashes the part of the file the
	// checkpoint read from At while it decodes the rest, read from At too
	// (R is not read).
	At io.ReaderAt
}

// brokenStream is the error a LogFile's reader returns when the file's
// bytes stop making text part way (a truncated gzip or zstd stream, a bad
// checksum): BrokenStream says what broke, without the file's name.
type brokenStream interface{ BrokenStream() string }

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
// lists each file. opts.File names the whole log (source.path); rd says
// how the log is read: its digest, progress, and the checkpoint to resume
// from (Reading.Resume) or to leave (Reading.Checkpoint).
func CheckFiles(files []LogFile, opts Options, rd Reading) (res *Result, err error) {
	c, lg, err := beginCheck(files, opts, rd)
	if err != nil {
		return nil, err
	}
	rs, err := c.startResume(files, rd, lg.h)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			res = nil
		}
	}()
	// A run of the checkpoint that does not decode when the check reads it.
	defer recoverDamage(&err)
	// Nothing is returned before the proof of the checkpoint's part ends.
	defer rs.settle(&res, &err)
	for i, f := range files {
		if err := c.readLogFile(lg, rs, i, f); err != nil {
			return nil, err
		}
	}
	res = &Result{Report: c.report}
	if !c.report.Valid {
		return res, nil
	}
	if res.Checkpoint, res.NoCheckpoint, err = rs.next(c, lg.h, lg.newline); err != nil {
		return nil, err
	}
	res.Snapshot = c.snapshot(lg.source(c))
	return res, nil
}

// beginCheck checks CheckFiles' arguments, reads the job log and returns
// the check's state with what reading the log will gather.
func beginCheck(files []LogFile, opts Options, rd Reading) (*contractState, *logRead, error) {
	if len(files) == 0 {
		return nil, nil, errors.New("checker: a log needs at least one file")
	}
	if opts.Definition == nil || len(opts.Definition.Stages) == 0 {
		return nil, nil, errors.New("checker: no pipeline definition: set Options.Definition (ParseDefinition, or LinearDefinition of the stage ids)")
	}
	opts, err := opts.normalized()
	if err != nil {
		return nil, nil, err
	}
	if err := rd.check(); err != nil {
		return nil, nil, err
	}
	if rd.SHA256 != "" && (len(files) != 1 || files[0].Stored != nil) {
		return nil, nil, errors.New("checker: Reading.SHA256 is for a log of one file stored as read")
	}
	c := newContractState(opts)
	if opts.JobLog != nil {
		if c.jobLog, err = readJobLog(opts.JobLog, opts.JobLogFile, opts.MaxLineBytes); err != nil {
			return nil, nil, err
		}
	}
	lg := &logRead{many: len(files) > 1, digest: rd.SHA256, newHash: rd.newSHA256, progress: rd.Progress,
		src: make([]SourceFile, 0, len(files))}
	if !rd.ContractOnly && rd.SHA256 == "" {
		lg.h = rd.newSHA256()
	}
	return c, lg, nil
}

// logRead is what reading the log's files gathers, file after file.
type logRead struct {
	// h is the log's digest (source.sha256), which the line reader feeds;
	// nil when the log is not hashed (Reading.ContractOnly, or digest
	// given by the caller).
	h       hash.Hash
	digest  string
	newHash func() hash.Hash
	// many says the log has several files: each stored as read is then
	// hashed on its own too, for source.files.
	many     bool
	progress func(bytesRead int64)
	lines    int   // of the files read
	bytes    int64 // of the files read, as read
	newline  bool  // the last file read ends with a newline
	src      []SourceFile
}

// readLogFile reads file i of the log, f: it opens its bytes, after the
// part a checkpoint read (rs proves that part instead of decoding it),
// decodes and applies its lines, the log's digest hashing each byte once
// as they are read, and records the file in source.files.
func (c *contractState) readLogFile(lg *logRead, rs *resumption, i int, f LogFile) error {
	c.files = append(c.files, fileSpan{path: f.Path, base: lg.lines})
	r, from := rs.open(i, f)
	var own hash.Hash // a file stored as read, in a log of several
	if f.Stored == nil && lg.many && lg.h != nil {
		own = lg.newHash()
		r = eventline.HashingReader(r, own)
	}
	counted := &countingReader{r: rs.wrap(i, f, r, own, lg.h), n: from}
	// A checkpoint's offset is the end of a line: a file that gained
	// nothing since still ends with a newline.
	tail := &tailReader{r: counted, newline: from > 0}
	old, err := rs.skip(c, i, f, tail, lg.h)
	if err != nil {
		return err
	}
	lines := old.lines
	if !old.whole {
		n, err := c.readText(tail, f.Path, lg.lines+lines, !old.some, lg.progressFrom(lg.bytes+counted.n), lg.h)
		if err != nil {
			return err
		}
		lines += n
	}
	sf := SourceFile{Path: f.Path, LineCount: lines, Size: counted.n, Compression: compressionNone}
	switch {
	case f.Stored != nil:
		st := f.Stored()
		sf.SHA256, sf.Size, sf.Compression = st.SHA256, st.Size, st.Compression
	case own != nil:
		sf.SHA256 = hex.EncodeToString(own.Sum(nil))
	}
	lg.src = append(lg.src, sf)
	lg.lines += lines
	lg.bytes += counted.n
	lg.newline = tail.newline
	return rs.record(f.Path, sf.Compression, counted.n, lines)
}

// progressFrom is the progress callback of a file whose first byte is the
// log's base'th, or nil without one.
func (lg *logRead) progressFrom(base int64) func(int64) {
	if lg.progress == nil {
		return nil
	}
	return func(n int64) { lg.progress(base + n) }
}

// source is the snapshot's source once every file is read.
func (lg *logRead) source(c *contractState) Source {
	if lg.h != nil {
		lg.digest = hex.EncodeToString(lg.h.Sum(nil))
	}
	if len(lg.src) == 1 && lg.src[0].SHA256 == "" {
		lg.src[0].SHA256 = lg.digest
	}
	return Source{Path: c.opts.File, SHA256: lg.digest, EventCount: c.events, LineCount: lg.lines, Files: lg.src}
}

// readText decodes the lines of r, numbered after the base lines read
// before them, hashing them with h (unless nil), and returns how many it
// read; with sniff, the file's first bytes are sniffed first
// (eventline.Sniff: a file that is no JSON Lines text). A broken stream is
// a violation on the line after the last whole one; any other read error
// is returned.
func (c *contractState) readText(r io.Reader, name string, base int, sniff bool, progress func(int64), h hash.Hash) (int, error) {
	if sniff {
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
		r = rest
	}
	lr := eventline.NewLineReader(r, c.opts.MaxLineBytes, h)
	lr.CountFrom(base)
	cfg := eventline.Config{MaxLineBytes: c.opts.MaxLineBytes, Strict: c.opts.Strict, SchemaEveryEvent: c.opts.SchemaEveryEvent, Progress: progress,
		Listed: c.listed}
	err := eventline.Read(lr, &cfg, c.apply)
	if c.req.full != nil {
		return 0, c.req.full // more requests than a check keeps
	}
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
	var broken brokenStream
	if errors.As(err, &broken) {
		c.violate(line, RuleInvalidJSON, broken.BrokenStream()+"; the rest of the file cannot be read, and a log cut short is no evidence", nil)
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

// tailReader remembers whether the last byte read from r was a newline.
type tailReader struct {
	r       io.Reader
	newline bool
	err     error // when not nil, what every Read returns, r unread
}

func (t *tailReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	if n > 0 {
		t.newline = p[n-1] == '\n'
	}
	return n, err
}
