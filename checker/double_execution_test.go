package checker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestDoubleExecution: two runs of one slot that both ran a stage declared
// idempotent: false are a double execution (argoproj/argo-workflows #2694),
// unhealthy under both gates; an idempotent stage, or a duplicate that
// skipped the stage, is not one.
func TestDoubleExecution(t *testing.T) {
	const head = "schedule: {cron: '0 2 * * *', timezone: UTC, lookback_slots: 1}\nstages:\n  - {id: extract}\n"
	ev := func(run, stage, status, at string, extra string) string {
		return `{"run_id":"` + run + `","stage":"` + stage + `","attempt":1,"status":"` + status + `","timestamp_utc":"2026-01-01T` + at + `Z"` + extra + "}\n"
	}
	slot := `,"scheduled_for":"2026-01-01T02:00:00Z"`
	base := ev("a", "extract", "started", "02:00:01", slot) + ev("b", "extract", "started", "02:00:02", slot) +
		ev("a", "extract", "succeeded", "02:01:00", "") + ev("b", "extract", "succeeded", "02:01:01", "") +
		ev("a", "append", "started", "02:01:02", "")
	both := base + ev("b", "append", "started", "02:01:03", "") + ev("a", "append", "succeeded", "02:02:00", "") + ev("b", "append", "succeeded", "02:02:01", "")
	skipped := base + ev("b", "append", "skipped", "02:01:03", `,"reason":"done by run a"`) + ev("a", "append", "succeeded", "02:02:00", "")
	for _, c := range []struct {
		name, stage, log string
		gate             checker.Gate
		want             string // "" for none, else "stage run_id filled_by"
		verdict          checker.Verdict
	}{
		{"both ran a non-idempotent stage", "{id: append, idempotent: false}", both, checker.GateAll, "append b a", checker.VerdictUnhealthy},
		{"the same under gate latest", "{id: append, idempotent: false}", both, checker.GateLatest, "append b a", checker.VerdictUnhealthy},
		{"an idempotent stage", "{id: append}", both, checker.GateAll, "", checker.VerdictHealthy},
		{"the duplicate skipped the stage", "{id: append, idempotent: false, skippable: true}", skipped, checker.GateAll, "", checker.VerdictHealthy},
	} {
		t.Run(c.name, func(t *testing.T) {
			def, err := checker.ParseDefinition([]byte(head + "  - " + c.stage + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Check(strings.NewReader(c.log), checker.Options{Definition: def, Gate: c.gate, Now: time.Date(2026, 1, 1, 6, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatalf("violations: %+v", res.Report.Violations)
			}
			var got []string
			for _, d := range res.Snapshot.Schedule.DoubleExecutions {
				got = append(got, d.Stage.String()+" "+d.RunID+" "+d.FilledBy)
				if d.ScheduledFor != "2026-01-01T02:00:00Z" || len(d.Recovery) == 0 {
					t.Errorf("double execution %+v", d)
				}
			}
			if strings.Join(got, "; ") != c.want || res.Snapshot.Verdict != c.verdict {
				t.Errorf("double executions %q, verdict %s; want %q, %s", got, res.Snapshot.Verdict, c.want, c.verdict)
			}
		})
	}
}
