package checker

import (
	"hash"
	"math/bits"

	"github.com/klauspost/cpuid/v2"
	"lukechampine.com/blake3/guts"
)

// strideBytes is what one call of guts.CompressBuffer hashes: 16 chunks
// of 1 KiB, side by side in the SIMD lanes (AVX-512 on amd64; the
// library's generic code elsewhere).
const strideBytes = guts.MaxSIMD * guts.ChunkSize

// wholePieceDigest is the BLAKE3 digest of a whole proof piece of size
// bytes, a power of two (at least 2) times strideBytes (the 1 MiB default),
// built from lukechampine.com/blake3's low-level functions on the calling
// goroutine only: its blake3.Hasher's Write hashes a large write on
// goroutines of its own, one for every 16 KiB, which a proof reading a
// file mapped into memory must not hand its bytes to (internal/osfile
// recovers a fault of a file that shrank under its mapping on the
// goroutine that reads, not on others). It is the proof's BLAKE3 where
// the CPU has AVX-512, which that library's code uses and
// github.com/zeebo/blake3's (pieceHash.newHash) does not. BLAKE3's tree
// over a power of two of chunks is the perfect binary tree of its
// strides' subtrees (the specification's section 2.1), so the digest is
// blake3.Sum256's of the same bytes, which the tests hold it to. Sum is
// only meant for the whole piece.
type wholePieceDigest struct {
	cvs [][8]uint32 // the chaining value of each stride so far
	buf [strideBytes]byte
	n   int // bytes in buf
}

// newWholePieceDigest is the digest in a of a whole piece of size bytes:
// for BLAKE3 where lukechampine.com/blake3's AVX-512 code is the faster
// (avx512BLAKE3), wholePieceDigest where size fits it; else a.newHash().
func newWholePieceDigest(a pieceHash, size int64) hash.Hash {
	if a == pieceBLAKE3 && avx512BLAKE3(cpuid.CPU.VendorID, cpuid.CPU.Supports(cpuid.AVX512F)) {
		if d := newWholeBLAKE3(size); d != nil {
			return d
		}
	}
	return a.newHash()
}

// avx512BLAKE3 says whether lukechampine.com/blake3's AVX-512 code hashes
// a proof piece faster than github.com/zeebo/blake3's AVX2 code on a CPU
// from vendor, with or without AVX-512F (BenchmarkPieceHash, one core):
//   - an Intel Xeon with AVX-512: 2.3 to 5.4 GB/s against 4.1;
//   - an AMD EPYC of family 25 (Zen 4), whose AVX-512 instructions run
//     in two 256-bit halves: 2.7 to 2.8 GB/s against 3.3 to 3.4, and a
//     resumed check of the 1M-event benchmark log 95 ms against 85
//     (median of 31 alternating runs).
//
// So it is Intel's only; AMD's family 26 (Zen 5, 512-bit units) has not
// been measured and keeps the AVX2 code.
func avx512BLAKE3(vendor cpuid.Vendor, avx512 bool) bool {
	return avx512 && vendor == cpuid.Intel
}

// newWholeBLAKE3 is the wholePieceDigest of a piece of size bytes, or nil
// where size is not a power of two (at least 2) of strides.
func newWholeBLAKE3(size int64) *wholePieceDigest {
	if size < 2*strideBytes || size%strideBytes != 0 || bits.OnesCount64(uint64(size/strideBytes)) != 1 {
		return nil
	}
	return &wholePieceDigest{cvs: make([][8]uint32, 0, size/strideBytes)}
}

func (d *wholePieceDigest) stride(b *[strideBytes]byte) {
	counter := uint64(len(d.cvs)) * guts.MaxSIMD // chunks before this stride
	d.cvs = append(d.cvs, guts.ChainingValue(guts.CompressBuffer(b, strideBytes, &guts.IV, counter, 0)))
}

// Write hashes b's strides as they fill.
func (d *wholePieceDigest) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if d.n == 0 && len(b) >= strideBytes {
			d.stride((*[strideBytes]byte)(b[:strideBytes]))
			b = b[strideBytes:]
			continue
		}
		k := copy(d.buf[d.n:], b)
		d.n += k
		b = b[k:]
		if d.n == strideBytes {
			d.stride(&d.buf)
			d.n = 0
		}
	}
	return n, nil
}

// Sum appends the digest of the piece written (a power of two of whole
// strides) to b: the parents of each level of the tree, up to the root.
func (d *wholePieceDigest) Sum(b []byte) []byte {
	level := append([][8]uint32(nil), d.cvs...)
	for len(level) > 2 {
		for i := range len(level) / 2 {
			level[i] = guts.ChainingValue(guts.ParentNode(level[2*i], level[2*i+1], &guts.IV, 0))
		}
		level = level[:len(level)/2]
	}
	root := guts.ParentNode(level[0], level[1], &guts.IV, 0)
	root.Flags |= guts.FlagRoot
	out := guts.WordsToBytes(guts.CompressNode(root))
	return append(b, out[:pieceDigestSize]...)
}

// Reset starts a new piece.
func (d *wholePieceDigest) Reset() { d.cvs, d.n = d.cvs[:0], 0 }

// Size is the digest's bytes.
func (d *wholePieceDigest) Size() int { return pieceDigestSize }

// BlockSize is BLAKE3's block.
func (d *wholePieceDigest) BlockSize() int { return guts.BlockSize }
