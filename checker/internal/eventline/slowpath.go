package eventline

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/schemas"
)

// The bounds below keep the schema validator's work on one line small
// whatever the line holds (outside review): its exact arithmetic
// on a 900,000-digit number took a second, and its property-name check of
// 60,000 keys a quarter of one.

// MaxNumberChars is the longest a number in a contract field may be
// written, in characters (bytes: a JSON number is ASCII). No value in the
// event schema's ranges needs more (4294967295 has 10 digits), and a longer
// literal would cost the validator's exact arithmetic time that grows faster
// than the line. A longer one is a schema violation, refused before either
// check of the event schema runs, on every line: docs/contract.md.
const MaxNumberChars = 64

// maxFoldedKeys is how many keys equal to a contract field in another
// letter case the validator is shown; the message counts the rest.
const maxFoldedKeys = 8

// foldedKey is a key equal to a contract field's name in another letter
// case, unquoted, with its raw value (aliasing the line).
type foldedKey struct {
	name string
	raw  []byte
}

// longNumber finds a contract field whose value is a number written with
// more than MaxNumberChars characters, and returns its name and literal; ""
// when there is none. Most lines have no value that long (long), and no
// field is looked at.
func (d *Decoder) longNumber() (field, lit string) {
	if !d.long {
		return "", ""
	}
	for f := range d.raw {
		if d.kind[f] == '0' && len(d.raw[f]) > MaxNumberChars {
			return d.names[f], string(d.raw[f])
		}
	}
	return "", ""
}

// longNumberFault is the violation of a number over MaxNumberChars.
func longNumberFault(field, lit string) *Fault {
	return &Fault{FaultSchema, fmt.Sprintf("the event breaks the event contract: at /%s: a number in a contract field is written with at most %d characters, and this one has %d (%.24s…)", field, MaxNumberChars, len(lit), lit)}
}

// schemaInstance is what the schema validator checks for the line that
// syntax last read: the contract fields and the first maxFoldedKeys keys
// equal to a contract field in another letter case, each object or array
// value replaced by an empty one of its kind. The event schema constrains
// nothing else (any other key is allowed, with any value) and no contract
// field's schema looks inside an object or array (each asks a type, an enum,
// a const, a pattern or a format, which an object or array fails whatever
// it holds, with the same message), so the validator finds the same faults
// with the same messages as on the whole line (FuzzFastPathMatchesSchema
// checks it), at a cost bounded by the contract fields' scalar values.
//
// Two kinds of long string are shortened too, as the validator's regular
// expressions would otherwise read them at some 30 MB/s: a run_id over
// maxRunIDBytes becomes 257 characters with a control character exactly
// when it had one (its schema asks for at most 256 characters and no
// control character, and the message names neither the length nor the
// text), and a string over minShortened bytes in a field whose schema asks
// only a type and a "holds a character of this class" pattern (\S) becomes
// its distinct characters in order of first appearance, for such a pattern
// matches a string exactly when it matches that one.
func (d *Decoder) schemaInstance() map[string]any {
	inst := make(map[string]any, fieldCount+maxFoldedKeys)
	for f := range d.raw {
		if d.raw[f] == nil {
			continue
		}
		var v any
		if raw := d.raw[f]; raw[0] == '"' && (f == fieldRunID || classPatternField(f)) && len(raw) > minShortened {
			// Unquoted into the decoder's buffer: a long string is read
			// once, and not copied.
			d.strBuf = unquote(d.strBuf[:0], raw)
			switch {
			case f == fieldRunID && len(d.strBuf) > maxRunIDBytes:
				v = longRunID(d.strBuf)
			case f == fieldRunID:
				v = string(d.strBuf)
			default:
				v = distinctRunes(d.strBuf)
			}
		} else {
			v = shallowValue(raw)
		}
		inst[d.names[f]] = v
	}
	for _, k := range d.foldedKeys[:min(d.foldedCount, maxFoldedKeys)] {
		inst[k.name] = shallowValue(k.raw)
	}
	return inst
}

// maxRunIDBytes and minShortened are the lengths past which schemaInstance
// shortens a run_id or a string of a class-pattern field.
const (
	maxRunIDBytes = 1024
	minShortened  = 64
)

