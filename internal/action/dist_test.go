package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
