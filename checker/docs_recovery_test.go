package checker_test

import (
	"os"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestRecoveryDocsListEveryRule keeps docs/recovery.md in step with the rule
// table: every rule that is neither a reading rule nor one of the core
// contract's (the list of docs/contract.md, "Checked in file order") has a
// row in its table of rules.
func TestRecoveryDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	contract, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(contract), "\nChecked in file order, per run; see [rules.md](rules.md) for each: ")
	list, _, ok2 := strings.Cut(list, "\n")
	if !ok || !ok2 {
		t.Fatal("docs/contract.md has no list of the core rules")
	}
	core := map[checker.RuleID]bool{}
	for _, r := range checker.Rules() {
		if strings.Contains(list, "`"+string(r.ID)+"`") {
			core[r.ID] = true
		}
	}
	if !core[checker.RuleDuplicateTerminal] || core[checker.RuleRetryPastBrake] {
		t.Fatalf("the core rules read from docs/contract.md are wrong: %v", core)
	}
	recovery := 0
	for _, r := range checker.Rules() {
		if r.Family == "reading" || core[r.ID] {
			continue
		}
		recovery++
		if !strings.Contains(string(doc), "| `"+string(r.ID)+"` |") {
			t.Errorf("docs/recovery.md has no row for rule %s", r.ID)
		}
	}
	if recovery == 0 {
		t.Fatal("the rule table has no recovery rules")
	}
}

// TestRecoveryDocsRunbookSections: each section of docs/recovery.md for a
// part of the runbook says which of the runbook's steps it models, and names
// its log in testdata/recovery, which exists with its goldens.
func TestRecoveryDocsRunbookSections(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ heading, log string }{
		{"## 7. Who may end an attempt", "takeover.jsonl"},
		{"## 7. Who may end an attempt", "takeover_refused.jsonl"},
		{"## 7. Who may end an attempt", "heartbeat_advanced.jsonl"},
		{"## 8. A retry brake that spans nights", "brake_nights.jsonl"},
		{"## 9. Rerun from a node", "rerun_from.jsonl"},
		{"## 10. The runbook's order of work", "live_lease.jsonl"},
		{"## 11. The run's close", "close.jsonl"},
		{"## 12. Claimed requests", "stale_request.jsonl"},
	} {
		_, section, ok := strings.Cut(string(doc), "\n"+tc.heading+"\n")
		if !ok {
			t.Errorf("docs/recovery.md has no section %q", tc.heading)
			continue
		}
		if i := strings.Index(section, "\n## "); i >= 0 {
			section = section[:i]
		}
		if !strings.Contains(section, "models the runbook's") && !strings.Contains(section, "models the fail-closed runner's runbook") {
			t.Errorf("%s does not say which step of the runbook it models", tc.heading)
		}
		if !strings.Contains(section, "`testdata/recovery/"+tc.log+"`") {
			t.Errorf("%s does not name testdata/recovery/%s", tc.heading, tc.log)
		}
		name := strings.TrimSuffix(tc.log, ".jsonl")
		for _, f := range []string{tc.log, name + ".golden.json", name + ".golden.txt", name + ".golden.md"} {
			if _, err := os.Stat("../testdata/recovery/" + f); err != nil {
				t.Error(err)
			}
		}
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

// TestRecoveryDocsStallExample: the confirm_stopped example of
// docs/recovery.md's section "Recovery actions" (the owner's host and PID,
// the PID's start time and command line, the host's boot time, and the
// emit line with placeholders) is what greenlight prints for the stalled
// run of testdata/recovery/orders_daily.jsonl (its golden text).
func TestRecoveryDocsStallExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../testdata/recovery/orders_daily.golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "Example, a stall candidate:\n```\nrecovery:\n")
	block, _, ok2 := strings.Cut(section, "```")
	if !ok || !ok2 || !strings.HasPrefix(block, "  confirm_stopped (") || !strings.Contains(string(golden), "\n"+block) {
		t.Errorf("the confirm_stopped example of docs/recovery.md section 6 is not in orders_daily.golden.txt:\n%s", block)
	}
	for _, want := range []string{"on host etl-b that PID 7007", "start time and command line", "boot time", "greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --run-id od-2026-01-01T03 --stage load --attempt 1 --status failed", "--stop-confirmed-by YOUR_NAME --stop-evidence-ref EVIDENCE_REF --stop-method local_pid"} {
		if !strings.Contains(block, want) {
			t.Errorf("the confirm_stopped example does not say %q", want)
		}
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
