// Package swar tests eight bytes at a time in one uint64 ("SIMD within a
// register", Hacker's Delight, "find first zero byte"), for the loops over
// strings that the checker and its JSON encoder run millions of times.
//
// Each function sets the high bit (0x80) of every byte of its result whose
// byte in w matches. None misses a match, so a zero result means no byte
// matched; a flag can be wrong only above a true one, so the lowest flag is
// always exact.
package swar

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Equal flags the bytes of w equal to c.
func Equal(w uint64, c byte) uint64 {
	x := w ^ (ones * uint64(c))
	return (x - ones) &^ x & highs
}

// Below flags the bytes of w less than n; n must be at most 0x80.
func Below(w uint64, n byte) uint64 { return (w - ones*uint64(n)) &^ w & highs }

// NonASCII flags the bytes of w at or above 0x80.
func NonASCII(w uint64) uint64 { return w & highs }
