package eventline

import (
	"encoding/binary"
	"math/bits"
)

// The scanner below walks a JSON text that jsontext has already validated,
// so it only finds where things end; it never has to reject anything.

// skipSpace returns the index of the first non-whitespace byte at or after i.
// A byte above the space is none, which settles most calls in one
// comparison (the scanner calls it four times a member, mostly where
// there is no space at all).
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		if c := b[i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
		i++
	}
	return i
}

// stringEnd returns the index just past the string literal starting at i.
// It looks at eight bytes at a time for a quote or a backslash (event
// strings are too short for bytes.IndexByte's set-up to pay off), then
// byte by byte from the first one found.
func stringEnd(b []byte, i int) int {
	for i++; i+8 <= len(b); {
		w := binary.LittleEndian.Uint64(b[i:])
		m := swarEqual(w, '"') | swarEqual(w, '\\')
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) / 8 // the lowest flag is always exact
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value starting at i.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return len(b)
}
