package viewcmd

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// TestViewerUsesNoHTMLSinks: the viewer's scripts never turn text into
// markup; log text reaches the page only as text nodes (docs/wasm.md).
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

// TestGuard: the served viewer answers only requests for its own loopback
// host and port under its token (docs/wasm.md, greenlight view): another Host
// (DNS rebinding) is 421, a path without the token is 404, and the log is
// served only under /TOKEN/.
func TestGuard(t *testing.T) {
	const token, port = "0123456789abcdef0123456789abcdef", 8123
	h, err := Handler(Preload{File: "x.jsonl", Stages: "1", Gate: "all"}, []byte("the log\n"), []byte("module"), []byte("glue"))
	if err != nil {
		t.Fatal(err)
	}
	g := Guard(h, token, port)
	tests := []struct {
		name, host, path string
		code             int
		body             string
	}{
		{"log under the token", "127.0.0.1:8123", "/" + token + "/preload/log", http.StatusOK, "the log\n"},
		{"localhost", "localhost:8123", "/" + token + "/preload/log", http.StatusOK, "the log\n"},
		{"host in capitals", "LOCALHOST:8123", "/" + token + "/preload/log", http.StatusOK, "the log\n"},
		{"page", "127.0.0.1:8123", "/" + token + "/", http.StatusOK, ""},
		{"token without slash", "127.0.0.1:8123", "/" + token + "?preload=1", http.StatusMovedPermanently, ""},
		{"rebound name", "evil.example:8123", "/" + token + "/preload/log", http.StatusMisdirectedRequest, ""},
		{"rebound name, no port", "evil.example", "/" + token + "/preload/log", http.StatusMisdirectedRequest, ""},
		{"other port", "127.0.0.1:80", "/" + token + "/preload/log", http.StatusMisdirectedRequest, ""},
		{"ipv6 loopback the server does not listen on", "[::1]:8123", "/" + token + "/preload/log", http.StatusMisdirectedRequest, ""},
		{"no token", "127.0.0.1:8123", "/preload/log", http.StatusNotFound, ""},
		{"wrong token", "127.0.0.1:8123", "/0123456789abcdef0123456789abcdee/preload/log", http.StatusNotFound, ""},
		{"token prefix", "127.0.0.1:8123", "/" + token[:31] + "/preload/log", http.StatusNotFound, ""},
		{"root", "127.0.0.1:8123", "/", http.StatusNotFound, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "http://x"+tc.path, nil)
			req.Host = tc.host
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d", rec.Code, tc.code)
			}
			if tc.body != "" && rec.Body.String() != tc.body {
				t.Fatalf("body %q, want %q", rec.Body.String(), tc.body)
			}
			if tc.code != http.StatusOK && strings.Contains(rec.Body.String(), "the log") {
				t.Fatal("a refused request got the log")
			}
			if loc := rec.Header().Get("Location"); tc.code == http.StatusMovedPermanently && loc != "/"+token+"/?preload=1" {
				t.Fatalf("Location %q", loc)
			}
		})
	}
}

// TestNewToken: the token is 32 hex digits and differs between views.
func TestNewToken(t *testing.T) {
	a, errA := NewToken()
	b, errB := NewToken()
	if errA != nil || errB != nil || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(a) || a == b {
		t.Fatalf("tokens %q, %q (%v, %v)", a, b, errA, errB)
	}
}

// TestReportWithStatic: the interactive report holds the static report in
// a noscript element, its style allowed by a second hash, its log text
// escaped.
func TestReportWithStatic(t *testing.T) {
	opts, err := checker.Request{Stages: "1", Now: "2026-01-01T12:00:00Z", File: "x.jsonl"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	log := []byte(`{"run_id":"<img src=x onerror=alert(1)>","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"<img src=x onerror=alert(1)>","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"</noscript><script>alert(2)</script>"}
`)
	res, err := checker.Check(bytes.NewReader(log), opts)
	if err != nil {
		t.Fatal(err)
	}
	page, err := ReportWithStatic(Preload{File: "x.jsonl", Stages: "1", Gate: "all", Now: "2026-01-01T12:00:00Z"}, log, []byte("\x00asm"), []byte("// glue\n"), res)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte("</noscript>")); n != 1 {
		t.Errorf("%d </noscript> in the page, want the element's own one", n)
	}
	if bytes.Contains(page, []byte("<img")) || !bytes.Contains(page, []byte("&lt;/noscript&gt;&lt;script&gt;alert(2)&lt;/script&gt;")) {
		t.Error("the static report's log text is not escaped")
	}
	if !regexp.MustCompile(`style-src 'sha256-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+'"`).Match(page) {
		t.Error("the CSP does not allow the static report's style by hash")
	}
	if !bytes.Contains(page, []byte(`<span id="verdict" class="verdict-unhealthy">unhealthy</span>`)) {
		t.Error("the static report's verdict is missing")
	}
}
