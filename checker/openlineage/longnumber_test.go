package openlineage

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestLongNumber: a number over checker.MaxNumberChars characters in a
// member the reader keeps is a schema violation found before the schema
// validator, whatever its value, as in a native event (docs/openlineage.md,
// docs/contract.md); a number outside the kept members is not read at all.
func TestLongNumber(t *testing.T) {
	event := func(try, extra string) string {
		return `{"eventType":"START","eventTime":"2026-01-01T10:00:00Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000001","facets":{"airflow":{"taskInstance":{"try_number":` + try + `}}}},"job":{"namespace":"n","name":"j"}` + extra + `}` + "\n"
	}
	cases := []struct{ name, log, want string }{
		{"900,000 digits", event(strings.Repeat("9", 900_000), ""),
			"the event breaks the event contract: at /run/facets/airflow/taskInstance/try_number: a number in a field greenlight reads is written with at most 64 characters, and this one has 900000 (999999999999999999999999…)"},
		{"the integer 1 in 65 characters", event("1."+strings.Repeat("0", 63), ""),
			"the event breaks the event contract: at /run/facets/airflow/taskInstance/try_number: a number in a field greenlight reads is written with at most 64 characters, and this one has 65 (1.0000000000000000000000…)"},
		{"64 characters", event("1."+strings.Repeat("0", 62), ""), ""},
		{"a long number outside the kept members", event("1", `,"size":`+strings.Repeat("5", 100)), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(strings.NewReader(tc.log), checker.Options{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), File: "x.jsonl", MaxLineBytes: 2 << 20})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(res.Report.Violations) > 0 {
				v := res.Report.Violations[0]
				got = v.Message
				if v.Rule != checker.RuleSchema {
					t.Errorf("rule %s, want schema", v.Rule)
				}
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
