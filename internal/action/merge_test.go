package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

// TestMergeMode rolls up two snapshots written by greenlight check, as the
// final job of a matrix does: the step log holds the roll-up between
// stop-commands, the job summary is its Markdown, the verdict output is
// the roll-up's and an unhealthy pipeline fails the step (exit 1). A
// tampered snapshot fails it with exit 2, an error naming the file and
// why, and the verdict invalid; an expected pipeline without a snapshot
// fails it with exit 2; a pattern that matches nothing, or no max-age or
// expect, fails it before anything is read.
func TestMergeMode(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{
		"a": `{"run_id":"a-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
			`{"run_id":"a-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:05:00Z"}` + "\n",
		"b": `{"run_id":"b-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
			`{"run_id":"b-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:05:00Z","error":"boom"}` + "\n",
	}
	if err := os.Mkdir(filepath.Join(dir, "snaps"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, log := range logs {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := cli.Main([]string{"check", p, "--stages", "1", "--now", "2026-01-01T12:00:00Z", "--snapshot", filepath.Join(dir, "snaps", name+".json")},
			cli.Env{Stdout: &out, Stderr: &errb, Now: time.Now}); code != 0 {
			t.Fatalf("check %s: exit %d: %s", name, code, errb.String())
		}
	}
	env := map[string]string{"INPUT_MODE": "merge", "INPUT_EVENTS": "snaps/*.json", "INPUT_MAX-AGE": "26h", "INPUT_EXPECT": "a\n# b failed\nb\n", "INPUT_NOW": "2026-01-02T06:00:00Z"}
	got := runActionIn(t, dir, env)
	if got.Exit != 1 {
		t.Errorf("exit %d, want 1", got.Exit)
	}
	for _, want := range []string{
		"::stop-commands::" + testToken + "\ngreenlight merge: unhealthy: 2 pipelines (1 healthy, 1 unhealthy, 0 unusable), judged at 2026-01-02T06:00:00Z, max age 26h0m0s, expected 2 pipelines\n",
		"  b  unhealthy  latest run b-1 failed, 1 run, 1 unhealthy (b-1 failed)\n::" + testToken + "::\n",
	} {
		if !strings.Contains(got.Stdout, want) {
			t.Errorf("step log lacks %q:\n%s", want, got.Stdout)
		}
	}
	if !strings.HasPrefix(got.Summary, "## ❌ greenlight merge: unhealthy\n") || !strings.Contains(got.Summary, "| b | ❌ unhealthy | latest run b\\-1 failed, 1 run, 1 unhealthy (b\\-1 failed) |\n") {
		t.Errorf("job summary:\n%s", got.Summary)
	}
	if !strings.Contains(got.Output, "verdict<<_GitHubActionsFileCommandDelimeter_\nunhealthy\n") || !strings.Contains(got.Output, "failed-runs<<_GitHubActionsFileCommandDelimeter_\n1\n") {
		t.Errorf("outputs:\n%s", got.Output)
	}

	data, err := os.ReadFile(filepath.Join(dir, "snaps", "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snaps", "b.json"), bytes.Replace(data, []byte(`"verdict": "unhealthy"`), []byte(`"verdict": "healthy"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runActionIn(t, dir, env)
	if got.Exit != 2 || !strings.Contains(got.Stdout, "::error::greenlight merge: snaps/b.json: tampered or corrupt: verdict healthy, but 1 of 1 run did not succeed\n") ||
		!strings.Contains(got.Output, "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n") {
		t.Errorf("a tampered snapshot: exit %d\n%s\n%s", got.Exit, got.Stdout, got.Output)
	}

	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"INPUT_EVENTS": "snaps/a.json\nsnaps/gone.json"}, `::error::greenlight action: snapshots: events "snaps/gone.json" matches no file; fail-closed: no log is not a healthy log`},
		{map[string]string{"INPUT_MAX-AGE": ""}, "::error::greenlight action: merge needs max-age (e.g. 26h for nightly pipelines): a snapshot older than that is stale"},
		{map[string]string{"INPUT_EVENTS": ""}, "::error::greenlight action: mode merge needs the events input: paths or globs of the snapshot files to roll up"},
		{map[string]string{"INPUT_EXPECT": ""}, "::error::greenlight action: mode merge needs the expect input: the pipelines that must have a snapshot, one name a line (or comma-separated), so that a pipeline whose snapshot is missing makes the roll-up unhealthy; expect: any takes whatever snapshots are given"},
		{map[string]string{"INPUT_EXPECT": "a,b,c"}, "::error::greenlight merge: c: no snapshot: the pipeline is expected, but no snapshot given is of it"},
		{map[string]string{"INPUT_EXPECT": "# none\n\n"}, "::error::greenlight action: expect names no pipeline: give one name a line (blank lines and # comments are ignored)"},
	} {
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		for k, v := range c.env {
			e[k] = v
		}
		got := runActionIn(t, dir, e)
		if got.Exit != 2 || !strings.Contains(got.Stdout, c.want+"\n") {
			t.Errorf("%v: exit %d, step log:\n%s", c.env, got.Exit, got.Stdout)
		}
	}
}

// TestMergeRequests: a snapshot whose runs all succeeded but whose request
// is stale rolls up unhealthy (exit 1), and unhealthy-requests sums the
// snapshots' stale and unclaimed requests.
func TestMergeRequests(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"check", filepath.Join(repoRoot, "testdata/recovery/stale_request.jsonl"), "--pipeline", filepath.Join(repoRoot, "testdata/recovery/pipeline.yaml"),
		"--now", "2026-01-01T12:00:00Z", "--snapshot", filepath.Join(dir, "s.json")}, cli.Env{Stdout: &out, Stderr: &errb, Now: time.Now}); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errb.String())
	}
	got := runActionIn(t, dir, map[string]string{"INPUT_MODE": "merge", "INPUT_EVENTS": "s.json", "INPUT_MAX-AGE": "26h", "INPUT_EXPECT": "any", "INPUT_NOW": "2026-01-01T12:00:00Z"})
	if got.Exit != 1 || !strings.Contains(got.Output, "unhealthy-requests<<_GitHubActionsFileCommandDelimeter_\n1\n") ||
		!strings.Contains(got.Output, "failed-runs<<_GitHubActionsFileCommandDelimeter_\n0\n") {
		t.Errorf("exit %d, outputs:\n%s\nstep log:\n%s", got.Exit, got.Output, got.Stdout)
	}
}
