package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/schemas"
)

const matrixNow = "2026-03-01T12:00:00Z"

// matrixLog writes the event log of pipeline i of the matrix: one to four
// runs of two or three stages, each stage succeeding, failing, retried to
// success, or (in the last run) still running or silent, chosen by a
// seeded random source so the matrix mixes healthy and unhealthy pipelines.
func matrixLog(i int) (log string, stages string) {
	r := rand.New(rand.NewPCG(uint64(i), 17))
	nStages := 2 + r.IntN(2)
	stages = "1,2"
	if nStages == 3 {
		stages = "1,2,3"
	}
	var b strings.Builder
	t := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	ev := func(run string, stage, attempt int, status string, extra string) {
		t = t.Add(time.Minute)
		fmt.Fprintf(&b, `{"run_id":"p%02d-r%d","stage":%d,"attempt":%d,"status":"%s","timestamp_utc":"%s"%s}`+"\n", i, run[0]-'0', stage, attempt, status, t.Format(time.RFC3339), extra)
	}
	runs := 1 + r.IntN(4)
	for k := 1; k <= runs; k++ {
		run := fmt.Sprint(k)
	stages:
		for s := 1; s <= nStages; s++ {
			ev(run, s, 1, "started", "")
			switch outcome := r.IntN(10); {
			case outcome < 6:
				ev(run, s, 1, "succeeded", `,"returncode":0`)
			case outcome < 8:
				ev(run, s, 1, "failed", `,"returncode":1,"error":"boom"`)
				ev(run, s, 2, "started", "")
				ev(run, s, 2, "succeeded", "")
			case outcome < 9:
				ev(run, s, 1, "failed", `,"returncode":1,"error":"boom"`)
				break stages
			default:
				if k == runs {
					break stages // left running; silent long enough to be a stall candidate
				}
				ev(run, s, 1, "succeeded", "")
			}
		}
	}
	return b.String(), stages
}

func runMain(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { panic("the test gives --now") }})
	return code, stdout.String(), stderr.String()
}

type rollupDoc struct {
	Verdict   string `json:"verdict"`
	Pipelines []struct {
		Pipeline string  `json:"pipeline"`
		Snapshot string  `json:"snapshot"`
		Verdict  string  `json:"verdict"`
		Problem  *string `json:"problem"`
	} `json:"pipelines"`
}

// mergeJSON merges the files with --expect any, as mergeExpectJSON does.
func mergeJSON(t *testing.T, wantCode int, files ...string) (rollupDoc, string) {
	t.Helper()
	return mergeExpectJSON(t, wantCode, "any", files...)
}

