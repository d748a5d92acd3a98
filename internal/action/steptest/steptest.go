// Package steptest holds what the action's tests share across engines:
// the step a run leaves (exit code, step log, GITHUB_OUTPUT, job summary),
// the files a runner gives a step, a copy of the source tree as a ref
// without a release holds it, and the scenarios every engine must pass with
// the same assertions: internal/action runs them in process,
// wasm/wasmtest/actiontest through the JavaScript action (action/run.mjs and
// the wasip1 module). It is imported by tests only.
package steptest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Token is the stop-commands token every test run of the action gets.
const Token = "tok3n0123456789abcdef0123456789ab"

// Step is one run of the action: its exit code and what it wrote to the
// step log, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
type Step struct {
	Exit    int
	Stdout  string
	Output  string
	Summary string
}

// Engine is one way to run the action: Run runs it with the given
// environment (INPUT_* and any other variable) and returns the step.
type Engine struct {
	Name string
	Run  func(*testing.T, map[string]string) Step
}

// Vars is env over fresh, empty GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files in a test directory; "-" for either in env leaves it unset.
func Vars(t *testing.T, env map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	for k, v := range env {
		vars[k] = v
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		if vars[k] == "-" {
			delete(vars, k)
		} else if err := os.WriteFile(vars[k], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return vars
}

// Read is the step with the given exit code and step log, and what the
// step wrote to the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files in vars
// ("" for one that is unset).
func Read(t *testing.T, vars map[string]string, exit int, stdout string) Step {
	t.Helper()
	read := func(k string) string {
		if vars[k] == "" {
			return ""
		}
		b, err := os.ReadFile(vars[k])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return Step{Exit: exit, Stdout: stdout, Output: read("GITHUB_OUTPUT"), Summary: read("GITHUB_STEP_SUMMARY")}
}

// OutputNames parses a GITHUB_OUTPUT file the way the runner does (name=value
// or name<<DELIMITER ... DELIMITER) and returns the output names in order.
func OutputNames(t *testing.T, file string) []string {
	t.Helper()
	var names []string
	sc := bufio.NewScanner(strings.NewReader(file))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			names = append(names, name)
			for sc.Scan() && sc.Text() != delim {
			}
			continue
		}
		if name, _, ok := strings.Cut(line, "="); ok {
			names = append(names, name)
			continue
		}
		t.Fatalf("GITHUB_OUTPUT line %q is neither name=value nor name<<delimiter", line)
	}
	return names
}

// AllOutputs are greenlight's outputs, in the order the action writes them.
var AllOutputs = []string{"failed-runs", "latest-run-id", "latest-run-state", "run-count", "snapshot", "stalled-runs", "unhealthy-requests", "verdict", "violations"}

// HostileEnv is the environment of TestHostileLogText, run from the
// repository's root: logs whose error and run_id hold line breaks,
// workflow commands (::error::, ::set-output, ::add-mask::,
// ::stop-commands::), %0A, ##[error], a fake output delimiter, Markdown,
// HTML and Mermaid directives.
func HostileEnv() map[string]string {
	return map[string]string{
		"INPUT_EVENTS":   "testdata/logs/hostile_text.jsonl\ntestdata/action/hostile_run_id.jsonl",
		"INPUT_PIPELINE": "testdata/logs/pipeline.yaml",
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		// The hostile text is the subject, not freshness.
		"INPUT_MAX-AGE": "none",
	}
}

// HostileRequestEnv is the environment of TestHostileRequest, run from
// the repository's root: a stale and an unclaimed request whose request_id
// and claimed_by hold workflow commands, property separators, %-escapes
// and HTML, under gate latest (a request is unhealthy under either gate).
func HostileRequestEnv() map[string]string {
	return map[string]string{
		"INPUT_EVENTS":   "testdata/action/hostile_request.jsonl",
		"INPUT_PIPELINE": "testdata/logs/pipeline.yaml",
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		"INPUT_GATE":     "latest",
		"INPUT_MAX-AGE":  "none",
	}
}

// CheckHostile checks the step of a run with HostileEnv or
// HostileRequestEnv: none of the log's text forges a workflow command, an
// output or markup, and each of its two problems (two failed stages; a
// stale and an unclaimed request) has its annotation.
func CheckHostile(t *testing.T, got Step) {
	t.Helper()
	if got.Exit != 1 {
		t.Errorf("exit %d, want 1", got.Exit)
	}
	// Step log: every line outside the stop-commands block is one of ours.
	lines := strings.Split(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	if lines[0] != "::stop-commands::"+Token {
		t.Fatalf("first line %q does not stop commands", lines[0])
	}
	end := -1
	for i, l := range lines[1:] {
		if l == "::"+Token+"::" {
			end = i + 1
			break
		}
	}
	if end < 0 {
		t.Fatal("commands are never resumed")
	}
	for _, l := range lines[end+1:] {
		if !strings.HasPrefix(l, "::error file=testdata/") {
			t.Errorf("step log line outside the stop-commands block is not a greenlight annotation: %q", l)
		}
		if strings.Count(l, "::") < 2 || strings.ContainsAny(l, "\r") {
			t.Errorf("malformed annotation %q", l)
		}
		// The properties end at the first "::"; log text in them is escaped,
		// so the title cannot hold "::" nor a second property.
		props, _, _ := strings.Cut(strings.TrimPrefix(l, "::error "), "::")
		if n := strings.Count(props, ","); n != 2 {
			t.Errorf("annotation properties %q hold %d commas, want 2 (file, line, title)", props, n)
		}
	}
	if n := len(lines) - end - 1; n != 2 {
		t.Errorf("%d annotations, want 2 (one per problem)", n)
	}
	// GITHUB_OUTPUT: exactly greenlight's outputs, each once.
	if names := OutputNames(t, got.Output); !reflect.DeepEqual(names, AllOutputs) {
		t.Errorf("outputs %q, want %q", names, AllOutputs)
	}
	if !strings.Contains(got.Output, "\nverdict<<_GitHubActionsFileCommandDelimeter_\nunhealthy\n") {
		t.Errorf("verdict output is not unhealthy:\n%s", got.Output)
	}
	// Job summary: no raw HTML, link or image, and only our code fence.
	for _, bad := range []string{"<img", "<script", "</details", "](http", "\n::", "\n##[", "%%{"} {
		if strings.Contains(got.Summary, bad) {
			t.Errorf("job summary holds %q", bad)
		}
	}
	if n := strings.Count(got.Summary, "```"); n != 2 {
		t.Errorf("job summary holds %d code fences, want 2 (the gantt chart)", n)
	}
}

// OutputsThroughEngines: with every engine, a report naming the
// event log or the snapshot naming the definition is refused, exit 2, and
// the file keeps its bytes; a report in a missing directory of the
// workspace is written, the directory created.
func OutputsThroughEngines(t *testing.T, engines []Engine) {
	const log = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n"
	const pipeline = "pipeline: p\nstages:\n  - {id: 1}\n"
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
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
				got := e.Run(t, c.env)
				if got.Exit != 2 || !strings.Contains(got.Stdout, "::error::greenlight action: "+c.want+"\n") {
					t.Errorf("exit %d, step log %s\nwant exit 2 and %s", got.Exit, got.Stdout, c.want)
				}
			}
			if b, _ := os.ReadFile(events); string(b) != log {
				t.Errorf("the event log changed to %.100q", b)
			}
			if b, _ := os.ReadFile(def); string(b) != pipeline {
				t.Errorf("the definition changed to %.100q", b)
			}
			sarif := filepath.Join(ws, "out", "reports", "g.sarif")
			if got := e.Run(t, with("INPUT_REPORTS", "sarif="+sarif)); got.Exit != 1 { // valid and unhealthy: a stalled run
				t.Errorf("reports sarif=out/reports/g.sarif: exit %d, step log %s", got.Exit, got.Stdout)
			}
			if _, err := os.Stat(sarif); err != nil {
				t.Errorf("the report in a missing directory: %v", err)
			}
		})
	}
}

