package checker

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"lukechampine.com/blake3"
)

// piecesOf is the checkpoint file of the first offset bytes of text, hashed
// in pieces of size bytes written w bytes at a time.
func piecesOf(t *testing.T, text []byte, offset, size int64, w int) CheckpointFile {
	t.Helper()
	p := newPieces(size)
	for b := text[:offset]; len(b) > 0; {
		k := min(w, len(b))
		p.Write(b[:k])
		b = b[k:]
	}
	return CheckpointFile{File: "events.jsonl", Compression: CompressionNone, Offset: offset, pieceSize: size, pieceSums: p.sums, pieceTail: p.tailSums()}
}

// TestPieces: the digests of the pieces, in both hashes, are those of the
// text's pieces, however the text is written, and a checkpoint's pieces go
// on as if the text had been written at once.
func TestPieces(t *testing.T) {
	text := bytes.Repeat([]byte(`{"run_id":"r-1","stage":1}`+"\n"), 40) // 1,080 bytes
	sums := [pieceHashes]func([]byte) [32]byte{pieceBLAKE3: blake3.Sum256, pieceSHA256: sha256.Sum256}
	for _, size := range []int64{1, 7, 64, 1080, 4096} {
		for _, w := range []int{1, 5, 64, 2000} {
			cf := piecesOf(t, text, int64(len(text)), size, w)
			for a, sum := range sums {
				var want []byte
				for from := int64(0); from+size <= int64(len(text)); from += size {
					d := sum(text[from : from+size])
					want = append(want, d[:]...)
				}
				if !bytes.Equal(cf.pieceSums[a], want) {
					t.Fatalf("%v pieces of %d bytes written %d at a time: %d digest bytes, want %d", pieceHash(a), size, w, len(cf.pieceSums[a]), len(want))
				}
				if rest := sum(text[int64(len(text))/size*size:]); !bytes.Equal(cf.pieceTail[a], rest[:]) {
					t.Fatalf("%v pieces of %d bytes written %d at a time: the last piece's digest differs", pieceHash(a), size, w)
				}
			}
			for _, cut := range []int64{0, 1, size, 333, int64(len(text))} {
				if cut > int64(len(text)) {
					continue
				}
				// The bytes after the last whole piece are written again.
				from := piecesOf(t, text, cut, size, w)
				p := resumePieces(from)
				p.Write(text[wholeBytes(from):])
				if !sameDigests(p.sums, cf.pieceSums) || !sameDigests(p.tailSums(), cf.pieceTail) {
					t.Fatalf("pieces of %d bytes resumed at %d: they differ from the text's written at once", size, cut)
				}
			}
		}
	}
}

// sameDigests tells whether a and b hold the same digests in each hash.
func sameDigests(a, b [pieceHashes][]byte) bool {
	for h := range pieceHashes {
		if !bytes.Equal(a[h], b[h]) {
			return false
		}
	}
	return true
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
		want    CheckpointFile
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
		for _, by := range []string{"both", "waiter", "workers", "until-loaded", "loaded"} {
			for h := range pieceHashes {
				t.Run(tc.name+"/"+by+"/"+h.String(), func(t *testing.T) {
					f := LogFile{Path: "events.jsonl", At: tc.at}
					tail := proveTail(tc.want, f, resumePieces(tc.want))
					var err error
					switch by {
					case "both":
						err = provePieces(h, tc.want, f, tc.oneFile, tail)
					case "waiter":
						p := &proof{hash: h, want: tc.want, f: f, oneFile: tc.oneFile, whole: tc.want.Offset / tc.want.pieceSize}
						p.results = make([]pieceResult, p.whole+1)
						p.setTail(tail)
						err = p.wait()
					case "workers":
						p := startProof(h, tc.want, f, tc.oneFile)
						loaded := make(chan struct{})
						close(loaded)
						p.hashUntil(loaded) // hashes none, starts the goroutines
						p.setTail(tail)
						p.wg.Wait()
						err = p.wait()
					case "until-loaded", "loaded":
						p := startProof(h, tc.want, f, tc.oneFile)
						p.setTail(tail)
						loaded := make(chan struct{})
						if by == "loaded" {
							close(loaded)
						}
						p.hashUntil(loaded)
						if by == "until-loaded" && p.next.Load() < p.whole {
							t.Fatalf("hashUntil returned with pieces left and the fold state not loaded")
						}
						err = p.wait()
					}
					got := ""
					if err != nil {
						got = err.Error()
					}
					if got != tc.err {
						t.Fatalf("err = %q, want %q", got, tc.err)
					}
					var mis *StateMismatchError
					if err != nil && errors.As(err, &mis) == (tc.name == "a read error" || tc.name == "a read error in a truncated file") {
						t.Fatalf("err %q: a mismatch is a *StateMismatchError, a read error is not", err)
					}
				})
			}
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
	opts := Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Checkpoint: true, pieceSize: 64}
	res, err := Check(bytes.NewReader(log), opts)
	if err != nil || res.Checkpoint == nil {
		t.Fatal(err, res.NoCheckpoint)
	}
	var good bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(f *CheckpointFile)
		err   string
	}{
		{"a BLAKE3 digest missing", func(f *CheckpointFile) { f.pieceSums[pieceBLAKE3] = f.pieceSums[pieceBLAKE3][:pieceDigestSize] },
			"the checkpoint is unusable: its contents are damaged (a file's BLAKE3 piece digests do not cover its offset)"},
		{"a SHA-256 digest missing", func(f *CheckpointFile) { f.pieceSums[pieceSHA256] = f.pieceSums[pieceSHA256][:pieceDigestSize] },
			"the checkpoint is unusable: its contents are damaged (a file's SHA-256 piece digests do not cover its offset)"},
		{"a digest too many", func(f *CheckpointFile) {
			f.pieceSums[pieceSHA256] = append(f.pieceSums[pieceSHA256], make([]byte, pieceDigestSize)...)
		},
			"the checkpoint is unusable: its contents are damaged (a file's SHA-256 piece digests do not cover its offset)"},
		{"no piece size", func(f *CheckpointFile) { f.pieceSize = 0 },
			"the checkpoint is unusable: its contents are damaged (a proof piece size out of range)"},
		{"a piece size over 1 GiB", func(f *CheckpointFile) { f.pieceSize = maxPieceBytes + 1 },
			"the checkpoint is unusable: its contents are damaged (a proof piece size out of range)"},
		{"a last piece's BLAKE3 digest that is none", func(f *CheckpointFile) { f.pieceTail[pieceBLAKE3] = []byte("junk") },
			"the checkpoint is unusable: its contents are damaged (a file's last BLAKE3 piece digest is not 32 bytes)"},
		{"a last piece's SHA-256 digest that is none", func(f *CheckpointFile) { f.pieceTail[pieceSHA256] = nil },
			"the checkpoint is unusable: its contents are damaged (a file's last SHA-256 piece digest is not 32 bytes)"},
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
				o := opts
				o.Resume = cp
				_, err = Check(bytes.NewReader(append(bytes.Clone(log), log...)), o)
			}
			var damage *CheckpointError
			if err == nil || err.Error() != tc.err || !errors.As(err, &damage) {
				t.Fatalf("err = %v, want %q (a *CheckpointError)", err, tc.err)
			}
		})
	}
}

