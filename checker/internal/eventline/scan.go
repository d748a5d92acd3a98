package eventline

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The scanner below validates a line and records its members in one pass.
// It vouches only for lines it can prove jsontext would accept with the same
// members: anything else (a syntax error, but also a name with an escape, a
// UTF-16 surrogate escape, deep nesting, an object with very many members)
// makes it give up, and Syntax then reads the line with jsontext, which
// gives the exact fault. So the scanner never decides a fault's text; it
// only has to be exactly as strict as jsontext on what it accepts, which
// FuzzScanMatchesJSONText checks.

const (
	// scanMaxDepth is the deepest nesting the scanner follows (the top
	// object is depth 1); deeper lines go to jsontext.
	scanMaxDepth = 32
	// scanMaxNames bounds the names of one object checked for duplicates by
	// comparing each with the others; a larger object goes to jsontext.
	scanMaxNames = 64
)

// scan validates line as one JSON object followed only by whitespace and
// records its contract fields as Syntax does. It returns false when it does
// not vouch for the line; the recorded fields are then partial and Syntax
// starts again.
func (d *Decoder) scan(line []byte, keepUnknown bool) bool {
	i := skipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return false
	}
	d.seen = d.seen[:0]
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipSpace(line, i+1) == len(line)
	}
	for {
		if i == len(line) || line[i] != '"' {
			return false
		}
		f, keyEnd := knownKey(line, i)
		if f < 0 {
			var plain bool
			keyEnd, plain = scanString(line, i)
			if keyEnd < 0 || !plain {
				return false
			}
		}
		rawKey := line[i:keyEnd]
		i = skipSpace(line, keyEnd)
		if i == len(line) || line[i] != ':' {
			return false
		}
		i = skipSpace(line, i+1)
		var valEnd int
		plainVal := false // a string value without an escape
		if i < len(line) && line[i] == '"' {
			valEnd, plainVal = scanString(line, i)
		} else {
			valEnd = d.scanValue(line, i, 1)
		}
		if valEnd < 0 {
			return false
		}
		val := line[i:valEnd]
		// Names without escapes are equal exactly when their bytes are; a
		// contract field's name is recorded in raw, the others in seen.
		if f < 0 {
			f = d.field(rawKey[1 : len(rawKey)-1])
		}
		if f >= 0 {
			if d.raw[f] != nil {
				return false
			}
			d.raw[f] = val
			d.kind[f] = jsontext.Kind(kindOf(val[0]))
			d.long = d.long || len(val) > MaxNumberChars
			d.plain[f] = plainVal
			d.recovery = d.recovery || f >= fieldOwner
		} else {
			if !d.scanNewName(rawKey, 0) {
				return false
			}
			d.other(rawKey, val, keepUnknown)
		}
		i = skipSpace(line, valEnd)
		if i == len(line) {
			return false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return skipSpace(line, i+1) == len(line)
		default:
			return false
		}
	}
}

// The names most events spell, with their quotes, as the little-endian
// words knownKey compares them with: the first eight bytes, or fewer under
// mask7 (bytes 0 to 6).
var (
	keyRunID     = keyWord(`"run_id"`)
	keyStatus    = keyWord(`"status"`)
	keyStage     = keyWord(`"stage"`)
	keyError     = keyWord(`"error"`)
	keyAttempt   = keyWord(`"attempt`) // "attempt" and "attempt_id"
	keyTimesta   = keyWord(`"timesta`) // "timestamp_utc"
	keyReturnc   = keyWord(`"returnc`) // "returncode"
	keyMaskSeven = uint64(1)<<56 - 1
)

// keyWord is the little-endian word of the first eight bytes of k, zero
// beyond its end.
func keyWord(k string) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.LittleEndian.Uint64(b[:])
}

// knownKey tells whether the name starting at line[i] (a quote) is one of
// the contract fields most events carry, spelled without an escape: then
// it returns the field and the index just past the name's closing quote,
// as scanString and field would; else -1. It compares a word or two
// instead of scanning the name and searching the field names.
func knownKey(line []byte, i int) (int, int) {
	if len(line)-i < 16 {
		return -1, 0
	}
	w := binary.LittleEndian.Uint64(line[i:])
	switch w {
	case keyRunID:
		return fieldRunID, i + 8
	case keyStatus:
		return fieldStatus, i + 8
	case keyAttempt:
		if line[i+8] == '"' {
			return fieldAttempt, i + 9
		}
		if string(line[i+8:i+12]) == `_id"` {
			return fieldAttemptID, i + 12
		}
	case keyTimesta:
		if string(line[i+8:i+15]) == `mp_utc"` {
			return fieldTimestamp, i + 15
		}
	case keyReturnc:
		if string(line[i+8:i+12]) == `ode"` {
			return fieldReturncode, i + 12
		}
	}
	switch w & keyMaskSeven {
	case keyStage:
		return fieldStage, i + 7
	case keyError:
		return fieldError, i + 7
	}
	return -1, 0
}