// SourceCopy returns a directory holding a copy of the files git tracks in
// repo (as they are in the worktree), without dist/ or any other build
// output: what a ref without a release holds. It skips the test without
// git.
func SourceCopy(t *testing.T, repo string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed, so the tracked files cannot be listed")
	}
	files, err := exec.Command("git", "-C", repo, "ls-files", "-z", "--cached").Output()
	if err != nil {
		t.Skipf("SKIP: not a git checkout (%v)", err)
	}
	dir := filepath.Join(t.TempDir(), "elsewhere", "greenlight")
	for _, name := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(repo, name))
		if os.IsNotExist(err) {
			continue // deleted in the worktree, not yet committed
		}
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Snapshot: with every engine, started in the repository root (root, from
// the test's directory), a valid log's snapshot is written atomically with
// the same bytes as the checker's golden; an invalid log leaves the
// previous one; a snapshot that cannot be written fails the step before
// the log's annotations.
func Snapshot(t *testing.T, root string, engines []Engine) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) { snapshotWith(t, root, e.Run) })
	}
}

// readSnapshot reads a snapshot file with its tool version as the golden
// has it: the release layout's module is stamped v0.0.0-test
// (scripts/build-dist.sh), the in-process action is a test binary, devel.
func readSnapshot(path string) ([]byte, error) {
	doc, err := os.ReadFile(path)
	return bytes.Replace(doc, []byte(`"version": "v0.0.0-test"`), []byte(`"version": "devel"`), 1), err
}

