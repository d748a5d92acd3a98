package eventline

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// readRecord is what a reader says of one line: its number, its text
// (unless too long, when no caller reads it), whether it is too long, and
// its full length.
type readRecord struct {
	n       int
	text    string
	tooLong bool
	length  int
}

// TestBufferedMatchesNext: the batches the pipeline fills (whole buffered
// lines copied at once, the rest through Next) hand out the lines, numbers,
// lengths and read error that calling Next line by line does, whatever the
// line lengths (empty, CRLF, a lone CR, over the limit, over the reader's
// buffer), the last line's ending and the sizes the source reads in.
func TestBufferedMatchesNext(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	broken := errors.New("broken stream")
	for n := 0; n < 300; n++ {
		var log strings.Builder
		for k := r.IntN(600); k > 0; k-- {
			switch r.IntN(400) {
			case 0:
				log.WriteString(strings.Repeat("x", 300<<10)) // longer than the buffer
			case 1, 2, 3, 4, 5, 6, 7, 8:
				log.WriteString(strings.Repeat("y", r.IntN(2000)))
			default:
				fmt.Fprintf(&log, `{"run_id": "r-%d"}`, r.IntN(1000))
			}
			switch r.IntN(6) {
			case 0:
				log.WriteString("\r\n")
			case 1:
				log.WriteString("\r")
			default:
				log.WriteString("\n")
			}
		}
		if r.IntN(2) == 0 {
			log.WriteString("tail without a line ending")
		}
		text := log.String()
		max := []int{10, 40, 1000, 1 << 20}[r.IntN(4)]
		cut := -1 // where the source breaks off, or nowhere
		if r.IntN(3) == 0 {
			cut = r.IntN(len(text) + 1)
		}
		source := func() io.Reader {
			var src io.Reader = strings.NewReader(text)
			if cut >= 0 {
				src = io.MultiReader(strings.NewReader(text[:cut]), iotest.ErrReader(broken))
			}
			switch {
			case n%3 == 1:
				src = iotest.HalfReader(src)
			case n%3 == 2 && len(text) < 200<<10:
				src = iotest.OneByteReader(src)
			}
			return src
		}
		var want []readRecord
		lr := NewLineReader(source(), max, nil)
		var wantErr error
		for {
			line, err := lr.Next()
			if err != nil {
				if err != io.EOF {
					wantErr = err
				}
				break
			}
			rec := readRecord{n: lr.Line(), tooLong: lr.TooLong(), length: lr.Length()}
			if !rec.tooLong {
				rec.text = string(line)
			}
			want = append(want, rec)
		}
		wantLine, wantRead := lr.Line(), lr.BytesRead()

		var got []readRecord
		lr = NewLineReader(source(), max, nil)
		var gotErr error
		for {
			var b batch
			eof := fillBatch(lr, &b)
			for _, ref := range b.refs {
				rec := readRecord{n: ref.n, tooLong: ref.tooLong, length: ref.length}
				if !rec.tooLong {
					rec.text = string(b.raw[ref.start:ref.end])
				}
				got = append(got, rec)
			}
			if eof {
				gotErr = b.err
				break
			}
		}
		if len(got) != len(want) {
			t.Fatalf("log %d: %d lines from batches, %d from Next", n, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("log %d, line %d: batches %+v, Next %+v", n, i+1, got[i], want[i])
			}
		}
		if !errors.Is(gotErr, wantErr) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("log %d: batches end with %v, Next with %v", n, gotErr, wantErr)
		}
		if lr.Line() != wantLine || lr.BytesRead() != wantRead {
			t.Fatalf("log %d: batches end at line %d after %d bytes, Next at line %d after %d", n, lr.Line(), lr.BytesRead(), wantLine, wantRead)
		}
	}
}
