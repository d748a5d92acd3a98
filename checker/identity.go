package checker

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// identityKey is the form in which the four-eyes rules compare the people a
// log names (resolved_by, approved_by, requested_by): two spellings are the
// same person when their keys are equal (docs/recovery.md, "Identities";
// outside review of main). The key is
//
//   - white space (eventline.IsSpaceRune, ECMA-262's \s) trimmed at both
//     ends and each run of it inside made one space;
//   - characters that render as nothing removed (eventline.IsInvisibleRune:
//     controls (Cc), format characters (Cf: U+200B ZERO WIDTH SPACE, U+00AD
//     SOFT HYPHEN, the bidi controls), variation selectors, the other
//     default-ignorable code points and U+2800 BRAILLE PATTERN BLANK);
//   - Unicode compatibility caseless matching (The Unicode Standard §3.13,
//     D146: NFKD, full case folding, NFKD, case folding, NFKD), with
//     golang.org/x/text's norm and cases.Fold. It includes canonical caseless
//     matching, the NFC-and-case-folding comparison the review asked for, and
//     also makes fullwidth letters and ligatures the letters they stand for.
//
// It is total: every string has a key, and "" means the text names nobody,
// exactly when eventline.HasNonSpace is false (the blank class).
// Look-alikes of other scripts (Cyrillic а for Latin a) are not folded; that
// needs the confusables data of UTS #39, which x/text does not carry.
// PRECIS (x/text/secure/precis) was not used: its profiles refuse spaces or
// some characters with an error, and a comparison that can fail would have
// to choose a side.
func identityKey(s string) string {
	visible := strings.Map(func(r rune) rune {
		switch {
		case eventline.IsSpaceRune(r):
			return ' '
		case eventline.IsInvisibleRune(r):
			return -1
		}
		return r
	}, norm.NFD.String(s))
	fold := cases.Fold()
	k := norm.NFKD.String(fold.String(norm.NFKD.String(fold.String(visible))))
	return strings.Join(strings.FieldsFunc(k, eventline.IsBlankRune), " ")
}
