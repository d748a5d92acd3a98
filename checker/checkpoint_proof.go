package checker

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"fmt"
	"hash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// A file's old part is proven piece by piece, on every core (docs/state.md,
// "The proof of the old part"): besides the digest state of the file's
// whole text, which the log's source.sha256 goes on from, a checkpoint
// keeps the SHA-256 of each piece of pieceSize bytes of the text, from its
// start, and the digest state of the bytes after the last whole piece. The
// pieces of a regular file are read at their offsets and hashed at once,
// so that the proof takes the hash's time divided by the cores, not the
// time of one SHA-256 over the whole file. Equal digests of every piece
// prove the same bytes as one digest of them all (SHA-256's collision
// resistance holds for each piece), and the whole text's digest state is
// then the checkpoint's.

// defaultPieceBytes is the size of a proof piece (4 MiB): a 137 MB log is
// 33 pieces, enough for two or eight cores to share evenly, and a
// checkpoint holds 32 bytes for each. maxPieceBytes bounds what a
// checkpoint may name.
const (
	defaultPieceBytes = 4 << 20
	maxPieceBytes     = 1 << 30
)

// pieces hashes a file's text in pieces as it is read (an io.Writer): the
// digests of the whole pieces so far, and the digest of the bytes since.
type pieces struct {
	size int64     // bytes a piece, > 0
	sums []byte    // sha256.Size bytes a whole piece
	tail hash.Hash // the bytes after the last whole piece
	in   int64     // how many those are
}

// newPieces starts hashing a text from its first byte, with pieces of
// size bytes and the digests of newHash.
func newPieces(size int64, newHash func() hash.Hash) *pieces {
	return &pieces{size: size, tail: newHash()}
}

// resumePieces goes on hashing the text of f, a checkpoint's file, after
// the f.Offset bytes its pieces cover. The error is a damaged checkpoint's.
func resumePieces(f CheckpointFile, newHash func() hash.Hash) (*pieces, error) {
	p := newPieces(f.pieceSize, newHash)
	p.sums = append([]byte(nil), f.pieceSums...)
	p.in = f.Offset % f.pieceSize
	if err := p.tail.(encoding.BinaryUnmarshaler).UnmarshalBinary(f.pieceTail); err != nil {
		return nil, damaged("its digest state of a file's last piece: " + err.Error())
	}
	return p, nil
}

// Write hashes b, closing a piece at every pieceSize bytes of the text.
func (p *pieces) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		k := min(int64(len(b)), p.size-p.in)
		p.tail.Write(b[:k])
		p.in += k
		b = b[k:]
		if p.in == p.size {
			p.sums = p.tail.Sum(p.sums)
			p.tail.Reset()
			p.in = 0
		}
	}
	return n, nil
}

// state is the digest state of the bytes after the last whole piece.
func (p *pieces) state() ([]byte, error) { return hashState(p.tail) }

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

// provePieces proves that the regular file f starts with the text of want,
// the last file a checkpoint read, reading each piece of its first
// want.Offset bytes from f.At on a goroutine of its own (as many at once
// as there are cores) and comparing its digest with the checkpoint's. Every
// piece is read, so that what is wrong with a file is found the same way
// whatever the order the pieces were hashed in: a read error (the first
// piece's) is returned as an error; a file shorter than want.Offset, or
// else a piece whose digest differs, is a *StateMismatchError naming the
// file, with provePrefix's words.
func provePieces(want CheckpointFile, f LogFile, oneFile bool, newHash func() hash.Hash) error {
	mismatch := func(format string, args ...any) error {
		return &StateMismatchError{File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	whole := want.Offset / want.pieceSize
	n := whole
	if want.Offset%want.pieceSize > 0 {
		n++
	}
	type result struct {
		got  int64 // bytes the piece had
		err  error
		same bool
	}
	results := make([]result, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(int64(runtime.GOMAXPROCS(0)), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			h := newHash()
			for {
				k := next.Add(1) - 1
				if k >= n {
					return
				}
				from := k * want.pieceSize
				size := min(want.pieceSize, want.Offset-from)
				h.Reset()
				got, err := io.CopyBuffer(h, io.NewSectionReader(f.At, from, size), buf)
				r := result{got: got, err: err}
				if err == nil && got == size {
					if k < whole {
						r.same = bytes.Equal(h.Sum(nil), want.pieceSums[k*sha256.Size:(k+1)*sha256.Size])
					} else {
						state, serr := hashState(h)
						r.err, r.same = serr, bytes.Equal(state, want.pieceTail)
					}
				}
				results[k] = r
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return fmt.Errorf("reading %s: %w", displayFile(f.Path), r.err)
		}
	}
	for k, r := range results {
		if from := int64(k) * want.pieceSize; r.got < min(want.pieceSize, want.Offset-from) {
			what := "the log"
			if !oneFile {
				what = "the file"
			}
			return mismatch("%s has only %d bytes (truncated, or rotated away)", what, from+r.got)
		}
	}
	for _, r := range results {
		if !r.same {
			return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", want.Offset)
		}
	}
	return nil
}
