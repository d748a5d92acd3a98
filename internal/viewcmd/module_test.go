package viewcmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	greenlight "github.com/greenlight-ci/greenlight"
	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
)

// TestEmbeddedSourceComplete: greenlight.Source holds every file the js
// module is built from (go list -deps for GOOS=js GOARCH=wasm): a package
// added to the checker without a pattern in source.go fails here, not in a
// user's "greenlight view".
func TestEmbeddedSourceComplete(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIPPED: no go on PATH")
	}
	cmd := exec.Command(gobin, "list", "-deps", "-json=ImportPath,Dir,GoFiles,EmbedFiles,Module", "./wasm/js")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for dec.More() {
		var p struct {
			ImportPath, Dir     string
			GoFiles, EmbedFiles []string
			Module              *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "github.com/greenlight-ci/greenlight" {
			continue
		}
		rel, _ := filepath.Rel(root, p.Dir)
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			n++
			name := filepath.ToSlash(filepath.Join(rel, f))
			if _, err := greenlight.Source.ReadFile(name); err != nil {
				t.Errorf("%s (package %s) is not in greenlight.Source: add it to source.go", name, p.ImportPath)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list named only %d files", n)
	}
}

// TestViewWithoutToolchain: with no go on PATH and no --wasm-dir, view
// serves the static report, and says so and why on stderr.
func TestViewWithoutToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GREENLIGHT_WASM_DIR", "")
	var stderr bytes.Buffer
	env := cli.Env{Stderr: &stderr, Now: func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }}
	f := &flags{stages: "1"}
	log := []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","returncode":1,"error":"disk full"}
`)
	opts, err := checker.Request{Stages: "1", File: "r.jsonl"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	h, err := viewHandler(f, Preload{File: "r.jsonl", Stages: "1"}, log, opts, env)
	if err != nil {
		t.Fatal(err)
	}
	want := "greenlight: no Go toolchain (go) on PATH to build the viewer's WebAssembly module; serving the static report instead, judged at 2026-01-01T12:00:00Z (the page cannot check a log again)\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if got := rec.Header().Get("Content-Security-Policy"); got != render.HTMLReportPolicy() || !strings.HasPrefix(got, "default-src 'none'; style-src 'sha256-") {
		t.Errorf("served with the policy %q", got)
	}
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{"<title>greenlight: unhealthy: r.jsonl</title>", "disk full"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the served page lacks %q", want)
		}
	}
}

// TestModuleBuiltOnDemand: without --wasm-dir the module is built from the
// embedded source into the user cache directory once, then read from
// there; stderr says which. It runs the real go build (tens of seconds).
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
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	f := &flags{}
	m, err := f.findModule(note)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(m.wasm, []byte("\x00asm")) || !bytes.Contains(m.wasmExec, []byte("globalThis.Go = class")) {
		t.Fatalf("not a module and Go's wasm_exec.js: %q, %q", m.wasm[:min(8, len(m.wasm))], m.wasmExec[:min(40, len(m.wasmExec))])
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "building the viewer's WebAssembly module with go") || !strings.HasPrefix(m.from, "built with go") {
		t.Errorf("first use: notes %q, from %q", notes, m.from)
	}
	notes = nil
	again, err := f.findModule(note)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 || !strings.Contains(again.from, ", cached in ") || !bytes.Equal(again.wasm, m.wasm) {
		t.Errorf("second use: notes %q, from %q", notes, again.from)
	}
}
