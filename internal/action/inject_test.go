package action

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestHostileLogText feeds logs whose error and run_id hold line breaks,
// workflow commands (::error::, ::set-output, ::add-mask::, ::stop-commands::),
// %0A, ##[error], a fake output delimiter, Markdown, HTML and Mermaid
// directives, and checks that none of it forges a workflow command, an
// output or markup, with every engine of engines (wasm/wasmtest runs it
// through the JavaScript action).
func TestHostileLogText(t *testing.T) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			steptest.CheckHostile(t, e.Run(t, steptest.HostileEnv()))
		})
	}
}

// TestAnnotationBytes pins the exact bytes of the workflow-command escaping:
// the message escapes % CR LF, the properties also : and ,.
func TestAnnotationBytes(t *testing.T) {
	var b strings.Builder
	gh := githubactions.New(githubactions.WithWriter(&b), githubactions.WithGetenv(func(string) string { return "" }))
	annotate(gh, inputs{maxAnnotations: 10, summary: true}, nil, &finder{keep: 10}, "", true)
	if b.Len() != 0 {
		t.Fatalf("no problem, yet annotations: %q", b.String())
	}
	emit(gh, []annotation{{file: "logs/a,b:c.jsonl", line: 7, title: "run 50%,x:y\r\nz", message: "50% done\r\n::error::forged, a:b"}}, 1, 0, 10, "the job summary lists them all", "")
	want := "::error file=logs/a%2Cb%3Ac.jsonl,line=7,title=run 50%25%2Cx%3Ay%0D%0Az::50%25 done%0D%0A::error::forged, a:b\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// Terminal escapes (an OSC 8 hyperlink, a colour, a bidi override) in
	// the message, the title or the file name reach the log viewer as
	// visible text, never as bytes it would interpret.
	b.Reset()
	emit(gh, []annotation{{file: "logs/e\x1b.jsonl", line: 1, title: "run \x1b[31mr\u202e", message: "e\x1b]8;;http://x\a link\ttab"}}, 1, 0, 10, "", "")
	want = "::error file=logs/e\\x1b.jsonl,line=1,title=run \\x1b[31mr\\u202e::e\\x1b]8;;http://x\\a link\ttab\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

// TestAnnotationUnlisted: violations beyond the report's cap have no line
// to point at; the closing annotation counts them.
func TestAnnotationUnlisted(t *testing.T) {
	var b strings.Builder
	gh := githubactions.New(githubactions.WithWriter(&b), githubactions.WithGetenv(func(string) string { return "" }))
	emit(gh, []annotation{{file: "a.jsonl", line: 1, title: "t1", message: "m1"}, {file: "a.jsonl", line: 2, title: "t2", message: "m2"}}, 2, 5, 9, listedWhere(nil, ModeCheck, true, true, 5), "")
	want := "::error file=a.jsonl,line=1,title=t1::m1\n" +
		"::error file=a.jsonl,line=2,title=t2::m2\n" +
		"::error title=greenlight%3A 5 more problems::5 more problems are not annotated: the runner shows at most 10 error annotations per step; the job summary lists the violations each log's report lists and counts the rest\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestAnnotationBudget: at most max-annotations, never more than the runner
// shows, one fewer when the step fails.
func TestAnnotationBudget(t *testing.T) {
	for _, c := range []struct {
		max     int
		failing bool
		want    int
	}{
		{10, true, 9}, {10, false, 10}, {25, false, 10}, {25, true, 9}, {3, true, 3}, {0, true, 0},
	} {
		if got := annotationBudget(c.max, c.failing); got != c.want {
			t.Errorf("annotationBudget(%d, %v) = %d, want %d", c.max, c.failing, got, c.want)
		}
	}
}

func TestRandomToken(t *testing.T) {
	a, err := RandomToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RandomToken()
	if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("token %q is not 32 hex digits", a)
	}
	if a == b {
		t.Errorf("two tokens are equal: %q", a)
	}
}

// TestInputErrors: each unusable input is refused with exit 2, one error
// line that names it, and the verdict output invalid. wasm/wasmtest runs
// the same inputs through the JavaScript action and compares with
// in-process, byte for byte.
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
func TestSnapshot(t *testing.T) { steptest.Snapshot(t, "../..", engines) }

// TestListedWhere: the closing annotation says what lists the problems
// left out, and only what is true: every one only when no log has more
// unhealthy runs and missed slots than the job summary (or step log)
// lists and the reports list every violation, and the summary was not cut.
func TestListedWhere(t *testing.T) {
	snap := func(runs, succeeded int) render.LogResult {
		return render.LogResult{File: "a.jsonl", Snapshot: &checker.Snapshot{RunCount: runs, StateCounts: checker.StateCounts{Succeeded: succeeded}}}
	}
	for _, c := range []struct {
		name              string
		logs              []render.LogResult
		mode              string
		summary, complete bool
		unlisted          int
		want              string
	}{
		{"few failures", []render.LogResult{snap(30, 10)}, ModeCheck, true, true, 0, "the job summary lists them all"},
		{"many failures", []render.LogResult{snap(30, 9)}, ModeCheck, true, true, 0, "the job summary lists the latest 20 unhealthy runs and missed slots of each log; greenlight check --format json lists every run"},
		{"many failures, no summary", []render.LogResult{snap(30, 9)}, ModeCheck, false, true, 0, "the step log above lists the latest 20 unhealthy runs and missed slots of each log; greenlight check --format json lists every run"},
		{"summary cut", []render.LogResult{snap(30, 10)}, ModeCheck, true, false, 0, "the job summary lists as many of them as fit in the runner's 1 MiB limit; greenlight check --format json lists every run"},
		{"violations past the cap", nil, ModeValidate, true, true, 5, "the job summary lists the violations each log's report lists and counts the rest"},
		{"validate ignores runs", []render.LogResult{snap(30, 0)}, ModeValidate, false, true, 0, "the step log above lists them all"},
	} {
		if got := listedWhere(c.logs, c.mode, c.summary, c.complete, c.unlisted); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
