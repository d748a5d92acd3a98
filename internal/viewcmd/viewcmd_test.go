package viewcmd

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// TestViewerUsesNoHTMLSinks: the viewer's scripts never turn text into
// markup; log text reaches the page only as text nodes (DESIGN.md §8).
func TestViewerUsesNoHTMLSinks(t *testing.T) {
	sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|\bon[a-z]+\s*=\s*["']`)
	err := fs.WalkDir(viewer.Static, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".js") {
			return err
		}
		src, err := viewer.Static.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := sinks.FindString(line); m != "" {
				t.Errorf("%s:%d uses %s: %s", path, i+1, m, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReportInlinesEverything: the report needs no other file: no element
// refers to viewer.css or viewer.js, the module, wasm_exec.js, the worker
// and the log are data elements, and the preloaded options cannot end their
// script element whatever the log's name holds.
func TestReportInlinesEverything(t *testing.T) {
	pipeline := "stages: [{id: 1}]\n"
	p := Preload{File: "</script><img src=x onerror=alert(1)>.jsonl", Pipeline: &pipeline, Gate: "all", Now: "2026-01-01T12:00:00Z"}
	page, err := Report(p, []byte("{}\n"), []byte("\x00asm-not-really"), []byte("// glue\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{`href="viewer.css"`, `src="viewer.js"`, "<img"} {
		if bytes.Contains(page, []byte(ref)) {
			t.Errorf("the report holds %s", ref)
		}
	}
	for _, id := range []string{"gl-module", "gl-wasm-exec", "gl-worker", "gl-log"} {
		if !bytes.Contains(page, []byte(`id="`+id+`" data-encoding="gzip">`)) {
			t.Errorf("the report has no %s element", id)
		}
	}
	m := regexp.MustCompile(`<script type="application/json" id="gl-preload">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no gl-preload element")
	}
	var got Preload
	if err := json.Unmarshal(m[1], &got); err != nil || got.File != p.File || *got.Pipeline != pipeline {
		t.Fatalf("gl-preload reads back as %+v (%v)", got, err)
	}
	if !bytes.Contains(page, []byte(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'wasm-unsafe-eval' 'sha256-`)) {
		t.Error("the report has no Content-Security-Policy")
	}
}
