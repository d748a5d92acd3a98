package actiontest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/internal/action"
)

// The JavaScript action (action/run.mjs running the wasip1 module under
// node:wasi) is tested the way a runner runs it: node, the runner script and
// the module in the release layout (action/run.mjs beside dist/, built by
// scripts/build-dist.sh), the step's stdout a pipe, and only the variables a
// runner sets. Every comparison is with runAction, the native in-process
// action mode.
// These tests build the release layout's modules and run node, so they
// live in this test module, not beside internal/action, whose own tests run
// action mode in-process only.

// testToken is the stop-commands token of every test run.
const testToken = steptest.Token

// wallClock is what the action sees as the wall clock in tests that leave
// the now input empty.
var wallClock = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// repoRoot is the repository's root, where every run starts, so that paths
// in the output are the same on every machine.
var repoRoot, _ = filepath.Abs(root)

// run is one run of the action (steptest.Step).
type run = steptest.Step

// runAction runs action mode (internal/action's Main) in this process in
// the repository root with the given environment
// (INPUT_* and any other variable). GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// point at fresh files unless env sets them; "-" in env means unset.
func runAction(t *testing.T, env map[string]string) run {
	t.Helper()
	return runActionIn(t, repoRoot, env)
}

// runActionIn is runAction started in the directory wd.
func runActionIn(t *testing.T, wd string, env map[string]string) run {
	t.Helper()
	t.Chdir(wd)
	vars := steptest.Vars(t, env)
	var stdout bytes.Buffer
	gh := githubactions.New(githubactions.WithWriter(&stdout), githubactions.WithGetenv(func(k string) string { return vars[k] }))
	code := action.Main(action.Env{GH: gh, Now: func() time.Time { return wallClock }, Token: func() (string, error) { return testToken, nil }})
	return steptest.Read(t, vars, code, stdout.String())
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
func releaseLayout(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the wasip1 module and runs node; skipped with -short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIP: node is not installed, so the JavaScript action is not tested (apt-get install nodejs)")
	}
	release.once.Do(func() {
		root := filepath.Join(workDir, "release")
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

// fullOnly is the release layout without the lean module, made once per
// test binary: the runner script then runs the full module at once.
var fullOnly struct {
	once sync.Once
	root string
	err  error
}

// fullOnlyLayout returns an action root like releaseLayout's, but whose
// dist/ lacks greenlight-wasip1-lean.wasm, as a release before the lean
// module had it: so the tests see the full module's bytes for every
// scenario the lean module finishes on its own.
func fullOnlyLayout(t testing.TB) string {
	t.Helper()
	base := releaseLayout(t)
	fullOnly.once.Do(func() {
		root := filepath.Join(workDir, "full-only")
		for _, f := range []string{"action/run.mjs", "dist/greenlight-wasip1.wasm", "dist/greenlight-wasip1.wasm.sha256", "dist/VERSION"} {
			b, err := os.ReadFile(filepath.Join(base, f))
			if err == nil {
				err = os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(root, f), b, 0o644)
			}
			if err != nil {
				fullOnly.err = err
				return
			}
		}
		fullOnly.root = root
	})
	if fullOnly.err != nil {
		t.Fatal(fullOnly.err)
	}
	return fullOnly.root
}

// wasmHeader is the runner script's first line in the release layout; its
// group 1 names the module that ran and group 2 is set when the lean
// module handed over to the full one.
var wasmHeader = regexp.MustCompile(`^greenlight v0\.0\.0-test, engine wasm, node v[0-9]+\.[0-9]+\.[0-9]+: ran dist/(greenlight-wasip1(?:-lean)?\.wasm) \(sha256 checked\)(; dist/greenlight-wasip1-lean\.wasm handed over to it, having met a document that needs the JSON Schema validator)?\n`)

// The paths through the runner script, as wasmHeader tells them.
const (
	pathLean     = "lean module"
	pathHandOver = "lean module, then the full module"
	pathFull     = "full module"
)

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
	got, _ := runWasmIn(t, releaseLayout(t), env)
	return got
}

// runWasmFull is runWasmAction with the full module only (fullOnlyLayout).
func runWasmFull(t *testing.T, env map[string]string) run {
	t.Helper()
	got, path := runWasmIn(t, fullOnlyLayout(t), env)
	if path != pathFull {
		t.Errorf("without the lean module the runner script ran the %s", path)
	}
	return got
}

// runWasmIn is runWasmAction from the action root given; it also returns
// which path the runner script took (pathLean, pathHandOver or pathFull).
func runWasmIn(t *testing.T, root string, env map[string]string) (run, string) {
	t.Helper()
	vars := steptest.Vars(t, env)
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
	h := wasmHeader.FindStringSubmatch(log)
	if h == nil {
		t.Fatalf("step log does not start with the runner's line:\n%.300s", log)
	}
	path := pathFull
	switch {
	case h[1] == "greenlight-wasip1-lean.wasm":
		path = pathLean
	case h[2] != "":
		path = pathHandOver
	}
	log = strings.TrimPrefix(log, h[0])
	if m := stopToken.FindStringSubmatch(log); m != nil {
		log = strings.ReplaceAll(log, m[1], testToken)
	}
	return steptest.Read(t, vars, code, log), path
}

// engines are the ways these tests run action mode through the JavaScript
// action: the lean module first where the runner script tries it, and the
// full module only. internal/action's tests run the same cases in-process
// (its engines), which these compare with.
var engines = []steptest.Engine{
	{Name: "wasm", Run: runWasmAction},
	{Name: "wasm-full", Run: runWasmFull},
}

// diffRuns reports every part of got that differs from want.
func diffRuns(t *testing.T, got, want run) {
	t.Helper()
	if got.Exit != want.Exit {
		t.Errorf("exit %d, native in-process %d", got.Exit, want.Exit)
	}
	for _, p := range []struct{ name, got, want string }{
		{"step log", got.Stdout, want.Stdout},
		{"GITHUB_OUTPUT", got.Output, want.Output},
		{"GITHUB_STEP_SUMMARY", got.Summary, want.Summary},
	} {
		if p.got != p.want {
			t.Errorf("%s differs\n--- wasm\n%.2000s\n--- native in-process\n%.2000s", p.name, p.got, p.want)
		}
	}
}

// TestWasmGolden runs every scenario of testdata/action/*.txtar through the
// JavaScript action, as released (the lean module first where the runner
// script tries it, handing over to the full module when a document needs
// the JSON Schema validator) and with the full module only, and compares
// exit code, step log, outputs and job summary byte for byte with the
// native in-process run. The corpus must take each path at least once.
func TestWasmGolden(t *testing.T) {
	releaseLayout(t)
	paths, err := filepath.Glob(root + "/testdata/action/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	codes := map[int]int{}
	taken := map[string]int{}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			env := steptest.ScenarioEnv(t, path)
			want := runAction(t, env)
			got, path := runWasmIn(t, releaseLayout(t), env)
			codes[want.Exit]++
			taken[path]++
			diffRuns(t, got, want)
			t.Run("full", func(t *testing.T) { diffRuns(t, runWasmFull(t, env), want) })
		})
	}
	for _, c := range []int{0, 1, 2} {
		if codes[c] == 0 {
			t.Errorf("no scenario exited %d; exit codes seen: %v", c, codes)
		}
	}
	for _, p := range []string{pathLean, pathHandOver, pathFull} {
		if taken[p] == 0 {
			t.Errorf("no scenario ran the %s; paths taken: %v", p, taken)
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
		// The action reads only files inside the workspace.
		"GITHUB_WORKSPACE": filepath.Dir(logPath),
		// The log's size is the subject, not freshness: without an
		// expectation the gate refuses (exit 2) before reading it.
		"INPUT_MAX-AGE": "none",
	}
	want := runAction(t, env)
	if want.Exit != 1 || len(want.Stdout) < 64<<10 {
		t.Fatalf("native in-process: exit %d and %d bytes of step log, want exit 1 and over the pipe's 64 KiB", want.Exit, len(want.Stdout))
	}
	// The lean module runs it, hashing the log with node's SHA-256
	// (hostImports); the snapshot's digest is in the job summary.
	got, path := runWasmIn(t, releaseLayout(t), env)
	if path != pathLean {
		t.Errorf("the runner script ran the %s, want the lean module", path)
	}
	diffRuns(t, got, want)
}

