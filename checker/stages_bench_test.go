package checker_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// wideDefinition declares n integer stages as a chain. Forward, stage k
// depends on stage k-1 (the --stages shorthand). Backward, stage k depends
// on stage k+1 and stage n, declared last, is the root: declared order is
// then the reverse of the order in which the stages can run, the shape that
// made blocked propagation cubic (outside review).
func wideDefinition(tb testing.TB, n int, backward bool) *checker.Definition {
	tb.Helper()
	if !backward {
		ids := make([]checker.StageID, n)
		for i := range ids {
			ids[i] = checker.IntStage(int64(i + 1))
		}
		def, err := checker.LinearDefinition(ids)
		if err != nil {
			tb.Fatal(err)
		}
		return def
	}
	var b strings.Builder
	b.WriteString(`{"stages": [`)
	for k := 1; k <= n; k++ {
		if k > 1 {
			b.WriteString(",")
		}
		deps := fmt.Sprintf("[%d]", k+1)
		if k == n {
			deps = "[]"
		}
		fmt.Fprintf(&b, `{"id": %d, "depends_on": %s}`, k, deps)
	}
	b.WriteString("]}")
	def, err := checker.ParseDefinition([]byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return def
}

// failedRunsLog is a log of runs runs in which stage root's first attempt
// failed, so every other stage of each run is blocked behind it.
func failedRunsLog(runs int, root int) []byte {
	var b bytes.Buffer
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := range runs {
		id := fmt.Sprintf("run-%05d", r)
		fmt.Fprintf(&b, `{"run_id":%q,"stage":%d,"attempt":1,"status":"started","timestamp_utc":%q}`+"\n", id, root, t.Format(time.RFC3339))
		t = t.Add(time.Minute)
		fmt.Fprintf(&b, `{"run_id":%q,"stage":%d,"attempt":1,"status":"failed","timestamp_utc":%q,"returncode":1,"error":"boom"}`+"\n", id, root, t.Format(time.RFC3339))
	}
	return b.Bytes()
}

// BenchmarkBlockedStages checks a 10,000-stage definition with 1,000 failed
// runs and builds every run report, in which 9,999 stages are blocked: the
// cost must grow with runs × (stages + dependencies), not with stages
// squared or cubed per run (outside review). bench/run.sh prints it.
func BenchmarkBlockedStages(b *testing.B) {
	const stages, runs = 10000, 1000
	for _, shape := range []struct {
		name     string
		backward bool
		root     int
	}{{"declared-forward", false, 1}, {"declared-backward", true, stages}} {
		b.Run(shape.name, func(b *testing.B) {
			def := wideDefinition(b, stages, shape.backward)
			log := failedRunsLog(runs, shape.root)
			opts := checker.Options{Definition: def, Now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
			for b.Loop() {
				res, err := checker.Check(bytes.NewReader(log), opts)
				if err != nil || res.Snapshot == nil {
					b.Fatal(err, res.Report.Violations)
				}
				blocked := 0
				res.Snapshot.Runs()(func(rr *checker.RunReport) bool {
					for i := range rr.Stages {
						if rr.Stages[i].State == checker.StageBlocked {
							blocked++
						}
					}
					return true
				})
				if blocked != runs*(stages-1) {
					b.Fatalf("%d blocked stages, want %d", blocked, runs*(stages-1))
				}
			}
		})
	}
}
