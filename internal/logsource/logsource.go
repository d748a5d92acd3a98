// Package logsource turns the files a user names into the checker's log:
// one checker.LogFile per file, in reading order, each gzip or zstd file
// decompressed as it is read. The compression is told by the file's first
// bytes, never by its name. It is the shells' one front door to event logs
// (the CLI and with it the wasip1 module, the action, the js module), so a
// rotated, compressed log reads the same everywhere. See docs/contract.md
// ("A log of several files").
//
// A compressed stream that stops making text part way (truncated, a bad
// checksum, trailing garbage) is a *BrokenStreamError, which the
// checker reports as an invalid_json violation naming the file: a log cut
// short is never read as a short log. Decompression is streamed through a
// fixed window (gzip: 32 KiB; zstd: at most MaxZstdWindow), so a
// decompression bomb costs no more memory than a plain file: its text
// meets the checker's line bound (--max-line-bytes) and violation cap like
// any other text, in time proportional to that text.
package logsource

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/greenlight-ci/greenlight/checker"
)

// MaxZstdWindow (bytes, 128 MiB) is the largest zstd window a stream may
// ask for: zstd's own default levels use at most 8 MiB and --long=27 128
// MiB. A frame that needs more is a broken stream, so that a hostile file
// cannot make the decoder hold gigabytes (a wasm32 module has 4 GiB).
const MaxZstdWindow = 128 << 20

// The first bytes of the compressed formats read.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// headBytes is how many bytes Compression needs.
const headBytes = 4

// The ways a file may be stored: the values of checker.SourceFile's
// Compression (the snapshot's source.files[].compression).
const (
	CompressionNone = "none"
	CompressionGzip = "gzip"
	CompressionZstd = "zstd"
)

// Compression tells how a file is stored from its first bytes:
// CompressionGzip, CompressionZstd or CompressionNone.
func Compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return CompressionGzip
	case bytes.HasPrefix(head, zstdMagic):
		return CompressionZstd
	}
	return CompressionNone
}

// BrokenStreamError is the error a compressed file's reader returns when
// the file's bytes stop making text part way (a truncated gzip or zstd
// stream, a bad checksum, trailing garbage). Msg says what broke, without
// the file's name. checker.CheckFiles knows it by its BrokenStream method
// and reports it as an invalid_json violation on the line where the text
// broke off (checker.LogFile.R).
type BrokenStreamError struct{ Msg string }

func (e *BrokenStreamError) Error() string { return e.Msg }

// BrokenStream is Msg: it marks the error as a broken stream for
// checker.CheckFiles.
func (e *BrokenStreamError) BrokenStream() string { return e.Msg }

// File is one file of a log, open for reading.
type File struct {
	// Log is what the checker reads.
	Log     checker.LogFile
	closers []io.Closer
	size    int64         // bytes of an uncompressed regular file, else -1
	stored  *storedReader // a compressed file's bytes as stored, else nil
}

// PlainSize is the size in bytes of an uncompressed regular file, which is
// the number of bytes the checker will read from it; -1 for standard input,
// a pipe or a compressed file (its text is larger than the file).
func (f *File) PlainSize() int64 { return f.size }

// StoredRead is how many bytes of a compressed file, as stored, have been
// read so far to give the checker its text (the file's size once the text
// is read to its end): a reading progress that never passes the file's
// size, where the checker's count of the text does. It is -1 for an
// uncompressed file, whose text is its bytes as stored.
func (f *File) StoredRead() int64 {
	if f.stored == nil {
		return -1
	}
	return f.stored.n
}

// Close releases the file and its decoder.
func (f *File) Close() error {
	var first error
	for _, c := range f.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	f.closers = nil
	return first
}

// New reads raw, the bytes of the file named path as stored, as a log file:
// it reads the first bytes at once (a read error is returned), and
// decompresses a gzip or zstd file as the checker reads it. An
// uncompressed file's bytes go to the checker as they are (it hashes and
// counts them); a compressed file's are hashed and counted here, for
// source.files.
func New(path string, raw io.Reader) (*File, error) {
	head := make([]byte, headBytes)
	n, err := io.ReadFull(raw, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	head = head[:n]
	all := io.MultiReader(bytes.NewReader(head), raw)
	comp := Compression(head)
	f := &File{Log: checker.LogFile{Path: path, R: all}, size: -1}
	if comp == CompressionNone {
		return f, nil
	}
	stored := &storedReader{r: all, h: sha256.New()}
	d := &decoder{compression: comp, stored: stored, in: bufio.NewReaderSize(stored, 64<<10)}
	f.closers = append(f.closers, d)
	f.stored = stored
	f.Log.R = d
	f.Log.Stored = func() checker.SourceFile {
		return checker.SourceFile{SHA256: hex.EncodeToString(stored.h.Sum(nil)), Size: stored.n, Compression: comp}
	}
	return f, nil
}

// storedReader hashes and counts the bytes of a file as stored, and keeps
// the first read error that is not the end of the file, so that a
// decoder's error can be told from the file's.
type storedReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	err error
}

