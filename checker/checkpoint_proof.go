package checker

import (
	"bytes"
	"fmt"
	"hash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/cpuid/v2"
	zblake3 "github.com/zeebo/blake3"
)

// A file's old part is proven piece by piece, on every core (docs/state.md,
// "The proof of the old part"): besides the digest state of the file's
// whole text, which the log's source.sha256 goes on from, a checkpoint
// keeps two digests of each piece of pieceSize bytes of the text, from
// its start, and of the bytes after the last whole piece: BLAKE3
// (https://github.com/BLAKE3-team/BLAKE3-specs) and SHA-256. The pieces
// of a regular file are read at their offsets and hashed at once, so that
// the proof takes the hash's time divided by the cores, not the time of
// one SHA-256 over the whole file. Equal digests of every piece prove the
// same bytes as one digest of them all (the collision resistance of
// either, 128 bits, holds for each piece), and the whole text's digest
// state is then the checkpoint's.
//
// A proof needs one of the two, and takes the one this CPU hashes faster
// (proofHash), in the faster of two BLAKE3 libraries: the proof is most of
// what a resumed check costs (BenchmarkPieceHash, one core):
//   - with AVX-512 on Intel (a Xeon), lukechampine.com/blake3's 16 chunks
//     side by side (wholePieceDigest) 2.3 to 5.4 GB/s, crypto/sha256 with
//     the SHA instructions 1.3 to 2.0 GB/s;
//   - with AVX-512 on AMD (an EPYC, Zen 4), github.com/zeebo/blake3's
//     AVX2 code 3.4 GB/s, lukechampine.com/blake3's AVX-512 code 2.8
//     (avx512BLAKE3);
//   - with AVX2 only (an AMD EPYC, Zen 1), github.com/zeebo/blake3's AVX2
//     code 1.5 GB/s, crypto/sha256 1.2 GB/s, lukechampine.com/blake3's
//     AVX2 code 0.7 to 0.9 GB/s;
//   - on arm64 neither BLAKE3 library has vector code, and SHA-256 has
//     the SHA2 instructions.
//
// Both digests are kept so that a checkpoint's bytes are the same
// whichever machine wrote it, and any machine can prove it at its best.

// A pieceHash is one of the two digests a checkpoint keeps of each piece.
type pieceHash int

const (
	pieceBLAKE3 pieceHash = iota // unkeyed BLAKE3, 256 bits
	pieceSHA256                  // SHA-256
	pieceHashes                  // how many there are
)

func (a pieceHash) String() string { return [...]string{"BLAKE3", "SHA-256"}[a] }

// newHash is a's digest of a proof piece of any size, which hashes every
// write on the calling goroutine (as a piece hashed from a mapped file
// needs, SectionWriter): for BLAKE3 github.com/zeebo/blake3's, whose AVX2
// and SSE4.1 code runs where the CPU has them.
func (a pieceHash) newHash() hash.Hash {
	if a == pieceSHA256 {
		return defaultSHA256()
	}
	return zblake3.New()
}

// proofHash is the piece digest this CPU hashes faster: BLAKE3 on amd64
// with AVX2 or AVX-512 (github.com/zeebo/blake3's AVX2 code, or
// lukechampine.com/blake3's AVX-512 code on Intel: wholePieceDigest), else
// SHA-256 where crypto/sha256 has the CPU's SHA instructions (amd64's SHA
// extensions without AVX2, arm64's SHA2), else BLAKE3 (its portable code
// against SHA-256's).
func proofHash() pieceHash {
	switch runtime.GOARCH {
	case "amd64":
		if !cpuid.CPU.Supports(cpuid.AVX2) && cpuid.CPU.Supports(cpuid.SHA, cpuid.SSSE3, cpuid.SSE4) {
			return pieceSHA256
		}
	case "arm64":
		if cpuid.CPU.Supports(cpuid.SHA2) {
			return pieceSHA256
		}
	}
	return pieceBLAKE3
}

// defaultPieceBytes is the size of a proof piece (1 MiB): a 137 MB log is
// 131 pieces, enough for two or eight cores to share evenly, and a
// checkpoint holds 64 bytes for each (8 KB). The last, partial piece is
// hashed again in both digests by every resumed check, on the goroutine
// that decodes the new bytes (proveTail): with pieces of 4 MiB that was
// 2 MiB on average, and a resumed check of the 1M-event log took 5 ms
// longer (median of 15 alternating runs, 123 against 118 ms).
// maxPieceBytes bounds what a checkpoint may name.
const (
	defaultPieceBytes = 1 << 20
	maxPieceBytes     = 1 << 30
)

// pieceDigestSize is the bytes of a piece's digest, of either hash: 256
// bits.
const pieceDigestSize = 32

// pieces hashes a file's text in pieces as it is read (an io.Writer): the
// digests of the whole pieces so far, and the digests of the bytes since,
// in both hashes (by pieceHash).
type pieces struct {
	size int64                  // bytes a piece, > 0
	sums [pieceHashes][]byte    // pieceDigestSize bytes a whole piece
	tail [pieceHashes]hash.Hash // the bytes after the last whole piece
	in   int64                  // how many those are
}

