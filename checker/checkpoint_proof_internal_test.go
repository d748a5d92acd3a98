package checker

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/proof"
)

// piecesOf is the checkpoint file of the first offset bytes of text, hashed
// in pieces of size bytes written w bytes at a time.
func piecesOf(t *testing.T, text []byte, offset, size int64, w int) checkpointFile {
	t.Helper()
	p := proof.New(size)
	for b := text[:offset]; len(b) > 0; {
		k := min(w, len(b))
		p.Write(b[:k])
		b = b[k:]
	}
	return checkpointFile{File: "events.jsonl", Compression: CompressionNone, Offset: offset, pieceSize: size, pieceSums: p.Sums(), pieceTail: p.TailSum()}
}

// TestPieces: the digests of the pieces are the SHA-256 digests of the
// text's pieces, however the text is written, and a checkpoint's pieces go
// on as if the text had been written at once.
func TestPieces(t *testing.T) {
	text := bytes.Repeat([]byte(`{"run_id":"r-1","stage":1}`+"\n"), 40) // 1,080 bytes
	for _, size := range []int64{1, 7, 64, 1080, 4096} {
		for _, w := range []int{1, 5, 64, 2000} {
			cf := piecesOf(t, text, int64(len(text)), size, w)
			var want []byte
			for from := int64(0); from+size <= int64(len(text)); from += size {
				d := sha256.Sum256(text[from : from+size])
				want = append(want, d[:]...)
			}
			if !bytes.Equal(cf.pieceSums, want) {
				t.Fatalf("pieces of %d bytes written %d at a time: %d digest bytes, want %d", size, w, len(cf.pieceSums), len(want))
			}
			if rest := sha256.Sum256(text[int64(len(text))/size*size:]); !bytes.Equal(cf.pieceTail, rest[:]) {
				t.Fatalf("pieces of %d bytes written %d at a time: the last piece's digest differs", size, w)
			}
			for _, cut := range []int64{0, 1, size, 333, int64(len(text))} {
				if cut > int64(len(text)) {
					continue
				}
				// The bytes after the last whole piece are written again.
				from := piecesOf(t, text, cut, size, w)
				p := resumePieces(from)
				p.Write(text[wholeBytes(from):])
				if !bytes.Equal(p.Sums(), cf.pieceSums) || !bytes.Equal(p.TailSum(), cf.pieceTail) {
					t.Fatalf("pieces of %d bytes resumed at %d: they differ from the text's written at once", size, cut)
				}
			}
		}
	}
}

// failingAt is a file whose bytes cannot be read from offset bad on.
type failingAt struct {
	b   []byte
	bad int64
}

func (f failingAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.bad {
		n := max(int(f.bad-off), 0)
		copy(p, f.b[off:off+int64(n)])
		return n, errors.New("input/output error")
	}
	return copy(p, f.b[off:]), nil
}

