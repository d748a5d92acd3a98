package openlineage_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/openlineage")

// samplesDir holds the real OpenLineage captures (../shared/samples from the
// repository's root); they are read from there, never copied.
const samplesDir = "../../../shared/samples/openlineage"

// now is the moment the samples are judged at.
var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func requireSamples(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("the OpenLineage samples are not here (%s: %v); they live in ../shared/samples, next to the repository", samplesDir, err)
	}
}

// doc renders a result as greenlight check --format json prints it.
func doc(t *testing.T, res *checker.Result) []byte {
	t.Helper()
	var b []byte
	var err error
	if res.Snapshot != nil {
		b, err = render.JSON(res.Snapshot)
	} else {
		b, err = render.JSON(res.Report)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validateDoc asserts that a document greenlight wrote matches its schema.
func validateDoc(t *testing.T, b []byte) {
	t.Helper()
	inst, err := schemas.Instance(b)
	if err != nil {
		t.Fatal(err)
	}
	name := "violations"
	if m, _ := inst.(map[string]any); m["schema_version"] == checker.SnapshotVersion {
		name = "snapshot"
	}
	s, err := schemas.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("output does not match %s.schema.json: %v", name, err)
	}
}

type violation struct {
	line int
	rule checker.RuleID
}

// TestSamples checks every real capture with the exact verdict, run states,
// reorder count and violations, and compares the JSON output with its golden
// file under testdata/openlineage (-update rewrites them).
func TestSamples(t *testing.T) {
	requireSamples(t)
	cases := []struct {
		file       string
		verdict    string // "" when the log is invalid
		runs       map[string]string
		stages     map[string]int // stage count per run
		reordered  int
		violations []violation
	}{
		{file: "CLL.jsonl", violations: []violation{{4, checker.RuleTerminalWithoutStart}}},
		{file: "airflow.jsonl", verdict: checker.VerdictHealthy, reordered: 2,
			runs: map[string]string{
				"01936893-9751-7a91-a2a0-a51101a3970c": checker.RunSucceeded,
				"01936894-494e-7b5c-938a-7b0fcc5f8eb9": checker.RunSucceeded,
				"01936898-5bd1-70bf-9ca2-4953116e45e1": checker.RunSucceeded,
			},
			stages: map[string]int{
				"01936893-9751-7a91-a2a0-a51101a3970c": 4,
				"01936894-494e-7b5c-938a-7b0fcc5f8eb9": 2,
				"01936898-5bd1-70bf-9ca2-4953116e45e1": 10,
			}},
		{file: "marquez_metadata.jsonl", verdict: checker.VerdictHealthy,
			runs: map[string]string{
				"4d3b8069-69b6-4708-ade0-3275112c9f04": checker.RunSucceeded,
				"6f0c13a5-f29b-46a5-90c1-0ffbebbbd1aa": checker.RunSucceeded,
				"e05901b1-3a06-4b98-8d9c-aaf188c9a28c": checker.RunSucceeded,
				"a43a8523-349f-4296-807f-3354ac491990": checker.RunSucceeded,
				"ffba2c14-4170-48da-bec3-ab5fd4ec9a3f": checker.RunSucceeded,
				"182a9eaf-881a-4d49-860c-f7e260b8bf60": checker.RunSucceeded,
				"b7098939-87f0-4207-878f-dfd8e8804d8a": checker.RunSucceeded,
				"9f3db1c5-5e9a-4280-8184-18aca4592c77": checker.RunSucceeded,
				"8ddfb1d9-415f-4850-bcd6-01d02f011abe": checker.RunSucceeded,
				"d5a2a4c4-fc78-428d-ae85-08c942ed8371": checker.RunSucceeded,
				"bd41a42a-bf18-4b74-9bb7-cd62637823d8": checker.RunSucceeded,
				"adc8507c-595e-4d76-9dac-be2bf0ffe1ee": checker.RunSucceeded,
				"3ab25429-cf9c-4d1d-9166-1e1946f9d3c3": checker.RunSucceeded,
			}},
		{file: "simple_run_event.jsonl", violations: []violation{{1, checker.RuleSchema}}},
		{file: "spark_dataproc_bigquery_shakespare.jsonl", verdict: checker.VerdictHealthy,
			runs:   map[string]string{"0192963f-929e-731b-a075-9bb14bf41d38": checker.RunSucceeded},
			stages: map[string]int{"0192963f-929e-731b-a075-9bb14bf41d38": 3}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(samplesDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := openlineage.Check(f, checker.Options{Now: now, File: "samples/openlineage/" + c.file})
			if err != nil {
				t.Fatal(err)
			}
			var got []violation
			for _, v := range res.Report.Violations {
				got = append(got, violation{v.Line, v.Rule})
			}
			if !equalViolations(got, c.violations) {
				t.Fatalf("violations %v, want %v", got, c.violations)
			}
			if c.verdict == "" {
				if res.Snapshot != nil {
					t.Fatal("an invalid log has a snapshot")
				}
			} else {
				s := res.Snapshot
				if string(s.Verdict) != c.verdict {
					t.Errorf("verdict %s, want %s", s.Verdict, c.verdict)
				}
				if len(s.Collect()) != len(c.runs) {
					t.Errorf("%d runs, want %d", len(s.Collect()), len(c.runs))
				}
				for _, r := range s.Collect() {
					if want, ok := c.runs[r.RunID]; !ok || string(r.State) != want {
						t.Errorf("run %s is %s, want %q", r.RunID, r.State, want)
					}
					if n, ok := c.stages[r.RunID]; ok && len(r.Stages) != n {
						t.Errorf("run %s has %d stages, want %d", r.RunID, len(r.Stages), n)
					}
				}
				if *s.Source.ReorderedEvents != c.reordered {
					t.Errorf("%d events reordered, want %d", *s.Source.ReorderedEvents, c.reordered)
				}
			}
			out := doc(t, res)
			validateDoc(t, out)
			golden := filepath.Join("../../testdata/openlineage", c.file[:len(c.file)-len(".jsonl")]+".golden.json")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./checker/openlineage -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", golden, out)
			}
		})
	}
	// Every sample has a case: a new capture cannot go unchecked.
	all, _ := filepath.Glob(filepath.Join(samplesDir, "*.jsonl"))
	for _, p := range all {
		if !seen[filepath.Base(p)] {
			t.Errorf("sample %s has no case in TestSamples", filepath.Base(p))
		}
	}
}

func equalViolations(a, b []violation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
