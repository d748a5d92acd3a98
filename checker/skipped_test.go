package checker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

// skipPipeline is a branch: extract, then full_load (skippable) or
// incremental_load (skippable), each with a publish after it, and a join
// after both loads.
const skipPipeline = `pipeline: branchy
max_age: none
stages:
  - {id: extract}
  - {id: full_load, skippable: true, depends_on: [extract]}
  - {id: incremental_load, skippable: true, depends_on: [extract]}
  - {id: publish_full, depends_on: [full_load]}
  - {id: join, depends_on: [full_load, incremental_load]}
`

// TestSkippedStages pins the fold of skipped stages (docs/contract.md,
// Skipped stages): a skip counts as done, a stage that never logged below a
// skip is skipped too (Airflow's all_success), a failure upstream makes it
// blocked instead, and a stage that logged keeps its own state.
func TestSkippedStages(t *testing.T) {
	const (
		ex      = `{"run_id":"r","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" + `{"run_id":"r","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}` + "\n"
		skip    = `{"run_id":"r","stage":"full_load","attempt":1,"status":"skipped","timestamp_utc":"2026-01-01T10:02:00Z","reason":"branch chose incremental_load"}` + "\n"
		inc     = `{"run_id":"r","stage":"incremental_load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}` + "\n" + `{"run_id":"r","stage":"incremental_load","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}` + "\n"
		join    = `{"run_id":"r","stage":"join","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:04:00Z"}` + "\n" + `{"run_id":"r","stage":"join","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:05:00Z"}` + "\n"
		incFail = `{"run_id":"r","stage":"incremental_load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}` + "\n" + `{"run_id":"r","stage":"incremental_load","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:03:00Z","error":"exit 1"}` + "\n"
		// full_load starts, then skips itself (a short-circuit).
		selfSkip = `{"run_id":"r","stage":"full_load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:01:30Z"}` + "\n" + `{"run_id":"r","stage":"full_load","attempt":1,"status":"skipped","timestamp_utc":"2026-01-01T10:01:45Z","reason":"no new partitions"}` + "\n"
	)
	for _, c := range []struct {
		name, log string
		run       checker.RunState
		verdict   checker.Verdict
		stages    string // the stages' states in declared order
	}{
		{"the branch skips full_load, the join ran", ex + skip + inc + join, checker.RunSucceeded, checker.VerdictHealthy,
			"succeeded skipped succeeded skipped succeeded"},
		{"a skip from a started attempt", ex + selfSkip + inc + join, checker.RunSucceeded, checker.VerdictHealthy,
			"succeeded skipped succeeded skipped succeeded"},
		{"the join never logged: skipped below the skip", ex + skip + inc, checker.RunSucceeded, checker.VerdictHealthy,
			"succeeded skipped succeeded skipped skipped"},
		{"a failure upstream wins over the skip: the join is blocked", ex + skip + incFail, checker.RunFailed, checker.VerdictUnhealthy,
			"succeeded skipped failed skipped blocked"},
		{"a skippable stage that never logged is pending", ex + inc, checker.RunIncomplete, checker.VerdictUnhealthy,
			"succeeded pending succeeded pending pending"},
	} {
		schema, err := schemas.Compile("snapshot")
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.name, func(t *testing.T) {
			def, err := checker.ParseDefinition([]byte(skipPipeline))
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Check(strings.NewReader(c.log), checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 10, 6, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatalf("violations: %+v", res.Report.Violations)
			}
			s := res.Snapshot
			if s.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s", s.Verdict, c.verdict)
			}
			runs := s.Collect()
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			var states []string
			for _, st := range runs[0].Stages {
				states = append(states, string(st.State))
			}
			if runs[0].State != c.run || strings.Join(states, " ") != c.stages {
				t.Errorf("run %s, stages %s; want %s, %s", runs[0].State, strings.Join(states, " "), c.run, c.stages)
			}
			var doc strings.Builder
			if err := render.WriteSnapshotJSON(&doc, s); err != nil {
				t.Fatal(err)
			}
			if inst, err := schemas.Instance([]byte(doc.String())); err != nil {
				t.Fatal(err)
			} else if err := schema.Validate(inst); err != nil {
				t.Errorf("the snapshot does not match snapshot.schema.json: %v", err)
			}
			if got := s.StateCounts.Succeeded; (c.run == checker.RunSucceeded) != (got == 1) {
				t.Errorf("counted %d succeeded runs for a %s run", got, c.run)
			}
		})
	}
}
