package wasmtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// TestModuleBuiltOnDemand: without --wasm-dir the viewer's module is built
// from the binary's embedded source into the user cache directory once,
// then read from there; stderr says which. greenlight report --interactive
// asks for it twice, and both pages are the same bytes. It runs the real go
// build (tens of seconds), so it lives in this test module, not beside
// internal/viewcmd.
func TestModuleBuiltOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the js module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go on PATH")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // os.UserCacheDir on macOS
	t.Setenv("GREENLIGHT_WASM_DIR", "")
	dir := t.TempDir()
	report := func(name string) (page []byte, stderr []string) {
		t.Helper()
		out := filepath.Join(dir, name)
		args := []string{root + "/testdata/logs/retry_then_success.jsonl", "--pipeline", root + "/testdata/logs/pipeline.yaml",
			"--now", "2026-01-01T12:00:00Z", "--interactive", "--html", out}
		var o, e bytes.Buffer
		env := cli.Env{Stdout: &o, Stderr: &e, Now: time.Now}
		if code := viewcmd.Commands()["report"](args, env); code != 0 {
			t.Fatalf("report: exit %d\n%s", code, e.Bytes())
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return page, strings.SplitAfter(strings.TrimSuffix(e.String(), "\n"), "\n")
	}
	page, notes := report("first.html")
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "greenlight: building the viewer's WebAssembly module with go") || !strings.HasPrefix(notes[1], "greenlight: the viewer's module: built with go") {
		t.Errorf("first use: stderr %q", notes)
	}
	built, err := filepath.Glob(filepath.Join(cache, "greenlight", "wasm", "*"))
	if err != nil || len(built) != 1 {
		t.Fatalf("the cache holds %q (%v), want one module's directory", built, err)
	}
	wasm, err := os.ReadFile(filepath.Join(built[0], viewer.ModuleFile))
	if err != nil {
		t.Fatal(err)
	}
	wasmExec, err := os.ReadFile(filepath.Join(built[0], viewer.WasmExecFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) || !bytes.Contains(wasmExec, []byte("globalThis.Go = class")) {
		t.Fatalf("not a module and Go's wasm_exec.js: %q, %q", wasm[:min(8, len(wasm))], wasmExec[:min(40, len(wasmExec))])
	}
	again, notes := report("again.html")
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "greenlight: the viewer's module: built with go") || !strings.Contains(notes[0], ", cached in ") {
		t.Errorf("second use: stderr %q", notes)
	}
	if !bytes.Equal(again, page) {
		t.Error("the second page, from the cached module, differs from the first")
	}
}