// TestProvePieces: the proof of the old part of a file read at offsets
// names what is wrong with it in the words of the sequential proof,
// whichever piece a core read first: a read error, then a file shorter
// than the checkpoint's offset, then a piece that differs.
func TestProvePieces(t *testing.T) {
	text := bytes.Repeat([]byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started"}`+"\n"), 20) // 1,160 bytes
	const size, offset = 100, 1000                                                                     // pieces 0..9, 10 whole
	cf := piecesOf(t, text, offset, size, 1<<20)
	tailed := piecesOf(t, text, 1050, size, 1<<20) // 10 whole, a tail of 50
	flip := func(at int) []byte { b := bytes.Clone(text); b[at] ^= 1; return b }
	const (
		rewritten = "the checkpoint does not fit events.jsonl at byte offset 1000: its first 1000 bytes are not the ones the checkpoint read (rewritten, or rotated)"
		grown     = "the checkpoint does not fit events.jsonl at byte offset 1000: the log has only 650 bytes (truncated, or rotated away)"
	)
	for _, tc := range []struct {
		name    string
		want    checkpointFile
		at      io.ReaderAt
		oneFile bool
		err     string
	}{
		{"the same bytes", cf, bytes.NewReader(text), true, ""},
		{"the same bytes and more", cf, bytes.NewReader(append(bytes.Clone(text), "{}\n"...)), true, ""},
		{"the same bytes up to a last piece", tailed, bytes.NewReader(text), true, ""},
		{"the first byte rewritten", cf, bytes.NewReader(flip(0)), true, rewritten},
		{"the last whole piece's last byte rewritten", cf, bytes.NewReader(flip(999)), true, rewritten},
		{"a byte after the offset rewritten", cf, bytes.NewReader(flip(1000)), true, ""},
		{"the last piece rewritten", tailed, bytes.NewReader(flip(1049)), true,
			"the checkpoint does not fit events.jsonl at byte offset 1050: its first 1050 bytes are not the ones the checkpoint read (rewritten, or rotated)"},
		{"truncated in a piece", cf, bytes.NewReader(text[:650]), true, grown},
		{"truncated at a piece's end", cf, bytes.NewReader(text[:600]), false,
			"the checkpoint does not fit events.jsonl at byte offset 1000: the file has only 600 bytes (truncated, or rotated away)"},
		{"truncated to nothing", cf, bytes.NewReader(nil), true,
			"the checkpoint does not fit events.jsonl at byte offset 1000: the log has only 0 bytes (truncated, or rotated away)"},
		{"truncated and rewritten", cf, bytes.NewReader(flip(3)[:650]), true, grown},
		{"a read error", cf, failingAt{text, 420}, true, "reading events.jsonl: input/output error"},
		{"a read error in a truncated file", cf, failingAt{text[:650], 420}, true, "reading events.jsonl: input/output error"},
	} {
		// The pieces hashed by the proof's goroutines and the one that
		// waits, as they come; by the waiting one only; by the proof's
		// only; by the check's goroutine while the fold state loads
		// (hashUntil), all of them, or none when it has loaded.
		for _, by := range []string{"both", "workers", "until-loaded", "loaded"} {
			t.Run(tc.name+"/"+by, func(t *testing.T) {
				f := LogFile{Path: "events.jsonl", At: tc.at}
				pc := resumePieces(tc.want)
				from := wholeBytes(tc.want)
				tail := proof.Tail(f.At, from, tc.want.Offset-from, tc.want.pieceTail, pc)
				p := &fileProof{Proof: proof.Start(f.At, tc.want.pieceSize, tc.want.pieceSums), want: tc.want, f: f, oneFile: tc.oneFile}
				p.SetTail(tail)
				loaded := make(chan struct{})
				switch by {
				case "workers":
					close(loaded)
					p.HashUntil(loaded) // hashes none, starts the goroutines
				case "until-loaded":
					p.HashUntil(loaded)
				case "loaded":
					close(loaded)
					p.HashUntil(loaded)
				}
				err := p.wait()
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != tc.err {
					t.Fatalf("err = %q, want %q", got, tc.err)
				}
				var mis *CheckpointError
				if err != nil && (errors.As(err, &mis) && mis.Mismatch) == (tc.name == "a read error" || tc.name == "a read error in a truncated file") {
					t.Fatalf("err %q: a mismatch is a *CheckpointError with Mismatch, a read error is not", err)
				}
			})
		}
	}
}

// TestDamagedPieces: a checkpoint whose pieces do not fit its files is a
// damaged checkpoint, named so, never a mismatch to recheck.
func TestDamagedPieces(t *testing.T) {
	log := []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T00:00:01Z"}` + "\n")
	def, err := LinearDefinition([]StageID{IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	res, err := checkRead(bytes.NewReader(log), opts, Reading{Checkpoint: true, pieceSize: 64})
	if err != nil || res.Checkpoint == nil {
		t.Fatal(err, res.NoCheckpoint)
	}
	var good bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(f *checkpointFile)
		err   string
	}{
		{"a digest missing", func(f *checkpointFile) { f.pieceSums = f.pieceSums[:proof.DigestSize] },
			"the checkpoint is unusable: its contents are damaged (a file's piece digests do not cover its offset)"},
		{"a digest too many", func(f *checkpointFile) {
			f.pieceSums = append(f.pieceSums, make([]byte, proof.DigestSize)...)
		},
			"the checkpoint is unusable: its contents are damaged (a file's piece digests do not cover its offset)"},
		{"no piece size", func(f *checkpointFile) { f.pieceSize = 0 },
			"the checkpoint is unusable: its contents are damaged (a proof piece size out of range)"},
		{"a piece size over 1 GiB", func(f *checkpointFile) { f.pieceSize = maxPieceBytes + 1 },
			"the checkpoint is unusable: its contents are damaged (a proof piece size out of range)"},
		{"a last piece's digest that is junk", func(f *checkpointFile) { f.pieceTail = []byte("junk") },
			"the checkpoint is unusable: its contents are damaged (a file's last piece digest is not 32 bytes)"},
		{"no last piece's digest", func(f *checkpointFile) { f.pieceTail = nil },
			"the checkpoint is unusable: its contents are damaged (a file's last piece digest is not 32 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := ParseCheckpoint(good.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			tc.spoil(&cp.files[0])
			b, err := cp.encode()
			if err != nil {
				t.Fatal(err)
			}
			if cp, err = ParseCheckpoint(bytes.Join(b, nil)); err == nil {
				_, err = checkRead(bytes.NewReader(append(bytes.Clone(log), log...)), opts, Reading{Checkpoint: true, Resume: cp, pieceSize: 64})
			}
			var damage *CheckpointError
			if err == nil || err.Error() != tc.err || !errors.As(err, &damage) || damage.Mismatch {
				t.Fatalf("err = %v, want %q (a *CheckpointError)", err, tc.err)
			}
		})
	}
}
