package wasmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tsc installs TypeScript 5 with npm into a temporary directory and returns
// its compiler; without npm the test skips loudly, or fails when
// GREENLIGHT_REQUIRE_BROWSER=1 (as in CI).
func tsc(t *testing.T) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		msg := "no npm on PATH, so the viewer's JSDoc types are NOT checked (apt-get install npm)"
		if os.Getenv("GREENLIGHT_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg + "; GREENLIGHT_REQUIRE_BROWSER=1 makes this a failure")
		}
		fmt.Fprintln(os.Stderr, "SKIP: "+msg)
		t.Skip("SKIP: " + msg)
	}
	dir := t.TempDir()
	cmd := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--silent", "typescript@5")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install typescript@5: %v\n%s", err, out)
	}
	return filepath.Join(dir, "node_modules", ".bin", "tsc")
}

// typeCheck runs tsc --checkJs on one script with the given libraries and
// returns its findings.
func typeCheck(t *testing.T, compiler, file, libs string) string {
	t.Helper()
	out, err := exec.Command(compiler, "--noEmit", "--allowJs", "--checkJs", "--target", "es2022", "--lib", libs, file).CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Fatalf("tsc %s: %v", file, err)
	}
	return strings.TrimSpace(string(out))
}

// TestViewerTypes: viewer.js and worker.js are // @ts-check scripts whose
// JSDoc types mirror snapshot.schema.json and violations.schema.json; tsc
// finds nothing in them, and does find a misspelt snapshot field, so the
// check cannot pass vacuously.
func TestViewerTypes(t *testing.T) {
	compiler := tsc(t)
	viewer, worker := root+"/wasm/viewer/viewer.js", root+"/wasm/viewer/worker.js"
	for _, f := range []struct{ file, libs string }{{viewer, "es2022,dom,dom.iterable"}, {worker, "es2022,webworker"}} {
		src, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "// @ts-check\n") {
			t.Errorf("%s has no // @ts-check", f.file)
		}
		if out := typeCheck(t, compiler, f.file, f.libs); out != "" {
			t.Errorf("tsc %s:\n%s", f.file, out)
		}
	}
	src, err := os.ReadFile(viewer)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "doc.run_count", "doc.run_cont", 1)
	if bad == string(src) {
		t.Fatal("viewer.js no longer reads doc.run_count")
	}
	misspelt := filepath.Join(t.TempDir(), "viewer.js")
	if err := os.WriteFile(misspelt, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := typeCheck(t, compiler, misspelt, "es2022,dom,dom.iterable"); !strings.Contains(out, "Property 'run_cont' does not exist on type 'Snapshot'") {
		t.Errorf("tsc did not find the misspelt field; it said:\n%s", out)
	}
}
