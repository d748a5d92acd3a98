package action

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The JavaScript action (action/run.mjs running the wasip1 module under
// node:wasi) is tested the way a runner runs it: node, the runner script and
// the module in the release layout (action/run.mjs beside dist/, built by
// scripts/build-dist.sh), the step's stdout a pipe, and only the variables a
// runner sets. Every comparison is with runAction, the native in-process
// action mode.

// tmpRoot holds what these tests build; TestMain removes it.
var tmpRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "greenlight-action-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tmpRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// release is the action in its release layout, built once per test binary.
var release struct {
	once sync.Once
	root string // holds action/run.mjs and dist/
	err  error
}

// releaseLayout builds dist/ with scripts/build-dist.sh into a fresh action
// root beside a copy of action/run.mjs and returns the root. It skips the
// test under -short or without node.
func releaseLayout(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the wasip1 module and runs node; skipped with -short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIP: node is not installed, so the JavaScript action is not tested (apt-get install nodejs)")
	}
	release.once.Do(func() {
		root := filepath.Join(tmpRoot, "release")
		if err := os.MkdirAll(filepath.Join(root, "action"), 0o755); err != nil {
			release.err = err
			return
		}
		script, err := os.ReadFile(filepath.Join(repoRoot, "action", "run.mjs"))
		if err == nil {
			err = os.WriteFile(filepath.Join(root, "action", "run.mjs"), script, 0o644)
		}
		if err != nil {
			release.err = err
			return
		}
		cmd := exec.Command("sh", "scripts/build-dist.sh", "-o", filepath.Join(root, "dist"), "v0.0.0-test")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			release.err = fmt.Errorf("scripts/build-dist.sh: %v\n%s", err, out)
			return
		}
		release.root = root
	})
	if release.err != nil {
		t.Fatal(release.err)
	}
	return release.root
}

// wasmHeader is the runner script's first line in the release layout.
var wasmHeader = regexp.MustCompile(`^greenlight v0\.0\.0-test, engine wasm: released module dist/greenlight-wasip1\.wasm \(sha256 checked\) under node v[0-9.]+\n`)

// stopToken finds the random stop-commands token in a step log.
var stopToken = regexp.MustCompile(`(?m)^::stop-commands::([0-9a-f]{32})$`)

// runWasmAction is runAction through the JavaScript action: node runs
// action/run.mjs in the repository root with stdout a pipe. The
// environment holds PATH, env (with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// fresh files unless env sets them; "-" unsets) and two variables the
// module must not see. When env has no INPUT_NOW, fixed_clock.mjs makes the
// module's wall clock read wallClock. The runner's first line is checked
// and removed, and the random token replaced by testToken, so that the
// result compares with runAction's.
func runWasmAction(t *testing.T, env map[string]string) run {
	t.Helper()
	root := releaseLayout(t)
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
	args := []string{filepath.Join(root, "action", "run.mjs")}
	cmdEnv := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_TOKEN=not-for-the-module", "GREENLIGHT_SECRET=not-for-the-module"}
	if _, ok := vars["INPUT_NOW"]; !ok {
		args = append([]string{"--import", filepath.Join(repoRoot, "testdata", "action", "fixed_clock.mjs")}, args...)
		cmdEnv = append(cmdEnv, "GREENLIGHT_TEST_WALL_CLOCK="+wallClock.Format("2006-01-02T15:04:05Z"))
	}
	for k, v := range vars {
		cmdEnv = append(cmdEnv, k+"="+v)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = repoRoot
	cmd.Env = cmdEnv
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Errorf("the runner wrote to stderr:\n%s", stderr.Bytes())
	}
	log := stdout.String()
	header := wasmHeader.FindString(log)
	if header == "" {
		t.Fatalf("step log does not start with the runner's line:\n%.300s", log)
	}
	log = strings.TrimPrefix(log, header)
	if m := stopToken.FindStringSubmatch(log); m != nil {
		log = strings.ReplaceAll(log, m[1], testToken)
	}
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
	return run{exit: code, stdout: log, output: read("GITHUB_OUTPUT"), summary: read("GITHUB_STEP_SUMMARY")}
}

// engines are the two ways the tests run action mode: in-process (the
// native binary's code) and through the JavaScript action.
var engines = []struct {
	name string
	run  func(*testing.T, map[string]string) run
}{
	{"native", runAction},
	{"wasm", runWasmAction},
}

// diffRuns reports every part of got that differs from want.
func diffRuns(t *testing.T, got, want run) {
	t.Helper()
	if got.exit != want.exit {
		t.Errorf("exit %d, native in-process %d", got.exit, want.exit)
	}
	for _, p := range []struct{ name, got, want string }{
		{"step log", got.stdout, want.stdout},
		{"GITHUB_OUTPUT", got.output, want.output},
		{"GITHUB_STEP_SUMMARY", got.summary, want.summary},
	} {
		if p.got != p.want {
			t.Errorf("%s differs\n--- wasm\n%.2000s\n--- native in-process\n%.2000s", p.name, p.got, p.want)
		}
	}
}

// TestWasmGolden runs every scenario of testdata/action/*.txtar through the
// JavaScript action and compares exit code, step log, outputs and job
// summary byte for byte with the native in-process run.
func TestWasmGolden(t *testing.T) {
	releaseLayout(t)
	paths, err := filepath.Glob("../../testdata/action/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	codes := map[int]int{}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			env := scenarioEnv(t, path)
			want := runAction(t, env)
			got := runWasmAction(t, env)
			codes[want.exit]++
			diffRuns(t, got, want)
		})
	}
	for _, c := range []int{0, 1, 2} {
		if codes[c] == 0 {
			t.Errorf("no scenario exited %d; exit codes seen: %v", c, codes)
		}
	}
}

