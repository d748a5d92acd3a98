package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

// casesDir holds the OpenLineage logs greenlight once got wrong, each with
// the verdict it must give (../shared/cases/README.md); they are read from
// there, never copied into the repository.
const casesDir = "../../../shared/cases/openlineage"

// caseExpect is NAME.expect.json: how to run the case and what must come out.
type caseExpect struct {
	Pipeline          json.RawMessage   `json:"pipeline"`
	Now               string            `json:"now"`
	StaleAfterSeconds *int              `json:"stale_after_seconds"`
	Flags             string            `json:"flags"`
	Exit              *int              `json:"exit"`
	Rules             []string          `json:"rules"`
	Runs              map[string]string `json:"runs"`
	Note              string            `json:"note"`
}

// TestOpenLineageCases runs every case of ../shared/cases/openlineage through
// the CLI, as run_cases.py does, and asserts its exit code, every run's state
// (no more runs, no fewer) and, for an invalid log, the rules among its
// violations.
func TestOpenLineageCases(t *testing.T) {
	if _, err := os.Stat(casesDir); err != nil {
		t.Skipf("the OpenLineage cases are not here (%s: %v); they live in ../shared/cases, next to the repository", casesDir, err)
	}
	specs, err := filepath.Glob(filepath.Join(casesDir, "*.expect.json"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no cases in %s (%v)", casesDir, err)
	}
	for _, spec := range specs {
		name := strings.TrimSuffix(filepath.Base(spec), ".expect.json")
		t.Run(name, func(t *testing.T) {
			exp := readExpect(t, spec)
			args := []string{"check", filepath.Join(casesDir, name+".jsonl")}
			if len(exp.Pipeline) > 0 {
				p := filepath.Join(t.TempDir(), "pipeline.json")
				if err := os.WriteFile(p, exp.Pipeline, 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--pipeline", p)
			}
			if exp.Now != "" {
				args = append(args, "--now", exp.Now)
			}
			if exp.StaleAfterSeconds != nil {
				args = append(args, "--stale-after-seconds", strconv.Itoa(*exp.StaleAfterSeconds))
			}
			if strings.ContainsAny(exp.Flags, `"'\`) {
				t.Fatalf("flags %q need a shell to split; this test splits on white space", exp.Flags)
			}
			args = append(args, strings.Fields(exp.Flags)...)
			// A gate on an OpenLineage log without a definition needs
			// --infer-stages, which ../shared/tools/run_cases.py adds to such
			// cases as well.
			if slices.Contains(args, "--fail-on-unhealthy") && slices.Contains(args, "openlineage") && len(exp.Pipeline) == 0 && !slices.Contains(args, "--infer-stages") {
				args = append(args, "--infer-stages")
			}
			var declared struct {
				Schedule json.RawMessage `json:"schedule"`
				MaxAge   json.RawMessage `json:"max_age"`
			}
			if len(exp.Pipeline) > 0 {
				if err := json.Unmarshal(exp.Pipeline, &declared); err != nil {
					t.Fatal(err)
				}
			}
			if strings.Contains(exp.Flags, "--fail-on-unhealthy") && !strings.Contains(exp.Flags, "--max-age") && declared.Schedule == nil && declared.MaxAge == nil {
				// A gate needs a freshness expectation; a case that
				// declares none judges the runs, not their age (as
				// ../shared/tools/run_cases.py gives them).
				args = append(args, "--max-age", "none")
			}
			args = append(args, "--format", "json")
			var stdout, stderr bytes.Buffer
			code := cli.Main(args, cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Now: func() time.Time { t.Fatal("the case has no now"); return time.Time{} }})
			if code != *exp.Exit {
				t.Fatalf("greenlight %s: exit %d, want %d\nstderr: %s\nstdout: %.2000s", strings.Join(args, " "), code, *exp.Exit, stderr.String(), stdout.String())
			}
			var doc struct {
				Runs []struct {
					RunID string `json:"run_id"`
					State string `json:"state"`
				} `json:"runs"`
				Violations []struct {
					Rule string `json:"rule"`
				} `json:"violations"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%.2000s", err, stdout.String())
			}
			if exp.Runs != nil {
				got := map[string]string{}
				for _, r := range doc.Runs {
					got[r.RunID] = r.State
				}
				if !equalStates(got, exp.Runs) {
					t.Errorf("run states %v, want %v\n(%s)", got, exp.Runs, exp.Note)
				}
			}
			rules := map[string]bool{}
			for _, v := range doc.Violations {
				rules[v.Rule] = true
			}
			for _, r := range exp.Rules {
				if !rules[r] {
					t.Errorf("no %s violation among %v\n(%s)", r, sortedKeys(rules), exp.Note)
				}
			}
		})
	}
}

// readExpect reads a case's expectations, refusing a key this test does not
// check, so that no expectation is silently skipped.
func readExpect(t *testing.T, path string) caseExpect {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	known := map[string]bool{"pipeline": true, "now": true, "stale_after_seconds": true, "flags": true, "exit": true, "rules": true, "runs": true, "note": true}
	for k := range keys {
		if !known[k] {
			t.Errorf("%s: key %q is not checked by this test", path, k)
		}
	}
	var exp caseExpect
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if exp.Exit == nil {
		t.Fatalf("%s: no exit", path)
	}
	if *exp.Exit == 2 && len(exp.Rules) == 0 {
		t.Errorf("%s: an invalid log must name the rules it breaks", path)
	}
	if *exp.Exit != 2 && exp.Runs == nil {
		t.Errorf("%s: a valid log must give its runs' states", path)
	}
	return exp
}

func equalStates(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
