//go:build linux

package osfile

import (
	"bytes"
	"testing"
)

// TestHugeBuffer: below hugeBufferBytes the buffer is the caller's to
// allocate; from it, a zeroed buffer of exactly the size asked.
func TestHugeBuffer(t *testing.T) {
	if b := hugeBuffer(hugeBufferBytes - 1); b != nil {
		t.Fatalf("hugeBuffer(%d): %d bytes, want nil", hugeBufferBytes-1, len(b))
	}
	size := hugeBufferBytes + 5
	b := hugeBuffer(size)
	if len(b) != size || cap(b) != size {
		t.Fatalf("hugeBuffer(%d): len %d cap %d", size, len(b), cap(b))
	}
	if !bytes.Equal(b, make([]byte, size)) {
		t.Fatal("hugeBuffer's memory is not zeroed")
	}
	b[size-1] = 1 // writable
}
