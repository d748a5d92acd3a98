package actiontest

import (
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"
)

// The JavaScript action's side of internal/action's inject_test.go:
// hostile log text, input errors and the snapshot, each through the
// runner script as released and with the full module only.

// TestHostileLogText feeds logs whose error and run_id hold line breaks,
// workflow commands (::error::, ::set-output, ::add-mask::, ::stop-commands::),
// %0A, ##[error], a fake output delimiter, Markdown, HTML and Mermaid
// directives, and checks that none of it forges a workflow command, an
// output or markup, in-process and through the JavaScript action.
func TestHostileLogText(t *testing.T) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			steptest.CheckHostile(t, e.Run(t, steptest.HostileEnv()))
		})
	}
}

// TestInputErrors: each unusable input is refused with exit 2, one error
// line that names it, and the verdict output invalid, through the
// JavaScript action: the full module runs every case of internal/action's
// TestInputErrors, the released layout (the lean module first) those that
// reach the file system. The module's own errors may word an OS error its
// way (WASI's "No such file or directory"), so each is held to the
// expected line's start, not to the in-process bytes.
func TestInputErrors(t *testing.T) {
	// Each case's input error is what it is about, not freshness: the
	// base declares none explicitly, so the gate's freshness refusal does
	// not come first.
	base := map[string]string{
		"INPUT_EVENTS":   "testdata/logs/retry_then_success.jsonl",
		"INPUT_PIPELINE": "testdata/logs/pipeline.yaml",
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		"INPUT_MAX-AGE":  "none",
	}
	for _, c := range []struct {
		name string
		set  map[string]string
		want string
	}{
		{"no events", map[string]string{"INPUT_EVENTS": " \n "}, "the events input is required: a path or glob of JSON Lines event logs"},
		{"no match", map[string]string{"INPUT_EVENTS": "testdata/nothing/*.jsonl"}, `events "testdata/nothing/*.jsonl" matches no file; fail-closed: no log is not a healthy log`},
		{"missing file", map[string]string{"INPUT_EVENTS": "testdata/logs/missing.jsonl"}, `events "testdata/logs/missing.jsonl" matches no file; fail-closed: no log is not a healthy log`},
		{"mode", map[string]string{"INPUT_MODE": "gate"}, `mode "gate": use check, validate or merge`},
		{"gate", map[string]string{"INPUT_GATE": "first"}, `gate "first": use all or latest`},
		{"stale", map[string]string{"INPUT_STALE-AFTER-SECONDS": "0"}, `stale-after-seconds "0": use a whole number of seconds from 1 to 31536000`},
		{"stale over a year", map[string]string{"INPUT_STALE-AFTER-SECONDS": "31536001"}, `stale-after-seconds "31536001": use a whole number of seconds from 1 to 31536000`},
		{"stale past int64", map[string]string{"INPUT_STALE-AFTER-SECONDS": "9223372036854775808"}, `stale-after-seconds "9223372036854775808": use a whole number of seconds from 1 to 31536000`},
		{"max annotations", map[string]string{"INPUT_MAX-ANNOTATIONS": "-1"}, `max-annotations "-1": use a whole number from 0 to 10 (the runner shows no more)`},
		{"max annotations over the runner's", map[string]string{"INPUT_MAX-ANNOTATIONS": "11"}, `max-annotations "11": use a whole number from 0 to 10 (the runner shows no more)`},
		{"fail on unhealthy", map[string]string{"INPUT_FAIL-ON-UNHEALTHY": "yes"}, `fail-on-unhealthy "yes": use true or false`},
		{"summary", map[string]string{"INPUT_SUMMARY": "1"}, `summary "1": use true or false`},
		{"now", map[string]string{"INPUT_NOW": "2026-01-01 12:00"}, `now "2026-01-01 12:00": `},
		{"both definitions", map[string]string{"INPUT_STAGES": "1,2"}, "give either the pipeline input or the stages input, not both"},
		{"no definition", map[string]string{"INPUT_PIPELINE": ""}, "no stages declared: set the pipeline input to a pipeline definition file, or the stages input (e.g. 1,2) for a linear pipeline; greenlight never guesses the stages"},
		{"bad stage list", map[string]string{"INPUT_PIPELINE": "", "INPUT_STAGES": "1,,2"}, "stages: empty stage id in the list (write ids separated by commas, e.g. 1,2)"},
		{"snapshot of several logs", map[string]string{"INPUT_EVENTS": "testdata/logs/r*.jsonl", "INPUT_SNAPSHOT": "s.json", "INPUT_INPUT-FORMAT": "openlineage", "INPUT_PIPELINE": "", "INPUT_INFER-STAGES": "true"}, "the snapshot input needs mode check and one event log; events matched 3 files"},
		{"snapshot in validate mode", map[string]string{"INPUT_MODE": "validate", "INPUT_SNAPSHOT": "s.json"}, "the snapshot input needs mode check and one event log; events matched 1 file"},
		{"job log in validate mode", map[string]string{"INPUT_MODE": "validate", "INPUT_JOB-LOG": "testdata/recovery/orders_daily.joblog.jsonl"}, "the job-log input needs mode check and one event log; events matched 1 file"},
		{"log order", map[string]string{"INPUT_LOG-ORDER": "time"}, `log-order "time": use given or name`},
		{"missing job log", map[string]string{"INPUT_JOB-LOG": "testdata/recovery/missing.jsonl"}, "job-log \"testdata/recovery/missing.jsonl\": cannot resolve testdata/recovery/missing.jsonl: lstat"},
		{"job log on two lines", map[string]string{"INPUT_JOB-LOG": "a.jsonl\nb.jsonl"}, "the job-log input must be one path on one line"},
		{"job log that breaks its schema", map[string]string{"INPUT_JOB-LOG": "testdata/logs/pipeline.yaml"}, "testdata/logs/pipeline.yaml:1: invalid job log record: "},
	} {
		for _, e := range engines {
			if e.Name == "wasm" && !slices.Contains(fileCases, c.name) {
				continue
			}
			t.Run(c.name+"/"+e.Name, func(t *testing.T) {
				env := map[string]string{}
				for k, v := range base {
					env[k] = v
				}
				for k, v := range c.set {
					env[k] = v
				}
				checkInputError(t, e.Run(t, env), c.want)
			})
		}
	}
}

// fileCases are the TestInputErrors cases that reach the file system.
var fileCases = []string{"no match", "missing file", "no definition", "snapshot of several logs"}

// checkInputError checks one run of TestInputErrors.
func checkInputError(t *testing.T, got run, want string) {
	t.Helper()
	if got.Exit != 2 {
		t.Errorf("exit %d, want 2", got.Exit)
	}
	prefix := "::error::greenlight action: " + want
	if !strings.HasPrefix(got.Stdout, prefix) || strings.Count(got.Stdout, "\n") != 1 {
		t.Errorf("step log %q, want one line starting %q", got.Stdout, prefix)
	}
	if got.Output != "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n_GitHubActionsFileCommandDelimeter_\n" {
		t.Errorf("GITHUB_OUTPUT %q, want only verdict invalid", got.Output)
	}
	if got.Summary != "" {
		t.Errorf("job summary written: %q", got.Summary)
	}
}

// TestSnapshot: a valid log's snapshot is written atomically with the same
// bytes as the checker's golden; an invalid log leaves the previous one.
func TestSnapshot(t *testing.T) { steptest.Snapshot(t, root, engines) }
