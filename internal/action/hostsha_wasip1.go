//go:build wasip1 && greenlight_lean

package action

import (
	"hash"
	"unsafe"
)

// The lean module (docs/action.md) hashes the logs with the host's SHA-256:
// SHA-256 compiled to WebAssembly has no SHA instructions and took a fifth
// of the module's CPU on the 1M log, where node's crypto, given the very
// bytes the module read (a view of its memory), is many times faster. The
// runner script (action/run.mjs) provides these imports; another WASI host
// does not, so only the lean module imports them and the full module runs
// anywhere.

//go:wasmimport greenlight_host sha256_new
func hostSHA256New() int32

//go:wasmimport greenlight_host sha256_update
func hostSHA256Update(h int32, p unsafe.Pointer, n int32)

//go:wasmimport greenlight_host sha256_sum
func hostSHA256Sum(h int32, out unsafe.Pointer)

// hostHash is a SHA-256 hash the host keeps; h is its handle.
type hostHash struct{ h int32 }

func (x *hostHash) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), 1<<30)
		hostSHA256Update(x.h, unsafe.Pointer(&rest[0]), int32(n))
		rest = rest[n:]
	}
	return len(p), nil
}

// Sum appends the digest of what was written so far; the host digests a
// copy, so more may be written after it, as hash.Hash requires.
func (x *hostHash) Sum(b []byte) []byte {
	var out [32]byte
	hostSHA256Sum(x.h, unsafe.Pointer(&out[0]))
	return append(b, out[:]...)
}

func (x *hostHash) Reset()         { x.h = hostSHA256New() }
func (x *hostHash) Size() int      { return 32 }
func (x *hostHash) BlockSize() int { return 64 }

// hostSHA256 is checker.Reading.NewSHA256 for this build: the host's.
func hostSHA256() func() hash.Hash {
	return func() hash.Hash { return &hostHash{hostSHA256New()} }
}
