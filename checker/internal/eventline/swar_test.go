package eventline

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestFlags checks every function against a byte-by-byte answer on random
// words: no match is missed, and the lowest flag is the first match.
func TestFlags(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	picks := []byte{0, 1, 0x1f, 0x20, '"', '\\', '<', '&', 0x7f, 0x80, 0xff, 'a'}
	for range 100000 {
		var b [8]byte
		for i := range b {
			b[i] = picks[r.IntN(len(picks))]
		}
		w := binary.LittleEndian.Uint64(b[:])
		check := func(name string, got uint64, match func(byte) bool) {
			first := -1
			for i, c := range b {
				if match(c) {
					first = i
					break
				}
			}
			switch {
			case first < 0 && got != 0:
				t.Fatalf("%s(%x) = %x, want 0", name, b, got)
			case first >= 0 && (got == 0 || bits.TrailingZeros64(got)/8 != first):
				t.Fatalf("%s(%x) = %x, want the lowest flag on byte %d", name, b, got, first)
			}
		}
		check("Equal quote", swarEqual(w, '"'), func(c byte) bool { return c == '"' })
		check("Equal 0", swarEqual(w, 0), func(c byte) bool { return c == 0 })
		check("Below 0x20", swarBelow(w, 0x20), func(c byte) bool { return c < 0x20 })
		check("NonASCII", swarNonASCII(w), func(c byte) bool { return c >= 0x80 })
	}
}
