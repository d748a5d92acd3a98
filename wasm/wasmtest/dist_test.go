package wasmtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildDistReproducible: scripts/build-dist.sh run twice, once in the
// checkout and once from a copy of the tracked files in another directory
// with an empty build cache (so every package is compiled again), writes
// the same dist/ bytes (both modules, their sha256 files, VERSION), so a
// release can be rebuilt and checked. It lives in this test module, not
// beside internal/action, because it compiles the wasip1 modules twice.
func TestBuildDistReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasip1 modules twice; skipped with -short")
	}
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	build := func(dir, out string, env ...string) {
		t.Helper()
		cmd := exec.Command("sh", "scripts/build-dist.sh", "-o", out, "v0.0.0-test")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/build-dist.sh in %s: %v\n%s", dir, err, out)
		}
	}
	first := filepath.Join(t.TempDir(), "dist")
	build(repo, first)
	src := sourceCopy(t, repo)
	second := filepath.Join(t.TempDir(), "dist")
	build(src, second, "GOCACHE="+filepath.Join(t.TempDir(), "gocache"))
	for _, name := range []string{"greenlight-wasip1.wasm", "greenlight-wasip1.wasm.sha256", "greenlight-wasip1-lean.wasm", "greenlight-wasip1-lean.wasm.sha256", "VERSION"} {
		a, err := os.ReadFile(filepath.Join(first, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(second, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("dist/%s differs between two builds (%d and %d bytes)", name, len(a), len(b))
		}
	}
}

// sourceCopy returns a directory holding a copy of the files git tracks in
// repo (as they are in the worktree), without dist/ or any other build
// output: what a ref without a release holds. It skips the test without
// git.
func sourceCopy(t *testing.T, repo string) string {
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
