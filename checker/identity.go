package checker

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// identityKey is the form in which the four-eyes rules compare the people a
// log names (resolved_by, approved_by, requested_by): two spellings are the
// same person when their keys are equal (docs/recovery.md, "Identities";
// outside review of main). The key is
//
//   - white space (eventline.HasNonSpace's class, ECMA-262's \s) trimmed at both ends
//     and each run of it inside made one space;
//   - characters that show nothing removed: controls (Cc), format characters
//     (Cf: U+200B ZERO WIDTH SPACE, U+00AD SOFT HYPHEN, the bidi controls),
//     variation selectors and the other default-ignorable code points;
//   - Unicode compatibility caseless matching (The Unicode Standard §3.13,
//     D146: NFKD, full case folding, NFKD, case folding, NFKD), with
//     golang.org/x/text's norm and cases.Fold. It includes canonical caseless
//     matching, the NFC-and-case-folding comparison the review asked for, and
//     also makes fullwidth letters and ligatures the letters they stand for.
//
// It is total: every string has a key, and "" means the text names nobody.
// Look-alikes of other scripts (Cyrillic а for Latin a) are not folded; that
// needs the confusables data of UTS #39, which x/text does not carry.
// PRECIS (x/text/secure/precis) was not used: its profiles refuse spaces or
// some characters with an error, and a comparison that can fail would have
// to choose a side.
func identityKey(s string) string {
	visible := strings.Map(func(r rune) rune {
		switch {
		case eventline.IsBlankRune(r):
			return ' '
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point):
			return -1
		}
		return r
	}, norm.NFD.String(s))
	fold := cases.Fold()
	k := norm.NFKD.String(fold.String(norm.NFKD.String(fold.String(visible))))
	return strings.Join(strings.FieldsFunc(k, eventline.IsBlankRune), " ")
}

// identity is one person named by the log: as spelled, its identityKey and
// the line that names it.
type identity struct {
	name string
	key  string
	line int
}

// people is a set of the identities one run names (its requesters, or its
// approvers). Most runs name one or two, kept in a short list; past
// peopleListMax the list is indexed by maps, so that a log that spells a new
// name on every event costs no square of its length.
type people struct {
	list    []identity
	spelled map[string]bool
	keys    map[string]int // key -> index in list of its first identity
}

const peopleListMax = 8

// spelledBefore reports whether name, spelled exactly so, is in the set.
func (p *people) spelledBefore(name string) bool {
	if p.spelled != nil {
		return p.spelled[name]
	}
	for _, id := range p.list {
		if id.name == name {
			return true
		}
	}
	return false
}

// byKey returns the first identity with the key; a key "" names nobody and
// matches none.
func (p *people) byKey(key string) (identity, bool) {
	if key == "" {
		return identity{}, false
	}
	if p.keys != nil {
		i, ok := p.keys[key]
		if !ok {
			return identity{}, false
		}
		return p.list[i], true
	}
	for _, id := range p.list {
		if id.key == key {
			return id, true
		}
	}
	return identity{}, false
}

// add puts an identity in the set unless its spelling is there already.
func (p *people) add(id identity) {
	if p.spelledBefore(id.name) {
		return
	}
	p.list = append(p.list, id)
	if p.spelled == nil && len(p.list) > peopleListMax {
		p.spelled, p.keys = make(map[string]bool, len(p.list)), make(map[string]int, len(p.list))
		for i, x := range p.list[:len(p.list)-1] {
			p.index(i, x)
		}
	}
	if p.spelled != nil {
		p.index(len(p.list)-1, id)
	}
}

func (p *people) index(i int, id identity) {
	p.spelled[id.name] = true
	if _, ok := p.keys[id.key]; !ok && id.key != "" {
		p.keys[id.key] = i
	}
}
