package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// source is a copy of the tracked files, made once per test binary.
var source struct {
	once sync.Once
	dir  string
	err  error
}

// sourceCopy returns a directory holding a copy of the files git tracks (as
// they are in the worktree), without dist/ or any other build output: what
// a ref without a release holds. It skips the test without git.
func sourceCopy(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed, so the tracked files cannot be listed")
	}
	files, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "--cached").Output()
	if err != nil {
		t.Skipf("SKIP: not a git checkout (%v)", err)
	}
	source.once.Do(func() {
		dir := filepath.Join(tmpRoot, "elsewhere", "greenlight")
		for _, name := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
			data, err := os.ReadFile(filepath.Join(repoRoot, name))
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
				source.err = err
				return
			}
		}
		source.dir = dir
	})
	if source.err != nil {
		t.Fatal(source.err)
	}
	return source.dir
}

// TestFromSource: a ref without dist/ builds the wasip1 module from source
// into the tool cache, says so in the step log's first line, gives the same
// result as in-process, and the next run finds the build by its key.
func TestFromSource(t *testing.T) {
	releaseLayout(t) // skips without node or with -short
	src := sourceCopy(t)
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
	code, log, output := runNode(t, src, vars)
	m := first.FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("first run: step log does not say it built from source:\n%.400s", log)
	}
	again := "greenlight devel, engine wasm, " + m[1] + ": no dist/ in this ref: ran the wasip1 module built from source earlier (cache key " + m[2] + ", " + filepath.Join(vars["RUNNER_TOOL_CACHE"], "greenlight-source", m[2], "greenlight-wasip1.wasm") + ")\n"
	for i, header := range []string{m[0], again} {
		if i == 1 {
			code, log, output = runNode(t, src, vars)
		}
		if !strings.HasPrefix(log, header) {
			t.Fatalf("run %d: step log starts\n%.300s\nwant\n%s", i+1, log, header)
		}
		_, rest, _ := strings.Cut(log, "\n")
		if tok := stopToken.FindStringSubmatch(rest); tok != nil {
			rest = strings.ReplaceAll(rest, tok[1], testToken)
		}
		if code != want.exit || rest != want.stdout || output != want.output {
			t.Errorf("run %d: exit %d, step log\n%s\noutputs\n%s\nwant as in-process (exit %d)", i+1, code, rest, output, want.exit)
		}
	}
}

// maxTrackedBytes is the size no tracked file may exceed: built modules and
// binaries belong on release commits (dist/), never in main's history.
const maxTrackedBytes = 1 << 20

// TestNoLargeTrackedFiles: no file git tracks is over 1 MiB.
func TestNoLargeTrackedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed, so the tracked files cannot be listed")
	}
	files, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "--cached").Output()
	if err != nil {
		t.Skipf("SKIP: not a git checkout (%v)", err)
	}
	names := strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00")
	if len(names) < 50 {
		t.Fatalf("git lists %d tracked files; expected the whole repository", len(names))
	}
	for _, name := range names {
		fi, err := os.Stat(filepath.Join(repoRoot, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxTrackedBytes {
			t.Errorf("%s is %d bytes, over the %d-byte limit for tracked files", name, fi.Size(), maxTrackedBytes)
		}
	}
}
