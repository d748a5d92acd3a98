package runstore

import (
	"testing"
	"unsafe"
)

// TestStateSizes holds the per-attempt and per-run sizes the comments on
// Attempt and Run promise, since memory grows with them: 80 bytes
// each on a 64-bit target (amd64, arm64, wasm). On a 32-bit one (386, arm,
// mips) an int, a pointer and the words of a string or slice header are 4
// bytes and an int64 is 4-aligned, so the same fields take 56 and 52 bytes.
func TestStateSizes(t *testing.T) {
	want := map[uintptr]struct{ attempt, run uintptr }{
		8: {attempt: 80, run: 80},
		4: {attempt: 56, run: 52},
	}
	word := unsafe.Sizeof(uintptr(0))
	w, ok := want[word]
	if !ok {
		t.Fatalf("no sizes stated for a %d-byte word", word)
	}
	if n := unsafe.Sizeof(Attempt{}); n != w.attempt {
		t.Errorf("Attempt is %d bytes, want %d with a %d-byte word", n, w.attempt, word)
	}
	if n := unsafe.Sizeof(Run{}); n != w.run {
		t.Errorf("Run is %d bytes, want %d with a %d-byte word", n, w.run, word)
	}
}
