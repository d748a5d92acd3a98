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

// TestHostileRequest: a stale and an unclaimed request whose request_id
// and claimed_by hold workflow commands, property separators, %-escapes and
// HTML get their annotations, and none of that text forges a workflow
// command, a property, an output or markup, in-process
// (testdata/action/hostile_request.txtar pins the bytes).
func TestHostileRequest(t *testing.T) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			steptest.CheckHostile(t, e.Run(t, steptest.HostileRequestEnv()))
		})
	}
}

// TestInputErrors: each unusable input of testdata/action/input_errors.json
// is refused with exit 2, one error line that names it, and the verdict
// output invalid. wasm/wasmtest runs the same table through the JavaScript
// action.
func TestInputErrors(t *testing.T) {
	for _, c := range steptest.InputErrors(t, "../..") {
		for _, e := range engines {
			t.Run(c.Name+"/"+e.Name, func(t *testing.T) {
				c.Check(t, e.Name, e.Run(t, c.Env))
			})
		}
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
