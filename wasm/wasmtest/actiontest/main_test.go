package actiontest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository, relative to this package's directory.
const root = "../../.."

// workDir holds what the tests build (the release layouts, native
// binaries); it lives as long as the test binary.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "greenlight-actiontest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
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
