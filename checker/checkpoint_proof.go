package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/proof"
)

// A file's old part is proven piece by piece (checker/internal/proof,
// docs/state.md "The proof of the old part"): besides the digest state of
// the file's whole text, which the log's source.sha256 goes on from, a
// checkpoint keeps the SHA-256 digest of each piece of pieceSize bytes of
// the text, from its start, and of the bytes after the last whole piece.

// defaultPieceBytes is the size of a proof piece (1 MiB): a 137 MB log is
// 131 pieces, enough for several cores to share evenly, and a checkpoint
// holds 32 bytes for each. The last, partial piece is hashed again by
// every resumed check, so pieces are kept small. maxPieceBytes bounds what
// a checkpoint may name.
const (
	defaultPieceBytes = 1 << 20
	maxPieceBytes     = 1 << 30
)

// resumePieces goes on hashing the text of f, a checkpoint's file, after
// its whole pieces: the bytes from there to f.Offset must be written to it
// again.
func resumePieces(f CheckpointFile) *proof.Pieces { return proof.Resume(f.pieceSize, f.pieceSums) }

// wholeBytes is how many bytes of f's text its whole pieces hold.
func wholeBytes(f CheckpointFile) int64 { return f.Offset / f.pieceSize * f.pieceSize }

// fileProof proves that the regular file f starts with the text of want,
// the last file a checkpoint read (proof.Proof), and words what it found.
type fileProof struct {
	*proof.Proof
	want    CheckpointFile
	f       LogFile
	oneFile bool
}

// wait waits for the proof and says what it found. A read error (the
// first piece's) is returned as an error; a file shorter than want.Offset,
// or else a piece whose digest differs, is a *StateMismatchError naming
// the file. Every piece is read first, so the finding does not depend on
// the order the pieces were hashed in.
func (p *fileProof) wait() error {
	results := p.Wait()
	want, f := p.want, p.f
	mismatch := func(format string, args ...any) error {
		return &StateMismatchError{File: f.Path, Offset: want.Offset, Reason: fmt.Sprintf(format, args...)}
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("reading %s: %w", displayFile(f.Path), r.Err)
		}
	}
	for k, r := range results {
		if from := int64(k) * want.pieceSize; r.Got < min(want.pieceSize, want.Offset-from) {
			what := "the log"
			if !p.oneFile {
				what = "the file"
			}
			return mismatch("%s has only %d bytes (truncated, or rotated away)", what, from+r.Got)
		}
	}
	for _, r := range results {
		if !r.Same {
			return mismatch("its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", want.Offset)
		}
	}
	return nil
}
