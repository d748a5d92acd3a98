package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"lukechampine.com/blake3"
)

// TestWholePieceDigest: the digest of a whole proof piece built on the
// calling goroutine is BLAKE3's of the same bytes, for every piece size
// it is used for, however the piece is written; other sizes get
// blake3.Hasher itself.
func TestWholePieceDigest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := make([]byte, 4<<20)
	for i := range text {
		text[i] = byte(rng.Uint32())
	}
	for _, size := range []int{2 * strideBytes, 4 * strideBytes, 1 << 20, defaultPieceBytes} {
		want := blake3.Sum256(text[:size])
		for _, w := range []int{size, strideBytes, 1000, 1 << 20, 3 * strideBytes} {
			d := newWholePieceDigest(pieceBLAKE3, int64(size))
			if _, ok := d.(*wholePieceDigest); !ok {
				t.Fatalf("a piece of %d bytes: digest %T, want *wholePieceDigest", size, d)
			}
			for i := 0; i < 2; i++ { // once more after Reset
				d.Reset()
				for b := text[:size]; len(b) > 0; {
					k := min(w, len(b))
					d.Write(b[:k])
					b = b[k:]
				}
				if got := d.Sum([]byte("x")); !bytes.Equal(got, append([]byte("x"), want[:]...)) {
					t.Fatalf("a piece of %d bytes written %d at a time: digest %x, want %x", size, w, got[1:], want)
				}
			}
		}
	}
	for _, size := range []int64{97, strideBytes, 3 * strideBytes, strideBytes + 1} {
		if d := newWholePieceDigest(pieceBLAKE3, size); d.Size() != pieceDigestSize {
			t.Fatalf("a piece of %d bytes: a digest of %d bytes", size, d.Size())
		} else if _, ok := d.(*wholePieceDigest); ok {
			t.Fatalf("a piece of %d bytes: wholePieceDigest, which needs a power of two of strides", size)
		}
	}
}

// BenchmarkPieceHash: one core's speed of each hash on a whole proof piece
// (docs/state.md, "The proof of the old part"), the figures proofHash's
// choice rests on; "chosen" is the one it takes on this CPU.
func BenchmarkPieceHash(b *testing.B) {
	text := make([]byte, defaultPieceBytes)
	for i := range text {
		text[i] = byte(i * 7)
	}
	for _, h := range []pieceHash{pieceBLAKE3, pieceSHA256} {
		name := h.String()
		if h == proofHash() {
			name += "/chosen"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(defaultPieceBytes)
			d := newWholePieceDigest(h, defaultPieceBytes)
			for b.Loop() {
				d.Reset()
				d.Write(text)
				d.Sum(nil)
			}
		})
	}
}