// sections is a file that can be hashed from memory (SectionWriter) and
// records the sections asked of it.
type sections struct {
	*bytes.Reader
	mu    sync.Mutex // the proof's goroutines ask at once
	asked [][2]int64
}

func (s *sections) WriteSection(w io.Writer, off, n int64) (int64, error) {
	s.mu.Lock()
	s.asked = append(s.asked, [2]int64{off, n})
	s.mu.Unlock()
	return io.Copy(w, io.NewSectionReader(s.Reader, off, n))
}

// TestProofSections: of a file that can be hashed from memory, the proof
// asks for whole pieces only; the bytes of the last piece, less than a
// piece, are read through a buffer (proveTail).
func TestProofSections(t *testing.T) {
	text := bytes.Repeat([]byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started"}`+"\n"), 20) // 1,160 bytes
	want := piecesOf(t, text, 1050, 100, 1<<20)                                                        // 10 whole, a tail of 50
	at := &sections{Reader: bytes.NewReader(text)}
	f := LogFile{Path: "events.jsonl", At: at}
	tail := proveTail(want, f, resumePieces(want))
	if len(at.asked) != 0 || !tail.same || tail.got != 50 {
		t.Fatalf("the last piece: sections %v asked, result %+v", at.asked, tail)
	}
	if err := provePieces(pieceBLAKE3, want, f, true, tail); err != nil {
		t.Fatal(err)
	}
	if len(at.asked) != 10 {
		t.Fatalf("%d sections asked, want the 10 whole pieces: %v", len(at.asked), at.asked)
	}
	for _, s := range at.asked {
		if s[0]%100 != 0 || s[1] != 100 {
			t.Fatalf("a section %v that is no whole piece", s)
		}
	}
}

// TestProofSectionsOnlyWholeDigest: a checkpoint may name any piece size
// up to maxPieceBytes, and every piece digest hashes on the calling
// goroutine, where a fault of a mapped file truncated under the proof
// (SIGBUS) is recovered: a proof by either hash asks every whole piece
// from memory (SectionWriter), and holds, whether the piece is a power of
// two of BLAKE3's strides (wholePieceDigest, with AVX-512) or not.
func TestProofSectionsOnlyWholeDigest(t *testing.T) {
	line := []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started"}` + "\n")
	text := bytes.Repeat(line, 7*strideBytes/len(line)+1)
	for _, tc := range []struct {
		hash     pieceHash
		size     int64
		sections int // how many whole pieces are asked from memory
	}{
		{pieceBLAKE3, 2 * strideBytes, 3},
		{pieceBLAKE3, 3 * strideBytes, 2},
		{pieceBLAKE3, 2*strideBytes + 1, 3},
		{pieceSHA256, 2 * strideBytes, 3},
		{pieceSHA256, 3 * strideBytes, 2},
		{pieceSHA256, 2*strideBytes + 1, 3},
	} {
		offset := int64(len(text)) - 100
		want := piecesOf(t, text, offset, tc.size, 1<<20)
		at := &sections{Reader: bytes.NewReader(text)}
		f := LogFile{Path: "events.jsonl", At: at}
		tail := proveTail(want, f, resumePieces(want))
		if err := provePieces(tc.hash, want, f, true, tail); err != nil {
			t.Fatalf("%v pieces of %d bytes: %v", tc.hash, tc.size, err)
		}
		if len(at.asked) != tc.sections {
			t.Errorf("%v pieces of %d bytes: %d sections asked from memory, want %d: %v", tc.hash, tc.size, len(at.asked), tc.sections, at.asked)
		}
	}
}

// provePieces is startProof's result, waited for: the proof in h on the
// calling goroutine and the others.
func provePieces(h pieceHash, want CheckpointFile, f LogFile, oneFile bool, tail pieceResult) error {
	p := startProof(h, want, f, oneFile)
	p.setTail(tail)
	return p.wait()
}
