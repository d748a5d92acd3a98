package viewcmd

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// runView is "greenlight view EVENTS.jsonl...": it serves the viewer on
// 127.0.0.1 at a free port under a random path (Guard), prints the
// address, and serves until interrupted (Ctrl-C or SIGTERM). Without --now
// the page judges the log at the browser's clock. A log of several files
// is served as its static report (viewHandler).
func runView(args []string, env cli.Env) int {
	fs := pflag.NewFlagSet("view", pflag.ContinueOnError)
	var f flags
	f.register(fs)
	in, err := f.parse(fs, args, env)
	if err != nil {
		return failed(env, err)
	}
	p, log, opts, err := f.resolve(in, "", len(in.files) == 1)
	if err != nil {
		return failed(env, err)
	}
	h, err := viewHandler(&f, in, p, log, opts, env)
	if err != nil {
		return failed(env, err)
	}
	token, err := NewToken()
	if err != nil {
		return failed(env, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return failed(env, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	port := ln.Addr().(*net.TCPAddr).Port
	fmt.Fprintf(env.Stdout, "greenlight: the viewer is at http://127.0.0.1:%d/%s/?preload=1 (Ctrl-C stops it)\n", port, token)
	srv := &http.Server{Handler: Guard(h, token, port), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return failed(env, err)
	}
	return cli.ExitOK
}

// viewHandler is what view serves: for a log of one file (log, its bytes
// as stored, compressed or not: the module decompresses them as check
// does), the viewer with its module (stderr says where the module came
// from); else the static report judged at --now or the wall clock (stderr
// says so and why): when the log has several files, which the module does
// not read, or when no module can be had because there is no Go toolchain
// or its build failed.
func viewHandler(f *flags, in logInput, p Preload, log []byte, opts checker.Options, env cli.Env) (http.Handler, error) {
	note := func(s string) { fmt.Fprintf(env.Stderr, "greenlight: %s\n", s) }
	var why string
	if len(in.files) > 1 {
		why = fmt.Sprintf("the viewer's module reads a log of one file, and this one is %d files", len(in.files))
	} else {
		mod, err := f.findModule(note)
		switch {
		case err == nil:
			note("the viewer's module: " + mod.from)
			return Handler(p, log, mod.wasm, mod.wasmExec)
		case f.wasmDir == "" && os.Getenv("GREENLIGHT_WASM_DIR") == "":
			why = cli.ErrorLine(err)
		default:
			return nil, err
		}
	}
	// No module for this log: serve what Go renders, judged once.
	if opts.Now.IsZero() {
		opts.Now = env.Now().UTC().Truncate(time.Second)
	}
	var res *checker.Result
	var err error
	if log != nil {
		res, err = checkStored(f.inputFormat, in.files[0], log, opts)
	} else {
		res, err = checkFiles(f.inputFormat, in.files, opts)
	}
	if err != nil {
		return nil, err
	}
	note(fmt.Sprintf("%s; serving the static report instead, judged at %s (the page cannot check a log again)", why, opts.Now.Format(time.RFC3339)))
	o := render.DefaultHTMLOptions
	o.Log, o.LogFiles = in.name, in.files
	return StaticHandler(render.HTMLReport(res, o)), nil
}

// NewToken returns the secret first segment of the viewer's URL: 16 bytes
// from crypto/rand in hex, made anew for each view.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cannot make the viewer's URL token: %v", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Guard lets through to h only what the printed URL reaches (docs/wasm.md,
// greenlight view). A request whose Host header is not the loopback
// address and port the viewer listens on (127.0.0.1:port or
// localhost:port) is answered 421 Misdirected Request: a page on another
// site that points its own name at 127.0.0.1 (DNS rebinding) sends its own
// name there, so it reads nothing. A path outside /token/ is answered 404,
// so another program or page on the machine that does not know the token
// cannot read the log either; h sees the path without the /token prefix.
func Guard(h http.Handler, token string, port int) http.Handler {
	hosts := map[string]bool{
		net.JoinHostPort("127.0.0.1", strconv.Itoa(port)): true,
		net.JoinHostPort("localhost", strconv.Itoa(port)): true,
	}
	prefix := "/" + token
	inner := http.StripPrefix(prefix, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "greenlight view answers only http://127.0.0.1:"+strconv.Itoa(port)+"/", http.StatusMisdirectedRequest)
			return
		}
		first, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if subtle.ConstantTimeCompare([]byte(first), []byte(token)) != 1 {
			http.NotFound(w, r)
			return
		}
		if rest == "" && !strings.HasSuffix(r.URL.Path, "/") {
			// The page's relative URLs need the trailing slash.
			u := prefix + "/"
			if r.URL.RawQuery != "" {
				u += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, u, http.StatusMovedPermanently)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// StaticHandler serves page (a static report, render.WriteHTMLReport,
// which carries its own Content-Security-Policy) at the root, for view
// without a module.
func StaticHandler(page []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", render.HTMLReportPolicy())
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(page)
	})
	return mux
}

// ServeCSP is the Content-Security-Policy of the served viewer: scripts,
// styles and requests only from the server itself, the module and the Blob
// worker; no images, frames or inline script.
const ServeCSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob:; connect-src 'self'; style-src 'self'"

// Handler serves the viewer's static files, the built module and
// wasm_exec.js, and the preloaded log (preload/log) with its options
// (preload/options.json); the page loads them when its URL has ?preload.
func Handler(p Preload, log, module, wasmExec []byte) (http.Handler, error) {
	opts, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	blob := func(body []byte, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		}
	}
	mux.Handle("GET /{$}", http.FileServerFS(viewer.Static))
	for _, name := range []string{"index.html", "viewer.js", "worker.js", "viewer.css"} {
		mux.Handle("GET /"+name, http.FileServerFS(viewer.Static))
	}
	mux.Handle("GET /"+viewer.ModuleFile, blob(module, "application/wasm"))
	mux.Handle("GET /"+viewer.WasmExecFile, blob(wasmExec, "text/javascript; charset=utf-8"))
	mux.Handle("GET /preload/options.json", blob(opts, "application/json"))
	mux.Handle("GET /preload/log", blob(log, "application/octet-stream"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", ServeCSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	}), nil
}