// writeMillionLog writes a valid two-stage log of 1,000,000 events: 250,000
// runs, each stage 1 then stage 2 succeeding, except every 1000th run, whose
// stage 2 fails with an error of 4.4 KB, so that the step log, which lists
// the latest 20 failed runs, is well over a pipe's 64 KiB.
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
			fmt.Fprintf(&b, `{"run_id":%q,"stage":2,"attempt":1,"status":"failed","timestamp_utc":%q,"returncode":1,"error":%q}`+"\n", id, ts(3), strings.Repeat("disk full; ", 400))
		} else {
			fmt.Fprintf(&b, `{"run_id":%q,"stage":2,"attempt":1,"status":"succeeded","timestamp_utc":%q}`+"\n", id, ts(3))
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// TestWasmEngineInput: an engine other than wasm or native is refused
// before anything runs, as action mode refuses a bad input: one error
// annotation, the verdict output invalid, exit 2.
func TestWasmEngineInput(t *testing.T) {
	root := releaseLayout(t)
	code, log, output := runActionNode(t, root, map[string]string{"INPUT_ENGINE": "docker::x", "INPUT_EVENTS": "a.jsonl"})
	if want := "::error::greenlight action: engine \"docker??x\": use wasm or native\n"; code != 2 || log != want || output != invalidOutput {
		t.Errorf("exit %d, step log %q, outputs %q; want exit 2, %q, verdict invalid", code, log, output, want)
	}
}

// invalidOutput is GITHUB_OUTPUT when only the verdict invalid was set.
const invalidOutput = "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n_GitHubActionsFileCommandDelimeter_\n"

// BenchmarkJSActionSample times the JavaScript action on the README's
// 27-line sample from node's start to its exit, as a runner starts the step
// (the budget is 300 ms), and the native binary's action mode beside it.
// bench/action.sh runs it with the 1M-log comparison.
func BenchmarkJSActionSample(b *testing.B) {
	env := map[string]string{
		"INPUT_EVENTS":   "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE": "testdata/sample/pipeline.yaml",
		"INPUT_NOW":      "2026-11-28T06:00:00Z",
	}
	benchEngines(b, env, 1)
}

// BenchmarkJSActionLog times the JavaScript action and the native binary's
// action mode on the two-stage log GREENLIGHT_BENCH_LOG names (e.g.
// genlog.py --events 1000000 --seed 1) and reports their ratio (target: at
// most 6).
func BenchmarkJSActionLog(b *testing.B) {
	logPath := os.Getenv("GREENLIGHT_BENCH_LOG")
	if logPath == "" {
		b.Skip("set GREENLIGHT_BENCH_LOG to a two-stage log")
	}
	abs, err := filepath.Abs(logPath)
	if err != nil {
		b.Fatal(err)
	}
	benchEngines(b, map[string]string{"INPUT_EVENTS": abs, "INPUT_STAGES": "1,2", "INPUT_NOW": "2026-12-01T00:00:00Z", "RUNNER_TEMP": filepath.Dir(abs)}, 0)
}

// benchEngines runs node action/run.mjs and the native binary's action mode
// alternately b.N times each, with stdout a pipe, and reports both mean
// wall times and their ratio. want is the exit code both must give, or 0
// to accept 0 and 1.
func benchEngines(b *testing.B, env map[string]string, want int) {
	root := releaseLayout(b)
	native := filepath.Join(workDir, "greenlight-native")
	if _, err := os.Stat(native); err != nil {
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", native, "./cmd/greenlight")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	dir := b.TempDir()
	vars := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary")}
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	runOnce := func(name string, args ...string) time.Duration {
		for _, f := range []string{"output", "summary"} {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		cmd := exec.Command(name, args...)
		cmd.Dir = repoRoot
		cmd.Env = vars
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			b.Fatal(err)
		}
		if code != want && (want != 0 || code > 1) {
			b.Fatalf("%s exited %d, want %d:\n%.500s", name, code, want, out.Bytes())
		}
		return d
	}
	var wasm, nat time.Duration
	for b.Loop() {
		wasm += runOnce("node", filepath.Join(root, "action", "run.mjs"))
		nat += runOnce(native, "action")
	}
	b.ReportMetric(wasm.Seconds()*1000/float64(b.N), "wasm-ms/op")
	b.ReportMetric(nat.Seconds()*1000/float64(b.N), "native-ms/op")
	b.ReportMetric(float64(wasm)/float64(nat), "wasm/native")
}

// nativeRelease is a release layout whose dist/ also has checksums.txt and
// REPOSITORY, as release.yml writes them, and a server that serves the
// native binary as the release's asset; tampered serves other bytes under
// the name of the asset.
func nativeRelease(t *testing.T, tampered bool) (root, serverURL string) {
	t.Helper()
	base := releaseLayout(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the test serves a POSIX binary")
	}
	goarch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	if goarch == "" {
		t.Skipf("no native release for %s", runtime.GOARCH)
	}
	name := "greenlight-" + runtime.GOOS + "-" + goarch
	bin := filepath.Join(workDir, name)
	if _, err := os.Stat(bin); err != nil {
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "./cmd/greenlight")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	root = t.TempDir()
	for _, f := range []string{"action/run.mjs", "dist/greenlight-wasip1.wasm", "dist/greenlight-wasip1.wasm.sha256", "dist/VERSION"} {
		b, err := os.ReadFile(filepath.Join(base, f))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(root, f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256(data)
	sums := fmt.Sprintf("%x  %s\n%x  greenlight-other\n", sum, name, sha256.Sum256(nil))
	if err := os.WriteFile(filepath.Join(root, "dist", "checksums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "dist", "REPOSITORY"), []byte("owner/greenlight\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	served := data
	if tampered {
		served = append(append([]byte{}, data...), 0)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/owner/greenlight/releases/download/v0.0.0-test/"+name {
			http.NotFound(w, r)
			return
		}
		w.Write(served)
	}))
	t.Cleanup(srv.Close)
	return root, srv.URL
}

// runActionNode runs node root/action/run.mjs in the repository root with PATH
// and vars only, fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and
// returns the exit code, the step log and GITHUB_OUTPUT.
func runActionNode(t *testing.T, root string, vars map[string]string) (int, string, string) {
	t.Helper()
	step := steptest.Vars(t, vars)
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range step {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command("node", filepath.Join(root, "action", "run.mjs"))
	cmd.Dir = repoRoot
	cmd.Env = env
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := steptest.Read(t, step, code, string(out))
	return r.Exit, r.Stdout, r.Output
}

// TestNativeEngine: engine native downloads the release's native binary,
// checks it against dist/checksums.txt, keeps it in the tool cache (the
// second run does not download) and runs its action mode, with the same
// result as in-process; a binary that does not match is never run.
func TestNativeEngine(t *testing.T) {
	env := map[string]string{
		"INPUT_EVENTS":   "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE": "testdata/sample/pipeline.yaml",
		"INPUT_NOW":      "2026-11-28T06:00:00Z",
	}
	want := runAction(t, env)
	root, url := nativeRelease(t, false)
	vars := map[string]string{"INPUT_ENGINE": "native", "GITHUB_SERVER_URL": url, "RUNNER_TOOL_CACHE": t.TempDir()}
	for k, v := range env {
		vars[k] = v
	}
	for i, how := range []string{", downloaded from the release v0.0.0-test (sha256 matches dist/checksums.txt)", " from the tool cache (sha256 matches dist/checksums.txt)"} {
		code, log, output := runActionNode(t, root, vars)
		header, rest, _ := strings.Cut(log, "\n")
		if !strings.HasPrefix(header, "greenlight v0.0.0-test, engine native, node v") || !strings.Contains(header, ": ran greenlight-") || !strings.Contains(header, how) {
			t.Errorf("run %d: first line %q does not say the binary was %s", i+1, header, how)
		}
		if m := stopToken.FindStringSubmatch(rest); m != nil {
			rest = strings.ReplaceAll(rest, m[1], testToken)
		}
		if code != want.Exit || rest != want.Stdout || output != want.Output {
			t.Errorf("run %d: exit %d, step log\n%s\noutputs\n%s\nwant exit %d as in-process", i+1, code, rest, output, want.Exit)
		}
	}
	root, url = nativeRelease(t, true)
	vars["GITHUB_SERVER_URL"], vars["RUNNER_TOOL_CACHE"] = url, t.TempDir()
	code, log, output := runActionNode(t, root, vars)
	if code != 2 || !strings.HasPrefix(log, "::error::greenlight action: "+url+"/owner/greenlight/releases/download/v0.0.0-test/greenlight-") || !strings.Contains(log, "but dist/checksums.txt says") || output != invalidOutput {
		t.Errorf("tampered binary: exit %d, step log %q, outputs %q", code, log, output)
	}
}

// TestFromSource: a ref without dist/ builds the wasip1 module from source
// into the tool cache, says so in the step log's first line, gives the same
// result as in-process, and the next run finds the build by its key.
func TestFromSource(t *testing.T) {
	releaseLayout(t) // skips without node or with -short
	src := steptest.SourceCopy(t, repoRoot)
	env := map[string]string{
		"INPUT_EVENTS":   "testdata/logs/retry_then_success.jsonl",
		"INPUT_PIPELINE": "testdata/logs/pipeline.yaml",
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
	}
	want := runAction(t, env)
	// HOME: the Go toolchain keeps its caches there, as on a runner.
	vars := map[string]string{"RUNNER_TOOL_CACHE": t.TempDir(), "HOME": os.Getenv("HOME")}
	for k, v := range env {
		vars[k] = v
	}
	first := regexp.MustCompile(`^greenlight devel, engine wasm, (node v[0-9.]+): no dist/ in this ref: built the wasip1 module from source \(cache key ([0-9a-f]{16})\)\n`)
	code, log, output := runActionNode(t, src, vars)
	m := first.FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("first run: step log does not say it built from source:\n%.400s", log)
	}
	again := "greenlight devel, engine wasm, " + m[1] + ": no dist/ in this ref: ran the wasip1 module built from source earlier (cache key " + m[2] + ", " + filepath.Join(vars["RUNNER_TOOL_CACHE"], "greenlight-source", m[2], "greenlight-wasip1.wasm") + ")\n"
	for i, header := range []string{m[0], again} {
		if i == 1 {
			code, log, output = runActionNode(t, src, vars)
		}
		if !strings.HasPrefix(log, header) {
			t.Fatalf("run %d: step log starts\n%.300s\nwant\n%s", i+1, log, header)
		}
		_, rest, _ := strings.Cut(log, "\n")
		if tok := stopToken.FindStringSubmatch(rest); tok != nil {
			rest = strings.ReplaceAll(rest, tok[1], testToken)
		}
		if code != want.Exit || rest != want.Stdout || output != want.Output {
			t.Errorf("run %d: exit %d, step log\n%s\noutputs\n%s\nwant as in-process (exit %d)", i+1, code, rest, output, want.Exit)
		}
	}
}

// TestWasmOutsideView: under engine wasm a pipeline file, a snapshot or a
// report outside every preopened directory is refused with a message that
// says so and what to do, not Go's "Invalid argument" for such a path under
// WASI. The native engine can reach those paths, so there is nothing to
// compare with.
func TestWasmOutsideView(t *testing.T) {
	root := releaseLayout(t)
	temp := t.TempDir()
	outside := "/nonexistent-greenlight-dir"
	// The directories the module sees vary with the test's temporary
	// directories; they are checked to be listed, then replaced.
	seen := regexp.MustCompile(`\(the module sees only ([^)]*)\)`)
	base := map[string]string{
		"INPUT_EVENTS":   "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE": "testdata/sample/pipeline.yaml",
		"INPUT_NOW":      "2026-11-28T06:00:00Z",
		"RUNNER_TEMP":    temp,
	}
	for _, c := range []struct {
		name, input, value, want string
	}{
		{"pipeline", "INPUT_PIPELINE", outside + "/pipeline.yaml",
			"::error::greenlight action: cannot read /nonexistent-greenlight-dir/pipeline.yaml: the path is outside what the action may read with engine wasm, which is the workspace and RUNNER_TEMP (the module sees only DIRS); use a path there, or engine native\n"},
		{"snapshot", "INPUT_SNAPSHOT", outside + "/health.json",
			"::error::greenlight action: cannot write /nonexistent-greenlight-dir/health.json: the path is outside what the action may write with engine wasm, which is the workspace and RUNNER_TEMP (the module sees only DIRS); use a path there, or engine native\n"},
		{"report", "INPUT_REPORTS", "junit=" + outside + "/junit.xml",
			"::error::greenlight action: cannot write the junit report: cannot write /nonexistent-greenlight-dir/junit.xml: the path is outside what the action may write with engine wasm, which is the workspace and RUNNER_TEMP (the module sees only DIRS); use a path there, or engine native\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			env[c.input] = c.value
			code, log, output := runActionNode(t, root, env)
			var line string
			for _, l := range strings.SplitAfter(log, "\n") {
				if strings.HasPrefix(l, "::error::greenlight action: ") {
					line = l
				}
			}
			m := seen.FindStringSubmatch(line)
			if m == nil || !strings.Contains(m[1], repoRoot) || !strings.Contains(m[1], temp) {
				t.Fatalf("error line %q does not list the working directory %s and RUNNER_TEMP %s", line, repoRoot, temp)
			}
			line = strings.Replace(line, m[1], "DIRS", 1)
			if code != 2 || line != c.want || !strings.Contains(output, "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n") {
				t.Errorf("exit %d, error line\n%q\nwant exit 2, verdict invalid and\n%q\noutputs %q", code, line, c.want, output)
			}
		})
	}
}

// TestWasmVersion: the version the runner script logs in the step log's
// first line (dist/VERSION, TestWasmGolden checks the line) is the one the
// module itself was built with, as its version command prints it.
func TestWasmVersion(t *testing.T) {
	root := releaseLayout(t)
	probe := `import fs from 'node:fs';
process.removeAllListeners('warning');
const { WASI } = await import('node:wasi');
const wasi = new WASI({ version: 'preview1', args: ['greenlight', 'version'], env: {}, returnOnExit: true });
const m = await WebAssembly.compile(fs.readFileSync(process.argv[2]));
process.exitCode = wasi.start(await WebAssembly.instantiate(m, wasi.getImportObject()));`
	out, err := exec.Command("node", "--input-type=module", "-e", probe, "probe", filepath.Join(root, "dist", "greenlight-wasip1.wasm")).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	version, err := os.ReadFile(filepath.Join(root, "dist", "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "greenlight " + string(version); string(out) != want || want != "greenlight v0.0.0-test\n" {
		t.Errorf("the module says %q, dist/VERSION %q; want both v0.0.0-test", out, version)
	}
}
