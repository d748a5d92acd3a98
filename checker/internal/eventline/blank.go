package eventline

import (
	"sort"
	"unicode/utf8"
)

// The blank class: the characters a text that names a person or a piece of
// evidence may not be made only of. A value of only these characters is
// blank, as if absent (docs/contract.md, "Blank text"). It is one class for
// every identity and evidence field (resolved_by, approved_by, requested_by,
// reason, evidence_ref, attempt_id, error on failed, and any such field
// added later): the schemas spell it out once as $defs/nonBlank in
// schemas/event.schema.json (and the job log's attempt_id pattern), and the
// compiled fast path and the rules test it with HasNonSpace.
//
// It is the union of
//
//   - white space, IsSpaceRune: ECMA-262's \s (WhiteSpace and
//     LineTerminator), what JSON Schema's "\S" means;
//   - characters that render as nothing, IsInvisibleRune: controls (Cc),
//     format characters (Cf: U+00AD SOFT HYPHEN, U+200B..U+200F zero-width
//     and directional marks, U+2060..U+2064, the bidi controls, the tag
//     characters), variation selectors (U+180B..U+180F, U+FE00..U+FE0F,
//     U+E0100..U+E01EF), the other default-ignorable code points (U+034F
//     COMBINING GRAPHEME JOINER, the Hangul fillers U+115F, U+1160, U+3164,
//     U+FFA0, U+17B4, U+17B5, the unassigned U+2065, U+FFF0..U+FFF8 and
//     U+E0000..U+E0FFF), and U+2800 BRAILLE PATTERN BLANK, a symbol drawn as
//     an empty cell.
//
// The class is fixed here as ranges of code points (Unicode 15.0's Cc, Cf,
// Variation_Selector and Other_Default_Ignorable_Code_Point), not read from
// the unicode package at run time, so that a verdict does not change with
// the Go release that built greenlight; TestBlankClass fails when a newer
// Unicode adds a character to those categories, and then the table, the
// schemas and the docs are updated together.
var invisibleRanges = [...]struct{ lo, hi rune }{
	{0x0000, 0x0008}, {0x000e, 0x001f}, {0x007f, 0x009f}, {0x00ad, 0x00ad},
	{0x034f, 0x034f}, {0x0600, 0x0605}, {0x061c, 0x061c}, {0x06dd, 0x06dd},
	{0x070f, 0x070f}, {0x0890, 0x0891}, {0x08e2, 0x08e2}, {0x115f, 0x1160},
	{0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200f}, {0x202a, 0x202e},
	{0x2060, 0x206f}, {0x2800, 0x2800}, {0x3164, 0x3164}, {0xfe00, 0xfe0f},
	{0xffa0, 0xffa0}, {0xfff0, 0xfffb}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
	{0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
}

// HasNonSpace reports whether b (UTF-8) holds a character outside the blank
// class: one that is neither white space nor renders as nothing. A value
// for which it is false is blank, as if absent. It is the fast path's
// reading of $defs/nonBlank in schemas/event.schema.json, and the one
// test of blankness for every identity and evidence field.
func HasNonSpace(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c > ' ' && c != 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !IsBlankRune(r) {
			return true
		}
		i += size
	}
	return false
}

// IsBlankRune reports whether r is in the blank class: white space
// (IsSpaceRune) or a character that renders as nothing (IsInvisibleRune).
func IsBlankRune(r rune) bool {
	return IsSpaceRune(r) || IsInvisibleRune(r)
}

// IsSpaceRune reports whether r is one of ECMA-262's WhiteSpace and
// LineTerminator characters, JSON Schema's \s: U+0009..U+000D, U+0020,
// U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
// and U+FEFF. Go's regexp knows only the ASCII part as \s, so the schema
// spells the class out.
func IsSpaceRune(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r == ' ', r == 0x00a0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000, r == 0xfeff:
		return true
	}
	return false
}

// IsInvisibleRune reports whether r renders as nothing and is not white
// space: a control, a format character, a variation selector, another
// default-ignorable code point, or U+2800 (the table above).
func IsInvisibleRune(r rune) bool {
	i := sort.Search(len(invisibleRanges), func(i int) bool { return invisibleRanges[i].hi >= r })
	return i < len(invisibleRanges) && invisibleRanges[i].lo <= r
}
