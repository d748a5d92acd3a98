package checker_test

import (
	"os"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestRecoveryDocsListEveryRule keeps docs/recovery.md in step with the rule
// table: every rule after the core ones has a row there.
func TestRecoveryDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	recovery := false
	for _, r := range checker.Rules() {
		if r.ID == checker.RuleDuplicateAttemptID {
			recovery = true
		}
		if recovery && !strings.Contains(string(doc), "| `"+string(r.ID)+"` |") {
			t.Errorf("docs/recovery.md has no row for rule %s", r.ID)
		}
	}
	if !recovery {
		t.Fatal("the rule table has no recovery rules")
	}
}
