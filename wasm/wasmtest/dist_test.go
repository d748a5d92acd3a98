package wasmtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"
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
	src := steptest.SourceCopy(t, repo)
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
