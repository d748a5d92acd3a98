//go:build unix

package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsThroughEngines: with every engine of engines (the native
// in-process action mode; wasm/wasmtest runs the same test through
// action/run.mjs running the module), a report naming the
// event log or the snapshot naming the definition is refused, exit 2, and
// the file keeps its bytes; a report in a missing directory of the
// workspace is written, the directory created.
func TestOutputsThroughEngines(t *testing.T) {
	const log = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n"
	const pipeline = "pipeline: p\nstages:\n  - {id: 1}\n"
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ws := t.TempDir()
			events, def := filepath.Join(ws, "events.jsonl"), filepath.Join(ws, "pipeline.yaml")
			if err := os.WriteFile(events, []byte(log), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(def, []byte(pipeline), 0o644); err != nil {
				t.Fatal(err)
			}
			base := map[string]string{"GITHUB_WORKSPACE": ws, "RUNNER_TEMP": t.TempDir(), "INPUT_EVENTS": events, "INPUT_PIPELINE": def, "INPUT_NOW": "2026-01-01T12:00:00Z",
				// The outputs are the subject, not freshness.
				"INPUT_MAX-AGE": "none"}
			with := func(k, v string) map[string]string {
				env := map[string]string{k: v}
				for k, v := range base {
					env[k] = v
				}
				return env
			}
			for _, c := range []struct {
				env  map[string]string
				want string
			}{
				{with("INPUT_REPORTS", "junit="+events), "the junit report " + events + " is also the event log file (" + events + "): writing it would replace it"},
				{with("INPUT_SNAPSHOT", def), "the snapshot input " + def + " is also the pipeline definition (" + def + "): writing it would replace it"},
			} {
				got := e.run(t, c.env)
				if got.exit != 2 || !strings.Contains(got.stdout, "::error::greenlight action: "+c.want+"\n") {
					t.Errorf("exit %d, step log %s\nwant exit 2 and %s", got.exit, got.stdout, c.want)
				}
			}
			if b, _ := os.ReadFile(events); string(b) != log {
				t.Errorf("the event log changed to %.100q", b)
			}
			if b, _ := os.ReadFile(def); string(b) != pipeline {
				t.Errorf("the definition changed to %.100q", b)
			}
			sarif := filepath.Join(ws, "out", "reports", "g.sarif")
			if got := e.run(t, with("INPUT_REPORTS", "sarif="+sarif)); got.exit != 1 { // valid and unhealthy: a stalled run
				t.Errorf("reports sarif=out/reports/g.sarif: exit %d, step log %s", got.exit, got.stdout)
			}
			if _, err := os.Stat(sarif); err != nil {
				t.Errorf("the report in a missing directory: %v", err)
			}
		})
	}
}