// classPatternField reports whether contract field f's schema asks of a
// string no more than its type and, in places, a pattern matching one
// character of a class (\S): shortening it to its distinct characters
// changes no answer of the validator's. TestClassPatternFields checks the
// list against schemas/event.schema.json.
func classPatternField(f int) bool {
	switch f {
	case fieldError, fieldOwner, fieldAttemptID, fieldErrorCode, fieldReason, fieldEvidenceRef, fieldResolvedBy, fieldApprovedBy, fieldRequestedBy,
		fieldStopConfirmedBy, fieldStopEvidenceRef, fieldAuditEventID, fieldAuditCompletedBy:
		return true
	}
	return false
}

// longRunID stands for a run_id longer than its schema allows: 257
// characters, the first a control character when s holds one (the class of
// the run_id pattern: U+0000-U+001F, U+007F-U+009F).
func longRunID(s []byte) string {
	first := "x"
	if hasControl(s) {
		first = "\x00"
	}
	return first + strings.Repeat("x", 256)
}

// hasControl tells whether the UTF-8 text s holds a control character
// (U+0000-U+001F, U+007F-U+009F), testing eight bytes at a time: a word
// with none of the bytes 0x00-0x1F, 0x7F or 0xC2 (U+0080-U+009F are 0xC2
// 0x80-0x9F) holds none, and only a word with one is looked at byte by
// byte.
func hasControl(s []byte) bool {
	control := func(i int) bool {
		c := s[i]
		return c < 0x20 || c == 0x7f || (c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f)
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		if swarBelow(w, 0x20)|swarEqual(w, 0x7f)|swarEqual(w, 0xc2) == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if control(j) {
				return true
			}
		}
	}
	for ; i < len(s); i++ {
		if control(i) {
			return true
		}
	}
	return false
}

// distinctRunes returns the distinct characters of s in the order they
// first appear.
func distinctRunes(s []byte) string {
	var ascii [utf8.RuneSelf]bool
	var other map[rune]bool
	var b strings.Builder
	// An ASCII word the same as the ASCII word before it holds no new
	// character: a hostile line of 1 MiB of one byte (blank-error) is
	// 131,072 comparisons, not a million characters.
	var prev uint64
	havePrev := false
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if w := binary.LittleEndian.Uint64(s[i:]); swarNonASCII(w) == 0 {
				if !havePrev || w != prev {
					for _, c := range s[i : i+8] {
						if !ascii[c] {
							ascii[c] = true
							b.WriteByte(c)
						}
					}
					prev, havePrev = w, true
				}
				i += 8
				continue
			}
		}
		havePrev = false
		r, n := utf8.DecodeRune(s[i:])
		i += n
		if r < utf8.RuneSelf {
			if ascii[r] {
				continue
			}
			ascii[r] = true
		} else {
			if other == nil {
				other = map[rune]bool{}
			}
			if other[r] {
				continue
			}
			other[r] = true
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shallowValue decodes one validated JSON value as schemas.Instance would
// (numbers as json.Number), except that an object or array becomes an empty
// one.
func shallowValue(raw []byte) any {
	switch raw[0] {
	case '{':
		return map[string]any{}
	case '[':
		return []any{}
	case '"':
		return string(unquote(nil, raw))
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(raw)
}

// maxOtherKeys is how many keys outside the contract a line's schema
// message may look at for a "did you mean".
const maxOtherKeys = 8

// schemaCheckLine validates the line that syntax last read with the JSON
// Schema validator, on schemaInstance, and returns its message when the
// event does not match; with more than maxFoldedKeys keys in another letter
// case, the message says how many more there are.
func (d *Decoder) schemaCheckLine(schema *schemas.Schema) (msg string, ok bool) {
	msg, ok = schemaCheckValue(schema, d.schemaInstance(), func(inst any) {
		// The keys outside the contract, for the message only: a
		// missing field's look-alike ("stauts" for "status").
		obj, _ := inst.(map[string]any)
		for _, k := range d.otherKeys {
			if name := string(unquote(nil, k)); obj != nil {
				if _, in := obj[name]; !in {
					obj[name] = nil
				}
			}
		}
	})
	if !ok && d.foldedCount > maxFoldedKeys {
		msg += fmt.Sprintf("; and %d more keys equal to a contract field in another letter case", d.foldedCount-maxFoldedKeys)
	}
	return msg, ok
}
