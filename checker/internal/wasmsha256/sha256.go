// Package wasmsha256 is SHA-256 (FIPS 180-4) written for Go's WebAssembly
// code generation, for the checker's wasm builds: the 64 rounds of the
// compression function are unrolled (gen.go writes block.go), so that under
// V8 it hashes about twice as fast as crypto/sha256's generic code, which
// is what crypto/sha256 runs in WebAssembly (no SHA instructions there).
// Natively crypto/sha256 is far faster, with the CPU's SHA extensions, and
// the checker uses it there.
//
// A digest's state marshals to crypto/sha256's form (encoding.BinaryMarshaler),
// byte for byte, so a checkpoint written by either resumes with the other.
// The tests hold it to crypto/sha256 on every input and state.
package wasmsha256

//go:generate go run gen.go

import (
	"encoding/binary"
	"errors"
	"hash"
)

// Size is the length of a digest in bytes, BlockSize the length of the
// block the compression function takes.
const (
	Size      = 32
	BlockSize = 64
)

// iv is the initial hash value (FIPS 180-4 §5.3.3).
var iv = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// magic and stateSize frame a marshaled state as crypto/sha256 does: the
// magic, the eight state words, the partial block padded to 64 bytes with
// zeros, and the length written so far, big-endian.
const (
	magic     = "sha\x03"
	stateSize = len(magic) + 8*4 + BlockSize + 8
)

// Digest is a running SHA-256 hash; New returns one ready for use.
type Digest struct {
	h   [8]uint32
	buf [BlockSize]byte // the partial block: buf[:n]
	n   int
	len uint64 // bytes written
}

// New returns a SHA-256 hash. It implements hash.Hash,
// encoding.BinaryMarshaler, encoding.BinaryAppender and
// encoding.BinaryUnmarshaler with crypto/sha256's state format.
func New() *Digest {
	d := new(Digest)
	d.Reset()
	return d
}

var _ hash.Hash = (*Digest)(nil)

// Reset makes d the hash of nothing.
func (d *Digest) Reset() { *d = Digest{h: iv} }

// Size returns Size.
func (d *Digest) Size() int { return Size }

// BlockSize returns BlockSize.
func (d *Digest) BlockSize() int { return BlockSize }

// Write adds p to the hash; it never fails.
func (d *Digest) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.n > 0 {
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
		if d.n < BlockSize {
			return n, nil
		}
		block(&d.h, d.buf[:])
		d.n = 0
	}
	whole := len(p) &^ (BlockSize - 1)
	block(&d.h, p[:whole])
	d.n = copy(d.buf[:], p[whole:])
	return n, nil
}

// Sum appends the digest of what was written to b; d is unchanged, so
// more may be written after it.
func (d *Digest) Sum(b []byte) []byte {
	e := *d
	// The padding: a 1 bit, zeros up to 56 bytes into a block, and the
	// length in bits as a 64-bit big-endian number (FIPS 180-4 §5.1.1).
	var pad [BlockSize + 8]byte
	pad[0] = 0x80
	zeros := (55 - e.len) % BlockSize
	binary.BigEndian.PutUint64(pad[1+zeros:], e.len<<3)
	e.Write(pad[:1+zeros+8])
	for _, v := range e.h {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// MarshalBinary returns d's state in crypto/sha256's form.
func (d *Digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, stateSize))
}

// AppendBinary appends d's state in crypto/sha256's form to b.
func (d *Digest) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, magic...)
	for _, v := range d.h {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = append(b, d.buf[:d.n]...)
	b = append(b, make([]byte, BlockSize-d.n)...)
	return binary.BigEndian.AppendUint64(b, d.len), nil
}

// UnmarshalBinary sets d to a state MarshalBinary (or crypto/sha256's)
// wrote. A state of another length or of another hash (SHA-224's magic,
// say) is an error and leaves d as it was.
func (d *Digest) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("wasmsha256: not a SHA-256 hash state")
	}
	if len(b) != stateSize {
		return errors.New("wasmsha256: a SHA-256 hash state of the wrong size")
	}
	b = b[len(magic):]
	var e Digest
	for i := range e.h {
		e.h[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	b = b[4*len(e.h):]
	copy(e.buf[:], b[:BlockSize])
	e.len = binary.BigEndian.Uint64(b[BlockSize:])
	e.n = int(e.len % BlockSize)
	*d = e
	return nil
}