// TestWasmMillionEvents: a 1,000,000-event log through the JavaScript action
// with stdout a pipe, as on a runner. Both node:wasi defects show here
// without the runner's workarounds: the abort in fd_read (nodejs/node#46777)
// a few hundred thousand lines in, and "write /dev/stdout: Try again" once
// the step log passes the pipe's 64 KB. The result must equal the native
// in-process run's.
func TestWasmMillionEvents(t *testing.T) {
	releaseLayout(t)
	logPath := filepath.Join(t.TempDir(), "million.jsonl")
	if err := writeMillionLog(logPath); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"INPUT_EVENTS": logPath,
		"INPUT_STAGES": "1,2",
		"INPUT_NOW":    "2026-12-01T00:00:00Z",
		"RUNNER_TEMP":  filepath.Dir(logPath),
	}
	want := runAction(t, env)
	if want.exit != 1 || len(want.stdout) < 1<<20 {
		t.Fatalf("native in-process: exit %d and %d bytes of step log, want exit 1 and over 1 MiB", want.exit, len(want.stdout))
	}
	diffRuns(t, runWasmAction(t, env), want)
}

// writeMillionLog writes a valid two-stage log of 1,000,000 events: 250,000
// runs, each stage 1 then stage 2 succeeding, except every 1000th run, whose
// stage 2 fails, so that the step log lists thousands of failed runs.
func writeMillionLog(path string) error {
	var b bytes.Buffer
	for r := range 250000 {
		ts := func(min int) string {
			sec := r*4 + min
			return fmt.Sprintf("2026-01-%02dT%02d:%02d:%02dZ", 1+sec/86400, sec/3600%24, sec/60%60, sec%60)
		}
		id := fmt.Sprintf("run-%06d", r)
		fmt.Fprintf(&b, `{"run_id":%q,"stage":1,"attempt":1,"status":"started","timestamp_utc":%q}`+"\n", id, ts(0))
		fmt.Fprintf(&b, `{"run_id":%q,"stage":1,"attempt":1,"status":"succeeded","timestamp_utc":%q}`+"\n", id, ts(1))
		fmt.Fprintf(&b, `{"run_id":%q,"stage":2,"attempt":1,"status":"started","timestamp_utc":%q}`+"\n", id, ts(2))
		if r%1000 == 999 {
			fmt.Fprintf(&b, `{"run_id":%q,"stage":2,"attempt":1,"status":"failed","timestamp_utc":%q,"returncode":1,"error":"disk full"}`+"\n", id, ts(3))
		} else {
			fmt.Fprintf(&b, `{"run_id":%q,"stage":2,"attempt":1,"status":"succeeded","timestamp_utc":%q}`+"\n", id, ts(3))
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// TestRunnerEnvironment: the module gets every INPUT_* variable (so an input
// added to action.yml needs no change to the runner script), the three
// GITHUB_* variables action mode reads and PWD, and nothing else; the
// preopens are the working directory, the workspace, the file-command
// directories and RUNNER_TEMP, without one nested in another; Windows paths
// become slash paths.
func TestRunnerEnvironment(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIP: node is not installed")
	}
	script := filepath.ToSlash(filepath.Join(repoRoot, "action", "run.mjs"))
	probe := `const m = await import(process.argv[2]);
const env = {INPUT_EVENTS: 'a.jsonl', 'INPUT_JOB-LOG': 'j.jsonl', INPUT_ENGINE: 'wasm', GITHUB_OUTPUT: '/r/_temp/cmd/out', GITHUB_STEP_SUMMARY: '/r/_temp/cmd/sum', GITHUB_WORKSPACE: '/r/w', GITHUB_TOKEN: 'x', RUNNER_TEMP: '/r/_temp', HOME: '/root', GREENLIGHT_SECRET: 'x'};
console.log(JSON.stringify(m.moduleEnv(env, '/r/w')));
console.log(JSON.stringify(m.preopens(env, '/r/w')));
console.log(JSON.stringify(m.preopens({GITHUB_OUTPUT: '/o/out', GITHUB_STEP_SUMMARY: '/s/sum'}, '/r/w')));
console.log(JSON.stringify(['D:\\a\\repo\\repo', 'c:/x', 'rel\\p'].map((p) => m.guestPath(p, 'win32'))));`
	out, err := exec.Command("node", "--input-type=module", "-e", probe, "probe", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := `{"INPUT_EVENTS":"a.jsonl","INPUT_JOB-LOG":"j.jsonl","INPUT_ENGINE":"wasm","GITHUB_OUTPUT":"/r/_temp/cmd/out","GITHUB_STEP_SUMMARY":"/r/_temp/cmd/sum","GITHUB_WORKSPACE":"/r/w","PWD":"/r/w"}
{"/r/w":"/r/w","/r/_temp":"/r/_temp"}
{"/r/w":"/r/w","/o":"/o","/s":"/s"}
["/D/a/repo/repo","/C/x","rel/p"]
`
	if runtime.GOOS == "windows" {
		t.Skip("the probe's paths are POSIX paths")
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestWasmEngineInput: an engine other than wasm or native is refused
// before anything runs.
func TestWasmEngineInput(t *testing.T) {
	root := releaseLayout(t)
	cmd := exec.Command("node", filepath.Join(root, "action", "run.mjs"))
	cmd.Dir = repoRoot
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "INPUT_ENGINE=docker::x", "INPUT_EVENTS=a.jsonl"}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("err %v, want exit 2", err)
	}
	if want := "::error::greenlight action: engine \"docker??x\": use wasm or native\n"; string(out) != want {
		t.Errorf("step log %q, want %q", out, want)
	}
}
