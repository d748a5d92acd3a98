package checker_test

import (
	"testing"

	"github.com/greenlight-ci/greenlight/schemas"
)

// validateDoc asserts that a document greenlight wrote (a snapshot or a
// violations report, told apart by schema_version) matches its schema.
func validateDoc(t *testing.T, doc []byte) {
	t.Helper()
	inst, err := schemas.Instance(doc)
	if err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	m, _ := inst.(map[string]any)
	var name string
	switch m["schema_version"] {
	case "greenlight.snapshot/v3":
		name = "snapshot"
	case "greenlight.violations/v1":
		name = "violations"
	default:
		t.Fatalf("unknown schema_version %v", m["schema_version"])
	}
	s, err := schemas.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("output does not match %s.schema.json: %v\n%s", name, err, doc)
	}
}
