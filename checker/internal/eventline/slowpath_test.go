package eventline

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/schemas"
)

// TestLineBounds: a number in a contract field longer than MaxNumberChars
// is refused before either check of the event schema, whether or not its
// value is in range, and the validator is shown at most maxFoldedKeys keys
// in another letter case, the message counting the rest (outside
// review).
func TestLineBounds(t *testing.T) {
	const head = `{"run_id":"r-1","stage":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"`
	one64 := "1." + strings.Repeat("0", MaxNumberChars-2) // the integer 1, in 64 characters
	var folded strings.Builder
	for _, k := range []string{"Owner", "OWNER", "oWner", "owNer", "ownEr", "owneR", "OWner", "oWNer", "owNEr", "ownER"} {
		folded.WriteString(`,"` + k + `":1`)
	}
	cases := []struct {
		name, line, want string
	}{
		{"64 characters", head + `,"attempt":` + one64 + `}`, ""},
		{"65 characters, the integer 1", head + `,"attempt":` + one64 + `0}`,
			"the event breaks the event contract: at /attempt: a number in a contract field is written with at most 64 characters, and this one has 65 (1.0000000000000000000000…)"},
		{"900,000 digits", head + `,"attempt":` + strings.Repeat("9", 900_000) + `}`,
			"the event breaks the event contract: at /attempt: a number in a contract field is written with at most 64 characters, and this one has 900000 (999999999999999999999999…)"},
		{"a long returncode", head + `,"attempt":1,"returncode":-` + strings.Repeat("1", 70) + `}`,
			"the event breaks the event contract: at /returncode: a number in a contract field is written with at most 64 characters, and this one has 71 (-11111111111111111111111…)"},
		{"a long number in a string field", `{"run_id":` + strings.Repeat("7", 80) + `,"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}`,
			"the event breaks the event contract: at /run_id: a number in a contract field is written with at most 64 characters, and this one has 80 (777777777777777777777777…)"},
		{"a long number outside the contract", head + `,"attempt":1,"size":` + strings.Repeat("5", 100) + `}`, ""},
		{"65 characters, read by jsontext (a name with an escape)", head + `,"attempt":` + one64 + `0,"x\u0079":1}`,
			"the event breaks the event contract: at /attempt: a number in a contract field is written with at most 64 characters, and this one has 65 (1.0000000000000000000000…)"},
		{"a long string and a long number", head + `,"attempt":1,"error":"` + strings.Repeat("e", 90) + `","returncode":` + strings.Repeat("2", 65) + `}`,
			"the event breaks the event contract: at /returncode: a number in a contract field is written with at most 64 characters, and this one has 65 (222222222222222222222222…)"},
		{"ten keys in another letter case", head + `,"attempt":1` + folded.String() + `}`,
			`the event does not match event.schema.json: ` + foldedParts() + `; and 2 more keys equal to a contract field in another letter case`},
	}
	lazy := &Schema{}
	dec := NewDecoder()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out Decoded
			dec.Decode(&out, 1, []byte(tc.line), lazy, &Config{})
			got := ""
			if out.Fault != nil {
				got = out.Fault.Msg
				if out.Fault.Kind != FaultSchema {
					t.Errorf("rule %s, want schema", out.Fault.Kind)
				}
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// foldedParts is the message for the first eight keys of TestLineBounds'
// folded case, sorted as SchemaErrorText sorts them: each names the one
// field it shadows.
func foldedParts() string {
	keys := []string{"OWNER", "OWner", "Owner", "oWNer", "oWner", "owNer", "ownEr", "owneR"}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "at /" + k + `: "` + k + `" differs from the contract field "owner" only in case and would shadow it: write "owner"`
	}
	return strings.Join(parts, "; ")
}

// TestClassPatternFields: every field schemaInstance shortens to its
// distinct characters asks, in schemas/event.schema.json, for no more of a
// string than a type and patterns that match one character of a class.
func TestClassPatternFields(t *testing.T) {
	src, err := schemas.Source("event")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs       map[string]map[string]any `json:"$defs"`
		Properties map[string]map[string]any
		AllOf      []struct {
			Then struct {
				// any: a run-level status's then has false schemas
				// (stage, attempt), which are no class-pattern field's.
				Properties map[string]any
			}
		}
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	class := regexp.MustCompile(`^(\\S|\[[^\]]*\])$`)
	names := contractFieldNames()
	for f, name := range names {
		if !classPatternField(f) {
			continue
		}
		schemasOf := []map[string]any{doc.Properties[name]}
		for _, a := range doc.AllOf {
			if p, ok := a.Then.Properties[name]; ok {
				sch, isObj := p.(map[string]any)
				if !isObj {
					t.Errorf("%s: a schema of a class-pattern field is %v, not an object", name, p)
					continue
				}
				schemasOf = append(schemasOf, sch)
			}
		}
		for len(schemasOf) > 0 {
			sch := schemasOf[0]
			schemasOf = schemasOf[1:]
			for k, v := range sch {
				switch k {
				case "description", "type":
				case "$ref":
					// A reference to one of the schema's own $defs
					// (nonBlank) is held to the same test.
					def, ok := doc.Defs[strings.TrimPrefix(v.(string), "#/$defs/")]
					if !ok || !strings.HasPrefix(v.(string), "#/$defs/") {
						t.Errorf("%s: $ref %q is not one of the schema's $defs", name, v)
						continue
					}
					schemasOf = append(schemasOf, def)
				case "pattern":
					if !class.MatchString(v.(string)) {
						t.Errorf("%s: pattern %q matches more than one character of a class", name, v)
					}
				default:
					t.Errorf("%s: keyword %q: schemaInstance may not shorten this field", name, k)
				}
			}
		}
	}
}

// TestHostileLinesMessages: on the 1 MiB lines of BenchmarkHostileLine
// that the validator judges, what Check reports is what the validator says
// of the whole line (the ones of many keys at the top level are left out:
// the whole-line validation of those is what took seconds).
func TestHostileLinesMessages(t *testing.T) {
	schema, err := (&Schema{}).Get()
	if err != nil {
		t.Fatal(err)
	}
	lazy := &Schema{}
	dec := NewDecoder()
	for _, tc := range hostileLines() {
		switch tc.name {
		case "hostile/blank-error", "hostile/long-run-id", "hostile/many-keys-in-stage":
		default:
			continue
		}
		var out Decoded
		dec.Decode(&out, 1, []byte(tc.line), lazy, &Config{})
		want, ok := schemaCheck(schema, []byte(tc.line))
		if ok || out.Fault == nil {
			t.Fatalf("%s: accepted (%v, %v)", tc.name, ok, out.Fault)
		}
		if out.Fault.Msg != want {
			t.Errorf("%s:\n%s\nwhole line:\n%s", tc.name, out.Fault.Msg, want)
		}
	}
}

// TestHasControl: the word-at-a-time test for a control character agrees
// with the character-by-character one at every position of every kind of
// byte the words test (the three that are no control character too: a
// 0xC2 before a byte outside 0x80-0x9F, and at the end), in texts of every
// length around a word.
func TestHasControl(t *testing.T) {
	naive := func(s []byte) bool {
		for _, r := range string(s) {
			if r < 0x20 || r >= 0x7f && r <= 0x9f {
				return true
			}
		}
		return false
	}
	bytesAt := []string{"\x00", "\x1f", "\x7f", "\u0080", "\u009f", "\u00a0", "\u00bf", "\xc2", "\xc2A", " ", "~", "é"}
	for n := 0; n <= 19; n++ {
		for at := 0; at <= n; at++ {
			for _, b := range bytesAt {
				s := []byte(strings.Repeat("x", at) + b + strings.Repeat("y", n-at))
				if got, want := hasControl(s), naive(s); got != want {
					t.Fatalf("hasControl(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
	if hasControl(nil) {
		t.Fatal("hasControl(nil) = true")
	}
}

// TestDistinctRunes: the distinct characters in the order they first
// appear, as a character-by-character walk finds them, for texts whose
// words repeat (the skip of a word equal to the one before) or change,
// with multi-byte and invalid UTF-8 across word boundaries.
func TestDistinctRunes(t *testing.T) {
	naive := func(s []byte) string {
		seen := map[rune]bool{}
		var b strings.Builder
		for _, r := range string(s) {
			if !seen[r] {
				seen[r] = true
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	parts := []string{"        ", "aaaaaaaa", "abcdefgh", "é", "\u2028", "\xff", "\xc2", " ", "x", "01234567", "\U0001F600"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := []byte(b.String())
		if got, want := distinctRunes(s), naive(s); got != want {
			t.Fatalf("distinctRunes(%q) = %q, want %q", s, got, want)
		}
	}
	if got := distinctRunes([]byte(strings.Repeat(" ", 1<<20) + "x")); got != " x" {
		t.Fatalf("distinctRunes of 1 MiB of spaces and an x = %q", got)
	}
}
