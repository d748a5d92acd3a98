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

// TestFourEyesIdentity: the four-eyes rules compare people after white
// space, invisible characters, Unicode normalization and letter case are
// taken out, and count every requested_by of the run (outside review of
// main: "ANA@corp.example" or "ana " approved ana@corp.example's
// own resolution).
func TestFourEyesIdentity(t *testing.T) {
	// load is not idempotent: its success resolution needs a second person.
	head := func(requesters ...string) []string {
		l := append(extractOK(), rev("load", 1, "started", 2, `"requested_by":"bo"`))
		for i, r := range requesters {
			l = append(l, rev("load", 1, "heartbeat", 3+i, `"requested_by":`+q(r)))
		}
		return append(l, rev("load", 1, "unknown", 40, reason))
	}
	resolve := func(by, approver string, extra ...string) string {
		return rev("load", 1, "resolved", 41, append([]string{`"resolution":"succeeded"`, `"reason":"checked the row counts"`, `"resolved_by":` + q(by), `"approved_by":` + q(approver), evidence, manual}, extra...)...)
	}
	self := "5:self_approved_resolution "
	cases := []struct {
		name string
		log  []string
		want string
	}{
		{"a second person approves", append(head(), resolve("ana@corp.example", "cy@corp.example")), ""},
		{"same spelling", append(head(), resolve("ana@corp.example", "ana@corp.example")), self},
		{"letter case", append(head(), resolve("ana@corp.example", "ANA@corp.example")), self},
		{"a trailing space", append(head(), resolve("ana", "ana ")), self},
		{"Unicode white space around", append(head(), resolve("ana", "\u00a0ana\u3000")), self},
		{"NFC and NFD", append(head(), resolve("jos\u00e9", "jose\u0301")), self},
		{"full case folding (ß, SS)", append(head(), resolve("straße", "STRASSE")), self},
		{"the Kelvin sign is K", append(head(), resolve("kim", "\u212aim")), self},
		{"fullwidth letters", append(head(), resolve("ana", "ａｎａ")), self},
		{"a ligature", append(head(), resolve("fiona", "\ufb01ona")), self},
		{"a zero-width space inside", append(head(), resolve("ana", "a\u200bna")), self},
		{"a soft hyphen inside", append(head(), resolve("ana", "a\u00adna")), self},
		{"a bidi mark", append(head(), resolve("ana", "\u200eana")), self},
		{"runs of white space inside are one", append(head(), resolve("ana lopez", "Ana \t Lopez")), self},
		{"words stay apart", append(head(), resolve("ana lopez", "analopez")), ""},
		{"another name", append(head(), resolve("ana", "anna")), ""},
		// Look-alikes of another script are not folded (docs/recovery.md).
		{"Cyrillic a is another letter", append(head(), resolve("ana", "\u0430na")), ""},
		{"approved by the requester in another spelling", append(head(), resolve("ana", " BO")), self},
		{"approved by a later requester", append(head("cy"), resolve("ana", "Cy")), self},
		{"approved by the twelfth of twelve requesters", append(head("p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11"), resolve("ana", "P11")), self},
		{"approved by the requester of the same event", append(head(), resolve("ana", "dee", `"requested_by":"DEE"`)), self},
		{"requester named after the approval, in another spelling", append(append(head(), resolve("ana", "cy")), rev("publish", 1, "started", 42, `"requested_by":"CY "`)), "6:self_approved_resolution "},
		{"an approver of invisible characters names nobody", append(head(), resolve("ana", "\u200b\u2060")), "5:resolution_without_approval "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkBoth(t, tc.log)
			want := tc.want
			if want == self {
				want = fmt.Sprintf("%d:self_approved_resolution ", len(tc.log))
			}
			if got != want {
				t.Fatalf("violations %q, want %q", got, want)
			}
		})
	}
}

// TestBlankEvidence: a text made only of the blank class (ECMA-262's white
// space \s, and characters that render as nothing: Cc, Cf, variation
// selectors, the other default-ignorable code points, U+2800) counts as
// missing, on the fast path and in the schema alike (outside reviews of
// main: a no-break space, U+3000, U+2028 or a vertical tab counted as given;
// then a lone U+200B). A text with any other character counts as given.
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
	// The reviews' examples and a mix; TestBlankClass covers every code
	// point of the class, and the differential fuzz seeds every field.
	blank := []string{"\u000b", "\u00a0", "\u2028", "\u3000", "\ufeff", " \u00a0\t\u3000\r\n",
		"\u0085", "\u200b", "\u180e", "\u00ad", "\u2060", "\ufe0f", "\u034f", "\u3164", "\u2800", "\U000e0041", "\u200b\u00a0\u200d"}
	// Visible: one character outside the class is enough.
	given := []string{"x\u3000", "\u200bx", "\u3163", "\u0301"}
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

// TestInvisibleResolver: an unknown attempt of a non-idempotent stage
// resolved succeeded with reason, evidence_ref and resolved_by each a lone
// U+200B (zero-width space), approved by bob, is no resolution: the
// resolver names nobody, so the four-eyes check would compare bob with no
// one (outside review). Each field alone blank is refused by its own rule.
func TestInvisibleResolver(t *testing.T) {
	zw := q("\u200b")
	head := append(extractOK(), rev("load", 1, "started", 2), rev("load", 1, "unknown", 3, reason))
	cases := []struct {
		name  string
		extra []string
		want  string
	}{
		{"all three a zero-width space", []string{`"reason":` + zw, `"resolved_by":` + zw, `"evidence_ref":` + zw}, "5:schema "},
		{"the resolver", []string{`"reason":"checked the row counts"`, `"resolved_by":` + zw, evidence}, "5:schema "},
		{"the reason", []string{`"reason":` + zw, `"resolved_by":"ana"`, evidence}, "5:schema "},
		{"the evidence", []string{`"reason":"checked the row counts"`, `"resolved_by":"ana"`, `"evidence_ref":` + zw}, "5:resolution_without_evidence "},
		{"none", []string{`"reason":"checked the row counts"`, `"resolved_by":"ana"`, evidence}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := rev("load", 1, "resolved", 4, append([]string{`"resolution":"succeeded"`, `"approved_by":"bob"`, manual}, tc.extra...)...)
			if got := checkBoth(t, append(append([]string{}, head...), ev)); got != tc.want {
				t.Fatalf("violations %q, want %q", got, tc.want)
			}
		})
	}
}
