package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGuestPath: Windows paths map to the module's view as action/run.mjs
// maps its preopens (TestRunnerEnvironment runs the script's guestPath on
// the first three).
func TestGuestPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`D:\a\repo\repo`, "/D/a/repo/repo"},
		{"c:/x", "/C/x"},
		{`rel\p`, "rel/p"},
		{`D:\a\repo\repo\logs\x.jsonl`, "/D/a/repo/repo/logs/x.jsonl"},
		{`d:\a\_temp\health.json`, "/D/a/_temp/health.json"},
		{`D:\`, "/D/"},
		{`logs\**\*.jsonl`, "logs/**/*.jsonl"},
		{"logs/x.jsonl", "logs/x.jsonl"},
		{"/already/posix", "/already/posix"},
		{`1:\not\a\drive`, "1:/not/a/drive"},
		{"", ""},
	} {
		if got := GuestPath(c.in); got != c.want {
			t.Errorf("GuestPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWindowsInputPaths: with GREENLIGHT_HOST_PATHS=windows, as the runner
// script sets it in the module on a Windows runner, the path inputs are
// Windows paths: action mode opens them in the module's view (slashes),
// while the snapshot output keeps the path as the workflow gave it.
// Without the variable a backslash is part of a POSIX file name.
func TestWindowsInputPaths(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []struct{ from, to string }{
		{"testdata/logs/retry_then_success.jsonl", "logs/x.jsonl"},
		{"testdata/logs/pipeline.yaml", "defs/pipeline.yaml"},
	} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f.from))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(ws, f.to)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(ws, f.to), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		HostPathsVar:     "windows",
		"INPUT_EVENTS":   `logs\*.jsonl`,
		"INPUT_PIPELINE": `defs\pipeline.yaml`,
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		"INPUT_SNAPSHOT": `out\health.json`,
		"INPUT_REPORTS":  `junit=out\junit.xml`,
		// Windows paths are the subject, not freshness.
		"INPUT_MAX-AGE": "none",
	}
	got := runActionIn(t, ws, env)
	if got.exit != 0 {
		t.Fatalf("exit %d:\n%s", got.exit, got.stdout)
	}
	for _, f := range []string{"out/health.json", "out/junit.xml"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if want := "\nsnapshot<<_GitHubActionsFileCommandDelimeter_\nout\\health.json\n"; !strings.Contains(got.output, want) {
		t.Errorf("snapshot output is not the input as given:\n%s", got.output)
	}
	delete(env, HostPathsVar)
	got = runActionIn(t, ws, env)
	if want := "::error::greenlight action: cannot read the pipeline definition: open \"defs\\\\pipeline.yaml\": no such file or directory\n"; got.exit != 2 || got.stdout != want {
		t.Errorf("without %s: exit %d, step log %q; want exit 2, %q", HostPathsVar, got.exit, got.stdout, want)
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
			code, log, output := runNode(t, root, env)
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