// scanNewName appends rawKey to the names of the object whose names start at
// seen[base], or returns false when it repeats one of them or there are too
// many to compare.
func (d *Decoder) scanNewName(rawKey []byte, base int) bool {
	names := d.seen[base:]
	if len(names) >= scanMaxNames {
		return false
	}
	for _, n := range names {
		if bytes.Equal(n, rawKey) {
			return false
		}
	}
	d.seen = append(d.seen, rawKey)
	return true
}

// kindOf is jsontext.Kind of a value starting with byte c.
func kindOf(c byte) byte {
	switch c {
	case '"', 'n', 't', 'f', '{', '[':
		return c
	}
	return '0'
}

// scanValue returns the index just past the JSON value starting at i, at
// nesting depth depth, or -1.
func (d *Decoder) scanValue(b []byte, i, depth int) int {
	if i == len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		if depth >= scanMaxDepth {
			return -1
		}
		return d.scanComposite(b, i, depth+1)
	case 't':
		return scanLiteral(b, i, "true")
	case 'f':
		return scanLiteral(b, i, "false")
	case 'n':
		return scanLiteral(b, i, "null")
	default:
		return scanNumber(b, i)
	}
}

// scanComposite returns the index just past the object or array starting at
// i, whose members are at depth depth, or -1.
func (d *Decoder) scanComposite(b []byte, i, depth int) int {
	obj := b[i] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	base := len(d.seen)
	defer func() { d.seen = d.seen[:base] }()
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1
	}
	for {
		if obj {
			if i == len(b) || b[i] != '"' {
				return -1
			}
			keyEnd, plain := scanString(b, i)
			if keyEnd < 0 || !plain || !d.scanNewName(b[i:keyEnd], base) {
				return -1
			}
			i = skipSpace(b, keyEnd)
			if i == len(b) || b[i] != ':' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
		end := d.scanValue(b, i, depth)
		if end < 0 {
			return -1
		}
		i = skipSpace(b, end)
		if i == len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case closer:
			return i + 1
		default:
			return -1
		}
	}
}

// scanLiteral returns the index past lit at b[i:], or -1.
func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the index past the JSON number (RFC 8259 section 6)
// starting at i, or -1. What follows it is the caller's to check.
func scanNumber(b []byte, i int) int {
	// One digit before a comma, a brace or a space, as most stages,
	// attempts and return codes are: a whole number by itself.
	if i+1 < len(b) && b[i]-'0' < 10 {
		if c := b[i+1]; c == ',' || c == '}' || c == ' ' {
			return i + 1
		}
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i == len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// digits returns the index of the first byte at or after i that is not an
// ASCII digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// stringSpecial flags the bytes of w that end a string's plain run: a
// quote, a backslash, a control character or a byte from 0x80 on. It is
// swarEqual twice, swarBelow and swarNonASCII in one expression, with
// one mask of the high bits at the end (the last two as the high bit of
// (w - 0x20 per byte) | w: a borrow can only follow a byte below 0x20).
// As with swar, the lowest flag is exact; TestStringSpecial holds it to a
// byte loop.
func stringSpecial(w uint64) uint64 {
	const ones = 0x0101010101010101
	q, bs := w^(ones*'"'), w^(ones*'\\')
	return ((w - ones*0x20) | w | (q-ones)&^q | (bs-ones)&^bs) & (ones * 0x80)
}

// scanString returns the index just past the string literal starting at i
// and whether it holds no escape, or -1 when the literal is not one jsontext
// accepts or the scanner does not vouch for it: a raw control character, an
// unknown escape, invalid UTF-8, no closing quote, or a \u escape of a UTF-16
// surrogate (which the scanner leaves to jsontext). It looks at eight bytes at
// a time for a byte that needs a closer look.
func scanString(b []byte, i int) (int, bool) {
	plain := true
	i++
	for {
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			m := stringSpecial(w)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8 // the lowest flag is always exact
			break
		}
		if i == len(b) {
			return -1, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain
		case c == '\\':
			plain = false
			if i+1 == len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return -1, false
				}
				r := 0
				for _, h := range b[i+2 : i+6] {
					switch {
					case h >= '0' && h <= '9':
						r = r<<4 | int(h-'0')
					case h >= 'a' && h <= 'f':
						r = r<<4 | int(h-'a'+10)
					case h >= 'A' && h <= 'F':
						r = r<<4 | int(h-'A'+10)
					default:
						return -1, false
					}
				}
				if r >= 0xd800 && r <= 0xdfff {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return -1, false
			}
			i += size
		default:
			i++ // only reached past the eight-byte loop, near the end
		}
	}
}