// newPieces starts hashing a text from its first byte, with pieces of
// size bytes.
func newPieces(size int64) *pieces {
	p := &pieces{size: size}
	for a := range pieceHashes {
		p.tail[a] = a.newHash()
	}
	return p
}

// resumePieces goes on hashing the text of f, a checkpoint's file, after
// its whole pieces: the bytes from there to f.Offset, which the digest of
// the last piece does not let a hash go on from, must be written to it
// again (wholeBytes says how many bytes the whole pieces hold).
func resumePieces(f CheckpointFile) *pieces {
	p := newPieces(f.pieceSize)
	for a := range pieceHashes {
		p.sums[a] = append([]byte(nil), f.pieceSums[a]...)
	}
	return p
}

// wholeBytes is how many bytes of f's text its whole pieces hold.
func wholeBytes(f CheckpointFile) int64 { return f.Offset / f.pieceSize * f.pieceSize }

// Write hashes b, closing a piece at every pieceSize bytes of the text.
func (p *pieces) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		k := min(int64(len(b)), p.size-p.in)
		for _, t := range p.tail {
			t.Write(b[:k])
		}
		p.in += k
		b = b[k:]
		if p.in == p.size {
			for a, t := range p.tail {
				// Into an array, so that a digest's Sum never allocates.
				var d [pieceDigestSize]byte
				p.sums[a] = append(p.sums[a], t.Sum(d[:0])...)
				t.Reset()
			}
			p.in = 0
		}
	}
	return n, nil
}

// tailSums are the digests of the bytes after the last whole piece.
func (p *pieces) tailSums() [pieceHashes][]byte {
	var s [pieceHashes][]byte
	for a, t := range p.tail {
		s[a] = t.Sum(nil)
	}
	return s
}

// piecesReader feeds the bytes read through it to p, after the first skip
// ones (the part of a file a checkpoint's pieces already cover, read again
// to prove it).
type piecesReader struct {
	r    io.Reader
	p    *pieces
	skip int64
}

func (r *piecesReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	fed := b[:n]
	if r.skip > 0 {
		k := min(r.skip, int64(n))
		r.skip -= k
		fed = fed[k:]
	}
	r.p.Write(fed)
	return n, err
}

// SectionWriter is what a LogFile's At may do besides io.ReaderAt: write
// the n bytes of the file from offset off to w straight from memory the
// file is mapped to (internal/osfile), with no copy into a buffer. It
// returns the bytes written, fewer than n with a nil error where the file
// ends before off+n, and the error of a read that failed (a file that
// shrank under the mapping). A fault reading the mapping is recovered on
// the goroutine that calls WriteSection only, so w must read what it is
// given there (every piece digest does: pieceHash.newHash).
type SectionWriter interface {
	WriteSection(w io.Writer, off, n int64) (int64, error)
}

// pieceResult is what reading one piece of a file for its proof gave.
type pieceResult struct {
	got  int64 // bytes the piece had
	err  error
	same bool // whether its digest is the checkpoint's
}

// proveTail reads the bytes of the regular file f after the last whole
// piece of want, the last file a checkpoint read, up to want.Offset, into
// p (resumed from want: the next checkpoint's last piece goes on from
// them), and says what they were: the proof's result for that piece.
func proveTail(want CheckpointFile, f LogFile, p *pieces) pieceResult {
	from := wholeBytes(want)
	size := want.Offset - from
	var r pieceResult
	if size > 0 {
		// Read through a buffer (less than a piece): the bytes are
		// written to both digests.
		r.got, r.err = io.CopyBuffer(p, io.NewSectionReader(f.At, from, size), make([]byte, min(size, 1<<20)))
	}
	// Both digests are taken, for the next checkpoint's last piece: both
	// must be the checkpoint's.
	sums := p.tailSums()
	r.same = r.err == nil && r.got == size
	for a := range pieceHashes {
		r.same = r.same && bytes.Equal(sums[a], want.pieceTail[a])
	}
	return r
}

// proof proves that the regular file f starts with the text of want, the
// last file a checkpoint read: it reads each whole piece of its first
// want.Offset bytes from f.At and compares its digest with the
// checkpoint's, on goroutines of its own (as many at once as there are
// cores but two, startProof, and one more once the check's fold state is
// loaded, grow), on the check's goroutine while it waits for that state
// (hashUntil), and on the goroutine that waits for the proof (wait),
// which takes the pieces left. tail is what proveTail found of the bytes
// after them. The whole pieces are proven by their digests in hash, one
// of the two.
type proof struct {
	hash    pieceHash
	want    CheckpointFile
	f       LogFile
	oneFile bool
	whole   int64 // whole pieces
	results []pieceResult
	next    atomic.Int64 // the next piece to hash
	workers int          // goroutines started
	wg      sync.WaitGroup
	once    sync.Once // wait's
	err     error
}

