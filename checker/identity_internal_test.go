package checker

import (
	"testing"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// TestIdentityKey pins the key of the four-eyes comparison for each step:
// white space, invisible characters, normalization and case folding.
func TestIdentityKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ana@corp.example", "ana@corp.example"},
		{"  ANA@Corp.Example\u00a0", "ana@corp.example"},
		{"Ana \t\u3000 Lopez", "ana lopez"},
		{"\u2028ana\u2029", "ana"},
		{"jos\u00e9", "jose\u0301"},
		{"jose\u0301", "jose\u0301"},
		{"STRASSE", "strasse"},
		{"straße", "strasse"},
		{"ａｎａ", "ana"},
		{"\ufb01ona", "fiona"},
		{"\u212aim", "kim"},
		{"a\u200bn\u00ada\ufe0f\u0007", "ana"},
		{"\u0430na", "\u0430na"},
		{"", ""},
		{" \u200b\ufeff ", ""},
	}
	for _, tc := range cases {
		if got := identityKey(tc.in); got != tc.want {
			t.Errorf("identityKey(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

// TestBlankIdentity: a text is blank (eventline's HasNonSpace is false:
// white space and characters that render as nothing) exactly when it names
// nobody: its identity key is empty, so a blank approver is no approver
// (resolution_without_approval). Every code point is tried alone, and all
// the blank ones together.
func TestBlankIdentity(t *testing.T) {
	var all []rune
	for r := rune(0); r <= 0x10ffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		blank := eventline.IsBlankRune(r)
		if blank {
			all = append(all, r)
		}
		if k := identityKey(string(r)); (k == "") != blank {
			t.Errorf("identityKey(%+q) = %+q, but IsBlankRune is %v", string(r), k, blank)
		}
	}
	if len(all) != 25+4266 {
		t.Errorf("%d blank characters, want %d (25 white space, 4266 that render as nothing)", len(all), 25+4266)
	}
	if s := string(all); eventline.HasNonSpace([]byte(s)) || identityKey(s) != "" {
		t.Errorf("all blank characters: HasNonSpace %v, identityKey %+q", eventline.HasNonSpace([]byte(s)), identityKey(s))
	}
}