func (s *storedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// decoder decompresses a file as it is read; its first Read starts the
// stream.
type decoder struct {
	compression string
	stored      *storedReader
	in          *bufio.Reader
	text        io.Reader
	zstd        *zstd.Decoder
	err         error // sticky
}

func (d *decoder) start() error {
	switch d.compression {
	case CompressionGzip:
		zr, err := gzip.NewReader(d.in)
		if err != nil {
			return err
		}
		d.text = zr
	case CompressionZstd:
		zr, err := zstd.NewReader(d.in,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(MaxZstdWindow),
			zstd.WithDecoderMaxMemory(MaxZstdWindow))
		if err != nil {
			return err
		}
		d.zstd, d.text = zr, zr
	}
	return nil
}

// Read gives the file's text. The end of the text is io.EOF only when the
// stream ended whole; a read error of the file is returned as it is, and
// any other error of the decoder is a *BrokenStreamError.
func (d *decoder) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.text == nil {
		if err := d.start(); err != nil {
			d.err = d.fail(err)
			return 0, d.err
		}
	}
	n, err := d.text.Read(p)
	if err != nil && err != io.EOF {
		d.err = d.fail(err)
		return n, d.err
	}
	if err == io.EOF {
		d.err = io.EOF
	}
	return n, err
}

// fail turns a decoder's error into the error Read returns.
func (d *decoder) fail(err error) error {
	if d.stored.err != nil {
		return d.stored.err
	}
	var msg string
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		msg = fmt.Sprintf("the %s stream is cut short: the file's %d bytes end before the stream does (a truncated file, or one still being written)", d.compression, d.stored.n)
	default:
		msg = fmt.Sprintf("the %s stream is corrupt (%v), %d bytes into the file", d.compression, err, d.stored.n)
	}
	return &BrokenStreamError{Msg: msg}
}

// Close releases the zstd decoder's buffers.
func (d *decoder) Close() error {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
	return nil
}

// Opener opens a file by name for reading (osfile.Open in the shells: a
// regular file only).
type Opener func(name string) (*os.File, error)

// Open opens the files of a log, in reading order: name "-" reads stdin
// (once). It opens every file before any is read, so that a missing file
// is an error before the check; openErr wraps the error of a file that
// cannot be opened. A file that is one already opened under another name
// (a symbolic link, a second path) is read once, under its first name:
// read twice, every event in it would break a rule. On error the files
// opened so far are closed.
func Open(names []string, stdin io.Reader, open Opener, openErr func(error) error) ([]*File, error) {
	var files []*File
	var seen []os.FileInfo
	fail := func(err error) ([]*File, error) {
		CloseAll(files)
		return nil, err
	}
	for _, name := range names {
		var raw io.Reader = stdin
		var osf *os.File
		size := int64(-1)
		if name != "-" {
			var err error
			if osf, err = open(name); err != nil {
				return fail(openErr(err))
			}
			if st, err := osf.Stat(); err == nil {
				if slices.ContainsFunc(seen, func(o os.FileInfo) bool { return os.SameFile(o, st) }) {
					osf.Close()
					continue
				}
				seen = append(seen, st)
				if st.Mode().IsRegular() {
					size = st.Size()
				}
			}
			raw = osf
		}
		f, err := New(name, raw)
		if err != nil {
			if osf != nil {
				osf.Close()
			}
			return fail(fmt.Errorf("reading %s: %w", displayName(name), err))
		}
		if osf != nil {
			f.closers = append(f.closers, osf)
		}
		if f.Log.Stored == nil {
			f.size = size
			if size >= 0 {
				// A regular file stored as read: a resumed check proves
				// the part its checkpoint read, reading it at offsets,
				// while it decodes the rest.
				f.Log.At = osf
			}
		}
		files = append(files, f)
	}
	return files, nil
}

// Logs is the checker's view of files.
func Logs(files []*File) []checker.LogFile {
	logs := make([]checker.LogFile, len(files))
	for i, f := range files {
		logs[i] = f.Log
	}
	return logs
}

// CloseAll closes every file.
func CloseAll(files []*File) {
	for _, f := range files {
		f.Close()
	}
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// The values of --log-order (the action's log-order input).
const (
	// OrderGiven reads the files in the order they were named; a glob's
	// matches come in byte order of their paths, as a shell expands one.
	OrderGiven = "given"
	// OrderName sorts all the files by path in natural order (NaturalLess).
	OrderName = "name"
)

// Sort orders names for reading: as given, or by name (NaturalLess); any
// other order is an error.
func Sort(names []string, order string) error {
	switch order {
	case "", OrderGiven:
		return nil
	case OrderName:
		sort.SliceStable(names, func(i, j int) bool { return NaturalLess(names[i], names[j]) })
		return nil
	}
	return fmt.Errorf("--log-order %q: use given or name", order)
}

// NaturalLess orders paths the way a person reads numbered names: runs of
// ASCII digits compare as numbers (events-9.jsonl before events-10.jsonl,
// and a date such as 2026-11-27 in calendar order), everything else byte
// by byte. Numbers of equal value compare by their digits' count (07 after
// 7) and paths equal under these rules by their bytes, so the order is
// total and the same everywhere.
func NaturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := trimZeros(a[si:i]), trimZeros(b[sj:j])
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if i-si != j-sj {
				return i-si < j-sj
			}
			continue
		}
		if ca != cb {
			return ca < cb
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
