package viewcmd

import (
	"bytes"
	"compress/gzip"
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
// serves the static report, and says so and why on stderr; it reads the
// log as check does (a gzip file decompressed), and serves a log of
// several files, which the module does not read, the same way.
func TestViewWithoutToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GREENLIGHT_WASM_DIR", "")
	const (
		started = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
`
		failed = `{"run_id":"r-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","returncode":1,"error":"disk full"}
`
		noToolchain = "greenlight: no Go toolchain (go) on PATH to build the viewer's WebAssembly module; serving the static report instead, judged at 2026-01-01T12:00:00Z (the page cannot check a log again)\n"
	)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(started + failed))
	zw.Close()
	for _, c := range []struct {
		name   string
		files  map[string][]byte // in reading order by name
		stored bool              // the one file's bytes are given, as view reads them for the page
		stderr string
		body   []string
	}{
		{name: "one file", files: map[string][]byte{"r.jsonl": []byte(started + failed)}, stored: true, stderr: noToolchain,
			body: []string{"<title>greenlight: unhealthy: r.jsonl</title>", "disk full"}},
		{name: "one gzip file", files: map[string][]byte{"r.jsonl.gz": gz.Bytes()}, stored: true, stderr: noToolchain,
			body: []string{"<title>greenlight: unhealthy: r.jsonl.gz</title>", "disk full"}},
		{name: "several files", files: map[string][]byte{"a.jsonl": []byte(started), "b.jsonl": []byte(failed)},
			stderr: "greenlight: the viewer's module reads a log of one file, and this one is 2 files; serving the static report instead, judged at 2026-01-01T12:00:00Z (the page cannot check a log again)\n",
			body:   []string{"disk full", "failed (line 1 of ", "b.jsonl).</li>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var in logInput
			var stored []byte
			for _, name := range []string{"a.jsonl", "b.jsonl", "r.jsonl", "r.jsonl.gz"} {
				if data, ok := c.files[name]; ok {
					path := filepath.Join(dir, name)
					if err := os.WriteFile(path, data, 0o644); err != nil {
						t.Fatal(err)
					}
					in.files, stored = append(in.files, path), data
				}
			}
			in.name = in.files[0]
			if !c.stored {
				stored = nil
				in.name = strings.Join(in.files, " ")
			}
			var stderr bytes.Buffer
			env := cli.Env{Stderr: &stderr, Now: func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }}
			opts, err := checker.Request{Stages: "1", File: in.name}.Options()
			if err != nil {
				t.Fatal(err)
			}
			h, err := viewHandler(&flags{stages: "1"}, in, Preload{File: in.name, Stages: "1"}, stored, opts, env)
			if err != nil {
				t.Fatal(err)
			}
			if stderr.String() != c.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if got := rec.Header().Get("Content-Security-Policy"); got != render.HTMLReportPolicy() || !strings.HasPrefix(got, "default-src 'none'; style-src 'sha256-") {
				t.Errorf("served with the policy %q", got)
			}
			body, _ := io.ReadAll(rec.Body)
			for _, want := range c.body {
				if !bytes.Contains(body, []byte(want)) {
					t.Errorf("the served page lacks %q", want)
				}
			}
		})
	}
}
