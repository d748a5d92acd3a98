package eventline

// The swar functions test eight bytes at a time in one uint64 ("SIMD
// within a register", Hacker's Delight, "find first zero byte"), for the
// loops over strings the decoder runs for every line.
//
// Each function sets the high bit (0x80) of every byte of its result whose
// byte in w matches. None misses a match, so a zero result means no byte
// matched; a flag can be wrong only above a true one, so the lowest flag is
// always exact.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// swarEqual flags the bytes of w equal to c.
func swarEqual(w uint64, c byte) uint64 {
	x := w ^ (swarOnes * uint64(c))
	return (x - swarOnes) &^ x & swarHighs
}

// swarBelow flags the bytes of w less than n; n must be at most 0x80.
func swarBelow(w uint64, n byte) uint64 { return (w - swarOnes*uint64(n)) &^ w & swarHighs }

// swarNonASCII flags the bytes of w at or above 0x80.
func swarNonASCII(w uint64) uint64 { return w & swarHighs }
