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

// TestRecoveryDocsOrderOfWork: the example of docs/recovery.md's section
// "The runbook's order of work" is what greenlight prints for
// testdata/recovery/live_lease.jsonl (its golden text).
func TestRecoveryDocsOrderOfWork(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../testdata/recovery/live_lease.golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## 10. The runbook's order of work")
	if !ok {
		t.Fatal("docs/recovery.md has no section 10")
	}
	_, block, ok := strings.Cut(section, "```\nrecovery:\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 || !strings.Contains(string(golden), "recovery:\n"+block) {
		t.Errorf("the example of docs/recovery.md section 10 is not in live_lease.golden.txt:\n%s", block)
	}
}

// TestRecoveryDocsClose: the example of docs/recovery.md's section "The
// run's close" is what greenlight prints for testdata/recovery/close.jsonl
// (its golden text).
func TestRecoveryDocsClose(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../testdata/recovery/close.golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## 11. The run's close")
	if !ok {
		t.Fatal("docs/recovery.md has no section 11")
	}
	_, block, ok := strings.Cut(section, "```\n  finish_close")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 || !strings.Contains(string(golden), "  finish_close"+block) {
		t.Errorf("the example of docs/recovery.md section 11 is not in close.golden.txt:\n%s", block)
	}
}
