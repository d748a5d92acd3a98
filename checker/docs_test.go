package checker_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/schemas"
)

// rulesMarkdown renders the rule table as docs/rules.md.
func rulesMarkdown() string {
	var b strings.Builder
	b.WriteString("# Contract rules\n\n")
	b.WriteString("<!-- Generated from checker.Rules() by `go test ./checker -run TestRulesDoc -update`; do not edit. -->\n\n")
	b.WriteString("Each violation names one of these stable rule ids, with the 1-based line number of the log that breaks it. A line reports at most one violation: the first rule it breaks, in this order. Any violation makes the whole log invalid (exit 2).\n\n")
	b.WriteString("The order is one table (checker/rules.go); the checks of Check and of Feed (OpenLineage) loop over it, and an event changes the state of its run only once it passed every rule. It goes from what needs least to what needs most: the line alone (reading), the event against the pipeline definition, the run's time line, then the attempt's life by the event's status (a start, an outcome, a heartbeat, a resolution), and last the identities that span the log (attempt_id, the four eyes). So a second start of attempt 1 is duplicate_start even when it also names another attempt_id. Each rule lives in checker/rule_<family>.go.\n\n")
	b.WriteString("| rule id | family | checked on | violation |\n|---|---|---|---|\n")
	for _, r := range checker.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Family, statusList(r), r.Summary)
	}
	for _, r := range checker.Rules() {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", r.ID, r.Detail)
		if r.Example != "" {
			fmt.Fprintf(&b, "\n```\n%s\n```\n", r.Example)
		}
	}
	return b.String()
}

// statusList names the statuses a rule is checked on for docs/rules.md.
func statusList(r checker.Rule) string {
	sts := r.Statuses
	switch {
	case r.Family == "reading":
		return "every line"
	case sts == nil:
		return "every event"
	}
	var names []string
	for _, s := range sts {
		names = append(names, s.String())
	}
	return strings.Join(names, ", ")
}

// TestRulesDoc keeps docs/rules.md generated from the rule table.
func TestRulesDoc(t *testing.T) {
	want := rulesMarkdown()
	if *update {
		if err := os.WriteFile("../docs/rules.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("../docs/rules.md")
	if err != nil || string(got) != want {
		t.Fatalf("docs/rules.md is not generated from checker.Rules(): run go test ./checker -run TestRulesDoc -update (%v)", err)
	}
}

// TestRulesMatchSchema: the violations schema enumerates exactly the rule
// ids of the tables (the contract's, then OpenLineage's), in the same order.
func TestRulesMatchSchema(t *testing.T) {
	src, err := schemas.Source("violations")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schemas.Instance(src)
	if err != nil {
		t.Fatal(err)
	}
	enum := doc.(map[string]any)["properties"].(map[string]any)["violations"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["rule"].(map[string]any)["enum"].([]any)
	var ids, table []string
	for _, e := range enum {
		ids = append(ids, e.(string))
	}
	for _, r := range append(checker.Rules(), checker.OpenLineageRules()...) {
		table = append(table, string(r.ID))
	}
	if !slices.Equal(ids, table) {
		t.Errorf("violations.schema.json rule enum %v\n!= checker.Rules() + checker.OpenLineageRules() %v", ids, table)
	}
}