// startProof starts proving that f starts with want's text, by the
// digests in hash of its whole pieces, on as many goroutines as there are
// cores but two (none on two cores); the result is wait's.
//
// Two cores are left to the chain that ends in the write and fsync of the
// next checkpoint, which overlap the proof only once they have started:
// the fold state is loaded on one (startFold), and the check's goroutine
// hashes the last piece (proveTail) and then proof pieces until that state
// is loaded (hashUntil); then one more goroutine hashes pieces (grow)
// while the check's goroutine folds the new events and encodes the next
// checkpoint, and the goroutine that waits takes the pieces left once the
// checkpoint is written. On the benchmark machine's two cores (bench/run.sh
// section 12) the fsync of the 18 MB checkpoint takes 41 to 46 ms: with a
// proof goroutine from the start, the write began 52 to 59 ms into the
// check and its fsync ended with the proof or after it.
func startProof(hash pieceHash, want CheckpointFile, f LogFile, oneFile bool) *proof {
	p := &proof{hash: hash, want: want, f: f, oneFile: oneFile, whole: want.Offset / want.pieceSize}
	p.results = make([]pieceResult, p.whole+1)
	p.grow(runtime.GOMAXPROCS(0) - 2)
	return p
}

// grow starts goroutines hashing pieces until n have been started, never
// more than there are pieces left. It must be called on the goroutine
// that calls wait, before it.
func (p *proof) grow(n int) {
	for ; p.workers < n && int64(p.workers) < p.whole-p.next.Load(); p.workers++ {
		p.wg.Go(p.work)
	}
}

// hashUntil hashes pieces on the calling goroutine until done is closed
// (the fold state is loaded) or no piece is left, and then starts the
// goroutines of every core but one (grow). It must be called before wait,
// on its goroutine.
func (p *proof) hashUntil(done <-chan struct{}) {
	defer p.grow(max(1, runtime.GOMAXPROCS(0)-1))
	var w pieceWorker
	for {
		select {
		case <-done:
			return
		default:
		}
		if !p.hashNext(&w) {
			return
		}
	}
}

// setTail records tail, what proveTail found of the bytes after the whole
// pieces. It must be called before wait, on the goroutine that calls it;
// the pieces' goroutines never touch that result.
func (p *proof) setTail(tail pieceResult) { p.results[p.whole] = tail }

// work hashes pieces until none is left.
func (p *proof) work() {
	var w pieceWorker
	for p.hashNext(&w) {
	}
}

// pieceWorker is what one goroutine hashes pieces with.
type pieceWorker struct {
	h   hash.Hash
	buf []byte
}

// hashNext hashes the next piece no goroutine has taken, and says whether
// there was one.
func (p *proof) hashNext(w *pieceWorker) bool {
	k := p.next.Add(1) - 1
	if k >= p.whole {
		return false
	}
	if w.h == nil {
		w.h = newWholePieceDigest(p.hash, p.want.pieceSize)
	}
	w.h.Reset()
	off := k * p.want.pieceSize
	var r pieceResult
	if sw, mapped := p.f.At.(SectionWriter); mapped {
		r.got, r.err = sw.WriteSection(w.h, off, p.want.pieceSize)
	} else {
		if w.buf == nil {
			w.buf = make([]byte, min(p.want.pieceSize, 1<<20))
		}
		r.got, r.err = io.CopyBuffer(w.h, io.NewSectionReader(p.f.At, off, p.want.pieceSize), w.buf)
	}
	r.same = r.err == nil && r.got == p.want.pieceSize &&
		bytes.Equal(w.h.Sum(nil), p.want.pieceSums[p.hash][k*pieceDigestSize:(k+1)*pieceDigestSize])
	p.results[k] = r
	return true
}

// wait hashes the pieces no goroutine has taken yet, waits for the others
// and says what the proof found. Every piece is read, so that what is
// wrong with a file is found the same way whatever the order the pieces
// were hashed in: a read error (the first piece's) is returned as an
// error; a file shorter than want.Offset, or else a piece whose digest
// differs, is a *StateMismatchError naming the file, with provePrefix's
// words. Later calls return the first one's result.
func (p *proof) wait() error {
	p.once.Do(func() {
		p.work()
		p.wg.Wait()
		p.err = p.judge()
	})
	return p.err
}

// judge is what the pieces' results say, once every piece was read.
func (p *proof) judge() error {
	want, f := p.want, p.f
	mismatch := func(format string, args ...any) error {
		return &StateMismatchError{File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	for _, r := range p.results {
		if r.err != nil {
			return fmt.Errorf("reading %s: %w", displayFile(f.Path), r.err)
		}
	}
	for k, r := range p.results {
		if from := int64(k) * want.pieceSize; r.got < min(want.pieceSize, want.Offset-from) {
			what := "the log"
			if !p.oneFile {
				what = "the file"
			}
			return mismatch("%s has only %d bytes (truncated, or rotated away)", what, from+r.got)
		}
	}
	for _, r := range p.results {
		if !r.same {
			return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", want.Offset)
		}
	}
	return nil
}
