// Package swartest gives the words that the tests of a SWAR function (one
// that flags bytes eight at a time, checker/internal/eventline) hold to a byte loop.
package swartest

import "math/rand/v2"

// Words calls try with every byte value at every position of the plain
// word "hgfedcba", then 200,000 times with a random word from r and with a
// word of bytes from base to base+0x5f, about one byte in 64 with its high
// bit set: bytes near the ones such a function flags, most of them not.
func Words(r *rand.Rand, base byte, try func(w uint64)) {
	const word = 0x6162636465666768 // "hgfedcba"
	for k := range 8 {
		for c := range 256 {
			try(word&^(0xff<<(8*k)) | uint64(c)<<(8*k))
		}
	}
	for range 200000 {
		try(r.Uint64())
		var w uint64
		for k := range 8 {
			w |= uint64(int(base)+r.IntN(0x60))<<(8*k) | uint64(r.IntN(64)/63)<<(8*k+7)
		}
		try(w)
	}
}
