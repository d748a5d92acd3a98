package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// olFailedAction is an OpenLineage log (JSON Lines) of a Spark application
// run that completed while its action failed.
const olFailedAction = `{"eventType":"START","eventTime":"2026-01-01T10:00:00Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000001"},"job":{"namespace":"spark","name":"app"}}
{"eventType":"START","eventTime":"2026-01-01T10:00:01Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000002","facets":{"parent":{"run":{"runId":"00000000-0000-4000-8000-000000000001"},"job":{"namespace":"spark","name":"app"}}}},"job":{"namespace":"spark","name":"app.write"}}
{"eventType":"FAIL","eventTime":"2026-01-01T10:00:02Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000002","facets":{"parent":{"run":{"runId":"00000000-0000-4000-8000-000000000001"},"job":{"namespace":"spark","name":"app"}},"errorMessage":{"message":"disk full","programmingLanguage":"scala"}}},"job":{"namespace":"spark","name":"app.write"}}
{"eventType":"COMPLETE","eventTime":"2026-01-01T10:00:03Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000001"},"job":{"namespace":"spark","name":"app"}}
`

// TestOpenLineageInput: with input-format openlineage the action checks
// OpenLineage logs without a definition when infer-stages says so (and
// max-age declares the freshness expectation, here none), gates on
// them and annotates the line of the failed action; without infer-stages
// (or a pipeline) the gating check fails with exit 2, since a job that
// never logged would be invisible.
func TestOpenLineageInput(t *testing.T) {
	workspace := t.TempDir()
	log := filepath.Join(workspace, "spark.jsonl")
	if err := os.WriteFile(log, []byte(olFailedAction), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runAction(t, map[string]string{"GITHUB_WORKSPACE": workspace, "INPUT_EVENTS": log, "INPUT_INPUT-FORMAT": "openlineage", "INPUT_INFER-STAGES": "true", "INPUT_MAX-AGE": "none", "INPUT_NOW": "2026-01-01T12:00:00Z"})
	if got.Exit != 1 {
		t.Errorf("exit %d, want 1\n%s", got.Exit, got.Stdout)
	}
	for _, want := range []string{"verdict<<", "\nunhealthy\n", "failed-runs<<", "latest-run-id<<"} {
		if !strings.Contains(got.Output, want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, got.Output)
		}
	}
	if !strings.Contains(got.Stdout, "::error file=spark.jsonl,line=3,title=stage spark/app.write failed in run 00000000-0000-4000-8000-000000000001::") {
		t.Errorf("no annotation on line 3 of the failed action:\n%s", got.Stdout)
	}

	// The same log read as native events is invalid.
	got = runAction(t, map[string]string{"GITHUB_WORKSPACE": workspace, "INPUT_EVENTS": log, "INPUT_STAGES": "1", "INPUT_MAX-AGE": "none", "INPUT_NOW": "2026-01-01T12:00:00Z"})
	if got.Exit != 2 {
		t.Errorf("native: exit %d, want 2", got.Exit)
	}

	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no infer-stages", map[string]string{"INPUT_INPUT-FORMAT": "openlineage", "INPUT_NOW": "2026-01-01T12:00:00Z"},
			"no stages declared for a gate on an OpenLineage log: give pipeline pipeline.yaml naming the expected jobs (namespace/name), or infer-stages to take the jobs that logged as the expected ones (a job whose events never arrived is then invisible)"},
		{"infer-stages beside a pipeline", map[string]string{"INPUT_INPUT-FORMAT": "openlineage", "INPUT_INFER-STAGES": "true", "INPUT_PIPELINE": "testdata/logs/pipeline.yaml"},
			"infer-stages takes the stages from the log: give it without pipeline"},
		{"unknown format", map[string]string{"INPUT_INPUT-FORMAT": "xml", "INPUT_STAGES": "1"}, `input-format "xml": use native or openlineage`},
		{"stages", map[string]string{"INPUT_INPUT-FORMAT": "openlineage", "INPUT_STAGES": "1"}, "the stages input declares native stage ids"},
		{"job log", map[string]string{"INPUT_INPUT-FORMAT": "openlineage", "INPUT_INFER-STAGES": "true", "INPUT_JOB-LOG": "testdata/recovery/orders_daily.joblog.jsonl"},
			"the job-log input applies to input-format native only: OpenLineage attempts carry no attempt_id to match job-log records with"},
	} {
		c.env["INPUT_EVENTS"] = log
		// Each case is about its input, not freshness: declare none, so
		// the gate's freshness refusal does not answer first.
		c.env["INPUT_MAX-AGE"] = "none"
		got := runAction(t, c.env)
		if got.Exit != 2 || !strings.Contains(got.Stdout, "::error::greenlight action: "+c.want) {
			t.Errorf("%s: exit %d, want 2 and %q in\n%s", c.name, got.Exit, c.want, got.Stdout)
		}
	}
}
