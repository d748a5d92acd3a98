package eventline

import (
	"math/rand/v2"
	"testing"
)

// slowStringEnd is stringEnd a byte at a time, the reference.
func slowStringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// TestStringEnd compares the eight-bytes-at-a-time string scanner with the
// byte loop on strings of every length up to 40 made of quotes, backslashes,
// high bytes and plain letters, starting at every offset.
func TestStringEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{'a', 'b', '"', '\\', 0x80, 0xff, ' ', 0x01, '\\', 'z'}
	for n := 0; n < 20000; n++ {
		b := make([]byte, 1+r.IntN(40))
		b[0] = '"'
		for k := 1; k < len(b); k++ {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		for i := range b {
			if b[i] != '"' {
				continue
			}
			if got, want := stringEnd(b, i), slowStringEnd(b, i); got != want {
				t.Fatalf("stringEnd(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
}
