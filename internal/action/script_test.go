package action

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The runner script's own functions (action/run.mjs), probed under node
// without a module: the environment and preopens it gives the module, when
// it tries the lean module first, and the memory it adds. The JavaScript
// action run whole (node, the script and the modules scripts/build-dist.sh
// builds) is tested in wasm/wasmtest (action_test.go), beside the other
// tests that build WebAssembly modules.

// TestRunnerEnvironment: the module gets every INPUT_* variable (so an input
// added to action.yml needs no change to the runner script), the three
// GITHUB_* variables action mode reads, PWD and the GC pacing, and nothing
// else; the
// preopens are the working directory, the workspace, the file-command
// directories and RUNNER_TEMP, without one nested in another; Windows paths
// become slash paths. A Windows runner is simulated with path.win32 on any
// host: the script's mapping, not node:wasi on Windows, is what this shows.
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
console.log(JSON.stringify(['D:\\a\\repo\\repo', 'c:/x', 'rel\\p'].map((p) => m.guestPath(p, 'win32'))));
const win = {INPUT_EVENTS: 'D:\\a\\repo\\repo\\logs\\x.jsonl', GITHUB_WORKSPACE: 'D:\\a\\repo\\repo', GITHUB_OUTPUT: 'D:\\a\\_temp\\_runner_file_commands\\set_output_1', GITHUB_STEP_SUMMARY: 'D:\\a\\_temp\\_runner_file_commands\\step_summary_1', RUNNER_TEMP: 'D:\\a\\_temp'};
console.log(JSON.stringify(m.moduleEnv(win, 'D:\\a\\repo\\repo', 'win32')));
console.log(JSON.stringify(m.preopens(win, 'D:\\a\\repo\\repo', 'win32')));`
	out, err := exec.Command("node", "--input-type=module", "-e", probe, "probe", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := `{"INPUT_EVENTS":"a.jsonl","INPUT_JOB-LOG":"j.jsonl","INPUT_ENGINE":"wasm","GITHUB_OUTPUT":"/r/_temp/cmd/out","GITHUB_STEP_SUMMARY":"/r/_temp/cmd/sum","GITHUB_WORKSPACE":"/r/w","PWD":"/r/w","GOGC":"400","GOMEMLIMIT":"3GiB"}
{"/r/w":"/r/w","/r/_temp":"/r/_temp"}
{"/r/w":"/r/w","/o":"/o","/s":"/s"}
["/D/a/repo/repo","/C/x","rel/p"]
{"INPUT_EVENTS":"D:\\a\\repo\\repo\\logs\\x.jsonl","GITHUB_OUTPUT":"/D/a/_temp/_runner_file_commands/set_output_1","GITHUB_STEP_SUMMARY":"/D/a/_temp/_runner_file_commands/step_summary_1","GITHUB_WORKSPACE":"/D/a/repo/repo","PWD":"/D/a/repo/repo","GOGC":"400","GOMEMLIMIT":"3GiB","GREENLIGHT_HOST_PATHS":"windows"}
{"/D/a/repo/repo":"D:\\a\\repo\\repo","/D/a/_temp":"D:\\a\\_temp"}
`
	if runtime.GOOS == "windows" {
		t.Skip("the probe's paths are POSIX paths")
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestLeanFirst: the runner script tries the lean module first in modes
// check and validate with the native input format and no job log,
// whatever the log's size; the corpus (TestWasmGolden) shows that every
// other case gives the same bytes either way.
func TestLeanFirst(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIP: node is not installed")
	}
	script := filepath.ToSlash(filepath.Join(repoRoot, "action", "run.mjs"))
	probe := `const m = await import(process.argv[2]);
for (const env of [
  {}, {INPUT_MODE: 'validate'}, {INPUT_MODE: 'check', 'INPUT_INPUT-FORMAT': 'native'},
  {INPUT_MODE: 'merge'}, {INPUT_MODE: ' merge '}, {'INPUT_INPUT-FORMAT': 'openlineage'},
  {'INPUT_JOB-LOG': 'jobs.jsonl'}, {'INPUT_JOB-LOG': ' '},
]) console.log(m.leanFirst(env));`
	out, err := exec.Command("node", "--input-type=module", "-e", probe, "probe", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "true\ntrue\ntrue\nfalse\nfalse\nfalse\nfalse\ntrue\n"; string(out) != want {
		t.Errorf("leanFirst gave\n%s\nwant\n%s", out, want)
	}
}

// TestMemoryPages: the runner script adds no memory for a log of up to
// 8 MiB (the Liftoff-only tier), the log's size and 64 MiB for a larger
// one, at most 1 GiB, and 256 MiB when the size is unknown, in 64 KiB
// pages; growMemory adds them to the instance's memory, and when the
// memory cannot grow that far it leaves it as it was without an error.
func TestMemoryPages(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIP: node is not installed")
	}
	script := filepath.ToSlash(filepath.Join(repoRoot, "action", "run.mjs"))
	probe := `const m = await import(process.argv[2]);
console.log([-1, 0, 8 << 20, (8 << 20) + 1, 136772542, 2 ** 31].map(m.memoryPages).join(' '));
const grown = { exports: { memory: new WebAssembly.Memory({ initial: 1 }) } };
m.growMemory(grown, 3);
m.growMemory(grown, 0);
const capped = { exports: { memory: new WebAssembly.Memory({ initial: 1, maximum: 2 }) } };
m.growMemory(capped, 3);
console.log(grown.exports.memory.buffer.byteLength >> 16, capped.exports.memory.buffer.byteLength >> 16);`
	out, err := exec.Command("node", "--input-type=module", "-e", probe, "probe", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "4096 0 0 1153 3111 16384\n4 1\n"; string(out) != want {
		t.Errorf("memoryPages and growMemory gave\n%s\nwant\n%s", out, want)
	}
}