// snapshotWith is Snapshot with one engine. The snapshots live under
// RUNNER_TEMP, which the JavaScript action lets the module write.
func snapshotWith(t *testing.T, root string, runAction func(*testing.T, map[string]string) Step) {
	want, err := os.ReadFile(filepath.Join(root, "testdata/logs/retry_then_success.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	temp := t.TempDir()
	path := temp + "/health.json"
	got := runAction(t, map[string]string{
		"INPUT_EVENTS":   "testdata/logs/retry_then_success.jsonl",
		"INPUT_PIPELINE": "testdata/logs/pipeline.yaml",
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		"INPUT_SNAPSHOT": path,
		"RUNNER_TEMP":    temp,
		// Reporting, not gating: the golden is check's snapshot, which
		// declares no freshness expectation.
		"INPUT_FAIL-ON-UNHEALTHY": "false",
	})
	if got.Exit != 0 {
		t.Fatalf("exit %d:\n%s", got.Exit, got.Stdout)
	}
	if doc, err := readSnapshot(path); err != nil || string(doc) != string(want) {
		t.Errorf("snapshot differs from the golden (err %v):\n%s", err, doc)
	}
	if !strings.Contains(got.Output, "\nsnapshot<<_GitHubActionsFileCommandDelimeter_\n"+path+"\n") {
		t.Errorf("snapshot output is not %s:\n%s", path, got.Output)
	}
	got = runAction(t, map[string]string{
		"INPUT_EVENTS":            "testdata/logs/stage2_before_stage1.jsonl",
		"INPUT_PIPELINE":          "testdata/logs/pipeline.yaml",
		"INPUT_NOW":               "2026-01-01T12:00:00Z",
		"INPUT_SNAPSHOT":          path,
		"RUNNER_TEMP":             temp,
		"INPUT_FAIL-ON-UNHEALTHY": "false",
	})
	if got.Exit != 2 {
		t.Errorf("invalid log: exit %d, want 2", got.Exit)
	}
	if doc, _ := readSnapshot(path); string(doc) != string(want) {
		t.Errorf("an invalid log changed the snapshot:\n%s", doc)
	}
	if !strings.Contains(got.Output, "\nsnapshot<<_GitHubActionsFileCommandDelimeter_\n\n") {
		t.Errorf("snapshot output is not empty for an invalid log:\n%s", got.Output)
	}
	// A snapshot that cannot be written (its parent is a file) fails the
	// step (exit 2, verdict invalid) and its error comes before the log's
	// annotations.
	notDir := temp + "/not-a-directory"
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got = runAction(t, map[string]string{
		"INPUT_EVENTS":   "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE": "testdata/sample/pipeline.yaml",
		"INPUT_NOW":      "2026-11-28T06:00:00Z",
		"INPUT_SNAPSHOT": notDir + "/health.json",
		"RUNNER_TEMP":    temp,
	})
	if got.Exit != 2 {
		t.Errorf("unwritable snapshot: exit %d, want 2", got.Exit)
	}
	_, after, _ := strings.Cut(got.Stdout, "::"+Token+"::\n")
	lines := strings.Split(strings.TrimSuffix(after, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "::error::greenlight action: cannot write ") || !strings.HasPrefix(lines[1], "::error file=testdata/sample/campaign_metrics.jsonl,line=24,") || !strings.HasPrefix(lines[2], "::error file=testdata/sample/campaign_metrics.jsonl,title=scheduled run missed%3A slot 2026-11-24T02%3A00%3A00Z::") {
		t.Errorf("annotations after the report:\n%s", after)
	}
	if !strings.Contains(got.Output, "\nverdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n") || !strings.Contains(got.Output, "\nsnapshot<<_GitHubActionsFileCommandDelimeter_\n\n") {
		t.Errorf("outputs after an unwritable snapshot:\n%s", got.Output)
	}
}
