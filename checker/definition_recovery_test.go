package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestDefinitionRecoveryFields reads the pipeline v2 fields and their
// defaults, and shows that what pipeline.schema.json refuses is refused.
func TestDefinitionRecoveryFields(t *testing.T) {
	cases := []struct {
		yaml string
		want string // "idempotent per stage, stale per stage, margin, threshold, enforce" or the error's start
	}{
		{"stages: [{id: 1}, {id: 2}]", "[true true] [<nil> <nil>] 60 3 true"},
		{"lease_margin_seconds: 0\nretry_brake: {threshold: 1, enforce: true}\nstages: [{id: 1, idempotent: false, stale_after_seconds: 30}, {id: 2}]", "[false true] [30 <nil>] 0 1 true"},
		{"retry_brake: {}\nstages: [{id: 1}]", "[true] [<nil>] 60 3 true"},
		{"retry_brake: {enforce: false}\nstages: [{id: 1}]", "[true] [<nil>] 60 3 false"},
		{"stages: [{id: 1, idempotent: \"no\"}]", "error: the pipeline definition does not match pipeline.schema.json"},
		{"lease_margin_seconds: -1\nstages: [{id: 1}]", "error: the pipeline definition does not match pipeline.schema.json"},
		{"retry_brake: {threshold: 0}\nstages: [{id: 1}]", "error: the pipeline definition does not match pipeline.schema.json"},
		{"retry_brake: {limit: 2}\nstages: [{id: 1}]", "error: the pipeline definition does not match pipeline.schema.json"},
		{"stages: [{id: 1, stale_after_seconds: 0}]", "error: the pipeline definition does not match pipeline.schema.json"},
	}
	for _, tc := range cases {
		def, err := checker.ParseDefinition([]byte(tc.yaml))
		var got string
		if err != nil {
			got = "error: " + err.Error()
		} else {
			var idem []bool
			var stale []string
			for _, s := range def.Stages {
				idem = append(idem, s.Idempotent)
				if s.StaleAfterSeconds == nil {
					stale = append(stale, "<nil>")
				} else {
					stale = append(stale, fmt.Sprint(*s.StaleAfterSeconds))
				}
			}
			got = fmt.Sprintf("%v %v %d %d %v", idem, stale, def.LeaseMarginSeconds, def.RetryBrake.Threshold, def.RetryBrake.Enforce)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: got %s, want %s", tc.yaml, got, tc.want)
		}
	}
}
