package checker

import (
	"bytes"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/cpuid/v2"
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
			d := newWholeBLAKE3(int64(size))
			if d == nil {
				t.Fatalf("a piece of %d bytes: no wholePieceDigest", size)
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
		} else if newWholeBLAKE3(size) != nil {
			t.Fatalf("a piece of %d bytes: wholePieceDigest, which needs a power of two of strides", size)
		}
	}
}

// TestAVX512BLAKE3: lukechampine.com/blake3's AVX-512 code is the proof's
// BLAKE3 on an Intel CPU with AVX-512 only; an AMD one with AVX-512 (Zen
// 4, where github.com/zeebo/blake3's AVX2 code is faster) and any CPU
// without it get zeebo's.
func TestAVX512BLAKE3(t *testing.T) {
	for _, c := range []struct {
		vendor cpuid.Vendor
		avx512 bool
		want   bool
	}{
		{cpuid.Intel, true, true},
		{cpuid.Intel, false, false},
		{cpuid.AMD, true, false},
		{cpuid.AMD, false, false},
		{cpuid.VendorUnknown, true, false},
	} {
		if got := avx512BLAKE3(c.vendor, c.avx512); got != c.want {
			t.Errorf("avx512BLAKE3(%v, %v) = %v, want %v", c.vendor, c.avx512, got, c.want)
		}
	}
}

// BenchmarkPieceHash: one core's speed of each piece digest on a whole
// proof piece (docs/state.md, "The proof of the old part"), the figures
// proofHash's choice rests on; "chosen" marks the one newWholePieceDigest
// gives for proofHash's hash on this CPU.
func BenchmarkPieceHash(b *testing.B) {
	text := make([]byte, defaultPieceBytes)
	for i := range text {
		text[i] = byte(i * 7)
	}
	chosen := "SHA-256"
	if proofHash() == pieceBLAKE3 {
		chosen = "BLAKE3/zeebo"
		if _, luke := newWholePieceDigest(pieceBLAKE3, defaultPieceBytes).(*wholePieceDigest); luke {
			chosen = "BLAKE3/lukechampine"
		}
	}
	for _, d := range []struct {
		name string
		new  func() hash.Hash
	}{
		{"BLAKE3/zeebo", pieceBLAKE3.newHash},
		{"BLAKE3/lukechampine", func() hash.Hash { return newWholeBLAKE3(defaultPieceBytes) }},
		{"SHA-256", pieceSHA256.newHash},
	} {
		name := d.name
		if d.name == chosen {
			name += "/chosen"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(defaultPieceBytes)
			h := d.new()
			for b.Loop() {
				h.Reset()
				h.Write(text)
				h.Sum(nil)
			}
		})
	}
}
