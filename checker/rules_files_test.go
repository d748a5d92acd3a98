package checker_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/greenlight-ci/greenlight/checker"
)

// A rule test is a file testdata/rules/<rule_id>[_<case>].txtar: its comment
// names the case and may hold a line "options: ..." (strict,
// max-line-bytes=N, no-final-newline: the log's last line has no newline),
// and it holds -- pipeline.yaml --, -- log.jsonl -- and -- want --, the
// violations as "<line> <rule>: <message>" lines. The log is checked at
// corpusNow; -update rewrites want.

// ruleCase is one parsed rule test.
type ruleCase struct {
	path       string
	rule       checker.RuleID
	archive    *txtar.Archive
	opts       checker.Options
	log, want  []byte
	wantFileIx int
}

// ruleOfFile returns the rule a test file is named for: the longest rule id
// that is the file's name or is followed in it by "_".
func ruleOfFile(name string) checker.RuleID {
	var best checker.RuleID
	for _, r := range checker.Rules() {
		id := string(r.ID)
		if (name == id || strings.HasPrefix(name, id+"_")) && len(id) > len(best) {
			best = r.ID
		}
	}
	return best
}

func readRuleCase(t *testing.T, path string) ruleCase {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rc := ruleCase{path: path, archive: a, rule: ruleOfFile(strings.TrimSuffix(filepath.Base(path), ".txtar")), wantFileIx: -1}
	rc.opts = checker.Options{Now: corpusNow, File: "log.jsonl"}
	var noFinalNewline bool
	for _, l := range strings.Split(string(a.Comment), "\n") {
		opts, ok := strings.CutPrefix(l, "options: ")
		if !ok {
			continue
		}
		for _, o := range strings.Fields(opts) {
			switch k, v, _ := strings.Cut(o, "="); k {
			case "strict":
				rc.opts.Strict = true
			case "no-final-newline":
				noFinalNewline = true
			case "max-line-bytes":
				if rc.opts.MaxLineBytes, err = strconv.Atoi(v); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
			default:
				t.Fatalf("%s: unknown option %q", path, o)
			}
		}
	}
	for i, f := range a.Files {
		switch f.Name {
		case "pipeline.yaml":
			if rc.opts.Definition, err = checker.ParseDefinition(f.Data); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		case "log.jsonl":
			rc.log = f.Data
		case "want":
			rc.want, rc.wantFileIx = f.Data, i
		default:
			t.Fatalf("%s: unexpected file %s", path, f.Name)
		}
	}
	if rc.opts.Definition == nil || rc.log == nil || rc.wantFileIx < 0 {
		t.Fatalf("%s: needs -- pipeline.yaml --, -- log.jsonl -- and -- want --", path)
	}
	if noFinalNewline {
		rc.log = bytes.TrimSuffix(rc.log, []byte("\n"))
	}
	return rc
}

// violationLines writes violations as a rule test's want section.
func violationLines(vs []checker.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%d %s: %s\n", v.Line, v.Rule, v.Message)
	}
	return b.String()
}

// TestRules checks every log of testdata/rules, on the fast path and with
// the schema validator on every event, against its exact violations, and
// requires a file for every rule of checker.Rules() whose want names it.
func TestRules(t *testing.T) {
	paths, err := filepath.Glob("testdata/rules/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[checker.RuleID]bool{}
	for _, path := range paths {
		rc := readRuleCase(t, path)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			if rc.rule == "" {
				t.Fatalf("%s is not named <rule_id>[_<case>].txtar", path)
			}
			for _, every := range []bool{false, true} {
				opts := rc.opts
				opts.SchemaEveryEvent = every
				res, err := checker.Check(bytes.NewReader(rc.log), opts)
				if err != nil {
					t.Fatal(err)
				}
				if res.Snapshot != nil {
					t.Fatal("an invalid log produced a snapshot")
				}
				got := violationLines(res.Report.Violations)
				if *update && !every {
					rc.archive.Files[rc.wantFileIx].Data = []byte(got)
					if err := os.WriteFile(path, txtar.Format(rc.archive), 0o644); err != nil {
						t.Fatal(err)
					}
					rc.want = []byte(got)
				}
				if got != string(rc.want) {
					t.Fatalf("schema every event %v: violations\n%s\nwant\n%s", every, got, rc.want)
				}
			}
			if !strings.Contains("\n"+string(rc.want), fmt.Sprintf(" %s: ", rc.rule)) {
				t.Errorf("no violation of %s, which the file is named for", rc.rule)
			}
		})
		covered[rc.rule] = true
	}
	for _, r := range checker.Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no testdata/rules/%s[_<case>].txtar", r.ID, r.ID)
		}
	}
}

// examplePipeline is the definition every Rule.Example is checked against.
func examplePipeline(t *testing.T) *checker.Definition {
	t.Helper()
	return definitionFile(t, "testdata/rules/examples.yaml")
}

// runExample checks a rule's example as docs/rules.md shows it: against
// testdata/rules/examples.yaml at corpusNow, with --strict.
func runExample(t *testing.T, r checker.Rule) []checker.Violation {
	t.Helper()
	res, err := checker.Check(strings.NewReader(r.Example+"\n"), checker.Options{Definition: examplePipeline(t), Now: corpusNow, Strict: true, File: "example.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Report.Violations
}

// TestRuleExamples: every contract rule's Example breaks that rule, and
// only it, on its last line.
func TestRuleExamples(t *testing.T) {
	for _, r := range checker.Rules() {
		if r.Example == "" {
			continue
		}
		vs := runExample(t, r)
		last := strings.Count(r.Example, "\n") + 1
		if len(vs) != 1 || vs[0].Rule != r.ID || vs[0].Line != last {
			t.Errorf("the example of %s gives\n%s", r.ID, violationLines(vs))
		}
	}
}
