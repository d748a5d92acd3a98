package action

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildDistReproducible: scripts/build-dist.sh run again, from a copy
// of the tracked files in another directory and with an empty build cache
// (so every package is compiled again), writes the same dist/ bytes (module,
// sha256 file, VERSION), so a release can be rebuilt and checked.
func TestBuildDistReproducible(t *testing.T) {
	first := filepath.Join(releaseLayout(t), "dist")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed, so the tracked files cannot be listed")
	}
	files, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "--cached").Output()
	if err != nil {
		t.Skipf("SKIP: not a git checkout (%v)", err)
	}
	src := filepath.Join(t.TempDir(), "elsewhere", "greenlight")
	for _, name := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(repoRoot, name))
		if os.IsNotExist(err) {
			continue // deleted in the worktree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("sh", "scripts/build-dist.sh", "-o", second, "v0.0.0-test")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(t.TempDir(), "gocache"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-dist.sh in %s: %v\n%s", src, err, out)
	}
	for _, name := range []string{"greenlight-wasip1.wasm", "greenlight-wasip1.wasm.sha256", "VERSION"} {
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
