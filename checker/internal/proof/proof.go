// Package proof proves that a file still starts with the bytes an earlier
// read of it saw, by SHA-256 digests of fixed-size pieces (docs/state.md,
// "The proof of the old part"). A checkpoint keeps the digest of each whole
// piece of the text it read and of the bytes after the last whole one;
// the next check reads the whole pieces back at their offsets and compares
// their digests, several pieces at once, so the proof takes the hash's time
// divided by the cores rather than one SHA-256 over the whole file. Equal
// digests of every piece prove the same bytes as one digest of them all.
//
// The package takes plain data (an io.ReaderAt, a piece size, the digests)
// and says what it found; the checker words the result.
package proof

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// DigestSize is the bytes of one piece's digest (SHA-256, 256 bits).
const DigestSize = sha256.Size

// Pieces hashes a text in pieces as it is written (an io.Writer): the
// digests of the whole pieces so far, and the digest of the bytes since.
type Pieces struct {
	size int64     // bytes a piece, > 0
	sums []byte    // DigestSize bytes a whole piece
	tail hash.Hash // the bytes after the last whole piece
	in   int64     // how many those are
}

// New starts hashing a text from its first byte, in pieces of size bytes
// (size > 0).
func New(size int64) *Pieces { return &Pieces{size: size, tail: sha256.New()} }

// Resume goes on hashing a text after its whole pieces, whose digests are
// sums (copied): the bytes after them must be written again, since a
// piece's digest cannot be continued.
func Resume(size int64, sums []byte) *Pieces {
	p := New(size)
	p.sums = append([]byte(nil), sums...)
	return p
}

// Size is the bytes of a piece.
func (p *Pieces) Size() int64 { return p.size }

// Sums are the digests of the whole pieces so far, DigestSize bytes each,
// in the order of the text. The slice is p's own.
func (p *Pieces) Sums() []byte { return p.sums }

// TailSum is the digest of the bytes after the last whole piece.
func (p *Pieces) TailSum() []byte { return p.tail.Sum(nil) }

// Write hashes b, closing a piece at every Size bytes of the text. It
// never fails.
func (p *Pieces) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		k := min(int64(len(b)), p.size-p.in)
		p.tail.Write(b[:k])
		p.in += k
		b = b[k:]
		if p.in == p.size {
			var d [DigestSize]byte
			p.sums = append(p.sums, p.tail.Sum(d[:0])...)
			p.tail.Reset()
			p.in = 0
		}
	}
	return n, nil
}

// Feed returns a reader that reads r and writes what it reads to p, after
// the first skip bytes (the part of a file whose pieces p already holds,
// read again to go on).
func Feed(r io.Reader, p *Pieces, skip int64) io.Reader {
	return &feeder{r: r, p: p, skip: skip}
}

type feeder struct {
	r    io.Reader
	p    *Pieces
	skip int64
}

func (f *feeder) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	fed := b[:n]
	if f.skip > 0 {
		k := min(f.skip, int64(n))
		f.skip -= k
		fed = fed[k:]
	}
	f.p.Write(fed)
	return n, err
}

// Result is what reading one piece gave: the bytes it had (Got, fewer than
// asked where the file ends first), the read error, and whether its digest
// is the one wanted.
type Result struct {
	Got  int64
	Err  error
	Same bool
}

// Tail reads the size bytes of r from offset from (the bytes after the
// last whole piece of an earlier read) into p, which goes on from the
// earlier whole pieces, and compares their digest with want.
func Tail(r io.ReaderAt, from, size int64, want []byte, p *Pieces) Result {
	var res Result
	if size > 0 {
		res.Got, res.Err = io.CopyBuffer(p, io.NewSectionReader(r, from, size), make([]byte, min(size, 1<<20)))
	}
	res.Same = res.Err == nil && res.Got == size && bytes.Equal(p.TailSum(), want)
	return res
}

// Proof compares the digests of the whole pieces of r's first bytes with
// the ones an earlier read kept. Start begins it on goroutines of its own;
// HashUntil lends the caller's goroutine until a channel closes; Wait
// hashes what is left and returns every piece's Result, the tail's last.
type Proof struct {
	r       io.ReaderAt
	size    int64
	sums    []byte
	whole   int64
	results []Result
	next    atomic.Int64 // the next piece to hash
	workers int          // goroutines started
	wg      sync.WaitGroup
	once    sync.Once
}

// Start begins proving that r holds the whole pieces of size bytes whose
// digests are sums (len(sums)/DigestSize pieces), on as many goroutines as
// there are cores but two: the caller's goroutine and one more are left to
// the check that decodes the new bytes meanwhile.
func Start(r io.ReaderAt, size int64, sums []byte) *Proof {
	p := &Proof{r: r, size: size, sums: sums, whole: int64(len(sums) / DigestSize)}
	p.results = make([]Result, p.whole+1)
	p.grow(runtime.GOMAXPROCS(0) - 2)
	return p
}

// grow starts goroutines hashing pieces until n have been started, never
// more than there are pieces left. It runs on the goroutine that calls
// Wait, before it.
func (p *Proof) grow(n int) {
	for ; p.workers < n && int64(p.workers) < p.whole-p.next.Load(); p.workers++ {
		p.wg.Go(p.work)
	}
}

// SetTail records the Result of the bytes after the whole pieces (Tail).
// It must be called before Wait, on the goroutine that calls Wait.
func (p *Proof) SetTail(r Result) { p.results[p.whole] = r }

// HashUntil hashes pieces on the calling goroutine until done is closed or
// no piece is left, then starts goroutines on every core but one. It must
// be called before Wait, on the goroutine that calls Wait.
func (p *Proof) HashUntil(done <-chan struct{}) {
	defer p.grow(max(1, runtime.GOMAXPROCS(0)-1))
	var w worker
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

func (p *Proof) work() {
	var w worker
	for p.hashNext(&w) {
	}
}

// worker is what one goroutine hashes pieces with.
type worker struct {
	h   hash.Hash
	buf []byte
}

// hashNext hashes the next piece no goroutine has taken, and says whether
// there was one.
func (p *Proof) hashNext(w *worker) bool {
	k := p.next.Add(1) - 1
	if k >= p.whole {
		return false
	}
	if w.h == nil {
		w.h = sha256.New()
		w.buf = make([]byte, min(p.size, 1<<20))
	}
	w.h.Reset()
	var r Result
	r.Got, r.Err = io.CopyBuffer(w.h, io.NewSectionReader(p.r, k*p.size, p.size), w.buf)
	var d [DigestSize]byte
	r.Same = r.Err == nil && r.Got == p.size && bytes.Equal(w.h.Sum(d[:0]), p.sums[k*DigestSize:(k+1)*DigestSize])
	p.results[k] = r
	return true
}

// Wait hashes the pieces no goroutine has taken, waits for the others and
// returns every piece's Result in order, the tail's (SetTail) last. Every
// piece is read, so what is wrong with a file is found the same way
// whatever order the pieces were hashed in. Later calls return the same.
func (p *Proof) Wait() []Result {
	p.once.Do(func() {
		p.work()
		p.wg.Wait()
	})
	return p.results
}
