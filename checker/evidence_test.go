package checker_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// q writes s as a JSON string.
func q(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkBoth checks log on the fast path and on the schema-every-event path,
// and returns the violations as "line:rule" once both paths agree.
func checkBoth(t *testing.T, log []string) string {
	t.Helper()
	var first string
	for _, every := range []bool{false, true} {
		res := runCheck(t, lines(log...), func(o *checker.Options) { o.Definition = recoveryDefinition(t); o.SchemaEveryEvent = every })
		got := ""
		for _, v := range res.Report.Violations {
			got += fmt.Sprintf("%d:%s ", v.Line, v.Rule)
		}
		if every && got != first {
			t.Fatalf("fast path %q, schema every event %q", first, got)
		}
		first = got
	}
	return first
}

// TestBlankEvidence: a text made only of Unicode white space (ECMA-262's
// \s, what the schema's "not blank" means) counts as missing, on the fast
// path and in the schema alike (outside review of main, issue 12: a
// no-break space, U+3000, U+2028 or a vertical tab counted as given).
// Characters that are not white space there count as given.
func TestBlankEvidence(t *testing.T) {
	s1 := rev("extract", 1, "started", 0)
	unk1 := rev("extract", 1, "unknown", 1, reason)
	loadUnknown := append(extractOK(), rev("load", 1, "started", 2), rev("load", 1, "unknown", 3, reason))
	fields := []struct {
		field string
		log   func(text string) []string
		rule  string // "line:rule" when text is blank
	}{
		{"reason of unknown", func(s string) []string { return []string{s1, rev("extract", 1, "unknown", 1, `"reason":`+q(s))} }, "2:schema "},
		{"reason of resolved", func(s string) []string {
			return []string{s1, unk1, rev("extract", 1, "resolved", 2, `"resolution":"failed"`, `"reason":`+q(s), `"resolved_by":"ana"`, evidence)}
		}, "3:schema "},
		{"resolved_by", func(s string) []string {
			return []string{s1, unk1, rev("extract", 1, "resolved", 2, `"resolution":"failed"`, `"reason":"r"`, `"resolved_by":`+q(s), evidence)}
		}, "3:schema "},
		{"evidence_ref", func(s string) []string {
			return []string{s1, unk1, resolvedEv("extract", 1, 2, "failed", `"evidence_ref":`+q(s))}
		}, "3:resolution_without_evidence "},
		{"approved_by", func(s string) []string {
			return append(append([]string{}, loadUnknown...), resolvedEv("load", 1, 4, "succeeded", evidence, manual, `"approved_by":`+q(s)))
		}, "5:resolution_without_approval "},
		{"error of failed", func(s string) []string { return []string{s1, rev("extract", 1, "failed", 1, `"error":`+q(s))} }, "2:schema "},
		{"attempt_id", func(s string) []string { return []string{rev("extract", 1, "started", 0, `"attempt_id":`+q(s))} }, "1:schema "},
	}
	// The review's examples and a mix; TestBlankClass covers every code
	// point of the class, and the differential fuzz seeds every field.
	blank := []string{"\u000b", "\u00a0", "\u2028", "\u3000", "\ufeff", " \u00a0\t\u3000\r\n"}
	// Not white space in ECMA-262: NEL (which Go's unicode.IsSpace counts),
	// the zero-width space and the Mongolian vowel separator (white space
	// until Unicode 6.3).
	given := []string{"\u0085", "\u200b", "\u180e", "x\u3000"}
	for _, f := range fields {
		for _, s := range blank {
			t.Run(fmt.Sprintf("%s/%+q is blank", f.field, s), func(t *testing.T) {
				if got := checkBoth(t, f.log(s)); got != f.rule {
					t.Fatalf("violations %q, want %q", got, f.rule)
				}
			})
		}
		for _, s := range given {
			want := ""
			t.Run(fmt.Sprintf("%s/%+q is given", f.field, s), func(t *testing.T) {
				if got := checkBoth(t, f.log(s)); got != want {
					t.Fatalf("violations %q, want %q", got, want)
				}
			})
		}
	}
}
