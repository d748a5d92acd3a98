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

// TestBlankIdentity: a text the event schema calls blank (eventline's
// HasNonSpace) names nobody: its identity key is empty, so a blank approver
// is no approver (resolution_without_approval). Each blank character of
// ECMA-262's WhiteSpace and LineTerminator is tried alone and all of them
// together.
func TestBlankIdentity(t *testing.T) {
	var all []rune
	for r := rune(0); r <= 0x10ffff; r++ {
		if eventline.IsBlankRune(r) {
			all = append(all, r)
			if k := identityKey(string(r)); k != "" {
				t.Errorf("identityKey(%+q) = %+q, want \"\"", string(r), k)
			}
		}
	}
	if len(all) != 25 {
		t.Errorf("%d blank characters, want 25", len(all))
	}
	if s := string(all); eventline.HasNonSpace([]byte(s)) || identityKey(s) != "" {
		t.Errorf("all blank characters: HasNonSpace %v, identityKey %+q", eventline.HasNonSpace([]byte(s)), identityKey(s))
	}
}