// mergeExpectJSON merges the files with --expect expect into a roll-up
// that must match rollup.schema.json, and returns it and stderr.
func mergeExpectJSON(t *testing.T, wantCode int, expect string, files ...string) (rollupDoc, string) {
	t.Helper()
	code, out, stderr := runMain(append([]string{"merge", "--max-age", "26h", "--now", matrixNow, "--format", "json", "--expect", expect}, files...)...)
	if code != wantCode {
		t.Fatalf("merge: exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	s, err := schemas.Compile("rollup")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := schemas.Instance([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Fatalf("the roll-up does not match rollup.schema.json: %v\n%s", err, out)
	}
	var doc rollupDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, stderr
}

// TestMergeMatrix is a CI matrix of 50 generated pipelines, each checked
// alone into its snapshot, then merged: the roll-up gives every pipeline
// the verdict its own check gave, and is healthy only if all are. Then a
// missing, a tampered, a truncated and a stale snapshot each make the
// roll-up unhealthy (exit 2) with a message that names the file and says
// why.
func TestMergeMatrix(t *testing.T) {
	dir := t.TempDir()
	var files []string
	want := map[string]string{}
	healthy := 0
	for i := range 50 {
		log, stages := matrixLog(i)
		name := fmt.Sprintf("p%02d", i)
		logPath := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		snap := filepath.Join(dir, name+".snapshot.json")
		code, out, stderr := runMain("check", logPath, "--stages", stages, "--now", matrixNow, "--format", "json", "--snapshot", snap)
		if code != ExitOK {
			t.Fatalf("check %s: exit %d: %s", name, code, stderr)
		}
		var doc struct{ Verdict string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		want[name] = doc.Verdict
		if doc.Verdict == "healthy" {
			healthy++
		}
		files = append(files, snap)
	}
	if healthy == 0 || healthy == 50 {
		t.Fatalf("%d of 50 pipelines healthy: the matrix should mix both", healthy)
	}
	doc, _ := mergeJSON(t, ExitOK, files...)
	if doc.Verdict != "unhealthy" || len(doc.Pipelines) != 50 {
		t.Fatalf("roll-up verdict %s with %d pipelines", doc.Verdict, len(doc.Pipelines))
	}
	for _, p := range doc.Pipelines {
		if p.Verdict != want[p.Pipeline] {
			t.Errorf("pipeline %s: roll-up says %s, its own check %s", p.Pipeline, p.Verdict, want[p.Pipeline])
		}
	}
	// Only the healthy ones: a healthy roll-up.
	var healthyFiles []string
	for i, f := range files {
		if want[fmt.Sprintf("p%02d", i)] == "healthy" {
			healthyFiles = append(healthyFiles, f)
		}
	}
	if doc, _ := mergeJSON(t, ExitOK, healthyFiles...); doc.Verdict != "healthy" {
		t.Errorf("the healthy pipelines roll up to %s", doc.Verdict)
	}
	// Expecting every pipeline, the healthy ones are not enough: each
	// pipeline without a snapshot (as when its log was invalid and its
	// check wrote none) is an unusable entry, and the exit code is 2.
	var names []string
	for i := range 50 {
		names = append(names, fmt.Sprintf("p%02d", i))
	}
	doc, stderr := mergeExpectJSON(t, ExitInvalid, strings.Join(names, ","), healthyFiles...)
	if doc.Verdict != "unhealthy" || len(doc.Pipelines) != 50 {
		t.Fatalf("expecting all 50: roll-up %s with %d entries", doc.Verdict, len(doc.Pipelines))
	}
	for _, p := range doc.Pipelines[len(healthyFiles):] {
		if want[p.Pipeline] != "unhealthy" || p.Verdict != "unusable" || p.Snapshot != "" || deref(p.Problem) != "no snapshot: the pipeline is expected, but no snapshot given is of it" {
			t.Errorf("expected pipeline %s without a snapshot: %s, %q", p.Pipeline, p.Verdict, deref(p.Problem))
		}
		if !strings.Contains(stderr, "greenlight: "+p.Pipeline+": no snapshot: the pipeline is expected, but no snapshot given is of it\n") {
			t.Errorf("stderr does not name %s:\n%s", p.Pipeline, stderr)
		}
	}

	// Break one snapshot at a time.
	var unhealthyFile string
	for i, f := range files {
		if want[fmt.Sprintf("p%02d", i)] == "unhealthy" {
			unhealthyFile = f
			break
		}
	}
	data, err := os.ReadFile(unhealthyFile)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.json")
	if err := os.WriteFile(tampered, bytes.Replace(data, []byte(`"verdict": "unhealthy"`), []byte(`"verdict": "healthy"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.json")
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "stale.json")
	if err := os.WriteFile(stale, bytes.Replace(data, []byte(`"generated_at_utc": "2026-03-01T12:00:00Z"`), []byte(`"generated_at_utc": "2026-02-27T09:00:00Z"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, problem string
	}{
		{filepath.Join(dir, "missing.json"), "cannot read the snapshot: open " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{truncated, "not a JSON document: unexpected EOF"},
		{stale, "stale: generated at 2026-02-27T09:00:00Z, 51h0m0s before 2026-03-01T12:00:00Z, older than --max-age 26h0m0s"},
	} {
		doc, stderr := mergeJSON(t, ExitInvalid, append(slicesWith(healthyFiles), c.file)...)
		last := doc.Pipelines[len(doc.Pipelines)-1]
		if doc.Verdict != "unhealthy" || last.Verdict != "unusable" || last.Problem == nil || *last.Problem != c.problem {
			t.Errorf("%s: roll-up %s, entry %s with problem %v, want %q", c.file, doc.Verdict, last.Verdict, deref(last.Problem), c.problem)
		}
		if !strings.Contains(stderr, "greenlight: "+c.file+": "+c.problem+"\n") || !strings.HasSuffix(stderr, "greenlight: 1 of "+fmt.Sprint(len(doc.Pipelines))+" snapshots unusable; the roll-up is unhealthy\n") {
			t.Errorf("%s: stderr:\n%s", c.file, stderr)
		}
	}
	doc, stderr = mergeJSON(t, ExitInvalid, append(slicesWith(healthyFiles), tampered)...)
	last := doc.Pipelines[len(doc.Pipelines)-1]
	if doc.Verdict != "unhealthy" || last.Verdict != "unusable" || last.Problem == nil || !strings.HasPrefix(*last.Problem, "tampered or corrupt: verdict healthy, but ") {
		t.Errorf("tampered: roll-up %s, entry %+v (%s); stderr:\n%s", doc.Verdict, last, deref(last.Problem), stderr)
	}
	// The same snapshot twice is one pipeline and log twice.
	doc, _ = mergeJSON(t, ExitInvalid, healthyFiles[0], healthyFiles[0])
	if p := doc.Pipelines[1]; p.Problem == nil || !strings.HasPrefix(*p.Problem, "a second snapshot of pipeline ") {
		t.Errorf("a duplicate snapshot: %+v", p)
	}
}

func slicesWith(s []string) []string { return append([]string(nil), s...) }

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
