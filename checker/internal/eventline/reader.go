package eventline

import (
	"bufio"
	"bytes"
	"errors"
	"hash"
	"io"
)

// LineReader yields the lines of a log one at a time, each without its LF or
// CRLF ending, counting them from 1 and hashing every byte read. A line longer
// than max is reported as too long and skipped to its end, never truncated
// and never a reason to stop reading.
type LineReader struct {
	br      *bufio.Reader
	max     int
	buf     []byte
	line    int
	tooLong bool // the current line exceeded max
	length  int  // the current line's full length in bytes, for messages
	src     *hashingReader
}

// HashingReader returns a reader that reads r and writes every byte read to
// h, so the log's digest comes with one pass over it.
func HashingReader(r io.Reader, h hash.Hash) io.Reader { return &hashingReader{r: r, h: h} }

type hashingReader struct {
	r io.Reader
	h hash.Hash // nil: count only
	n int64     // bytes read so far
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.h != nil {
		h.h.Write(p[:n])
	}
	h.n += int64(n)
	return n, err
}

// NewLineReader reads r, with lines of at most max bytes, hashing every
// byte with h unless h is nil.
func NewLineReader(r io.Reader, max int, h hash.Hash) *LineReader {
	src := &hashingReader{r: r, h: h}
	return &LineReader{br: bufio.NewReaderSize(src, 256<<10), max: max, src: src}
}

// BytesRead is how many bytes of the log have been read so far (lines
// handed out and up to one buffer ahead of them).
func (lr *LineReader) BytesRead() int64 { return lr.src.n }

// Line is the number of the line Next last returned, from 1; after the
// last line, the number of lines.
func (lr *LineReader) Line() int { return lr.line }

// TooLong says the line Next last returned is longer than max; Next then
// returned nil or its first bytes, never a line to decode.
func (lr *LineReader) TooLong() bool { return lr.tooLong }

// Length is the full length in bytes of the line Next last returned, with
// its line ending, for messages.
func (lr *LineReader) Length() int { return lr.length }

// Next returns the next line, io.EOF after the last one, or the read error.
// The slice is valid until the following call.
func (lr *LineReader) Next() ([]byte, error) {
	lr.tooLong = false
	lr.length = 0
	chunk, err := lr.br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(chunk) > 0) {
		lr.line++
		lr.length = len(chunk)
		line := trimEOL(chunk)
		if len(line) > lr.max {
			lr.tooLong = true
		}
		return line, nil
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	// A line longer than the buffer: gather it while it may still fit max
	// (plus a CRLF), and only count it past that.
	lr.line++
	lr.buf = append(lr.buf[:0], chunk...)
	total := len(chunk)
	for {
		chunk, err = lr.br.ReadSlice('\n')
		total += len(chunk)
		if total <= lr.max+2 {
			lr.buf = append(lr.buf, chunk...)
		}
		if err == nil || err == io.EOF {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	lr.length = total
	if total > lr.max+2 {
		lr.tooLong = true
		return nil, nil
	}
	line := trimEOL(lr.buf)
	lr.tooLong = len(line) > lr.max
	return line, nil
}

// buffered appends to raw the lines that the reader's buffer holds whole
// (each with its line ending, which its lineRef leaves out), and their
// places to refs, while refs has fewer than maxLines lines and raw fewer
// than maxBytes bytes: one copy for all of them instead of one a line. It
// hands out exactly the lines, numbers and lengths that as many calls of
// Next would (TestBufferedMatchesNext); a line the buffer holds only in
// part is left to Next.
func (lr *LineReader) buffered(raw []byte, refs []lineRef, maxLines, maxBytes int) ([]byte, []lineRef) {
	buf, _ := lr.br.Peek(lr.br.Buffered())
	used := 0
	base := len(raw)
	for len(refs) < maxLines && base+used < maxBytes {
		i := bytes.IndexByte(buf[used:], '\n')
		if i < 0 {
			break
		}
		start, end := base+used, base+used+i
		if i > 0 && buf[used+i-1] == '\r' {
			end--
		}
		lr.line++
		refs = append(refs, lineRef{n: lr.line, start: start, end: end, tooLong: end-start > lr.max, length: i + 1})
		used += i + 1
	}
	if used == 0 {
		return raw, refs
	}
	raw = append(raw, buf[:used]...)
	lr.br.Discard(used)
	// What Next would say of the last line handed out.
	last := refs[len(refs)-1]
	lr.tooLong, lr.length = last.tooLong, last.length
	return raw, refs
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
