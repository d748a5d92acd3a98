package viewcmd

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// runReport is "greenlight report EVENTS.jsonl --html FILE": it writes the
// standalone HTML report (render.WriteHTMLReport) atomically, or with
// --interactive the viewer with its module and the log in one file, and
// exits like check: 0 for a valid log, 2 for an invalid one (the report is
// written either way, to show why).
func runReport(args []string, env cli.Env) int {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	var f flags
	f.register(fs)
	out := fs.String("html", "", "write the HTML report to `FILE`")
	interactive := fs.Bool("interactive", false, "write the viewer, its WebAssembly module and the log too, to check again in the page (needs the module: see --wasm-dir)")
	in, err := f.parse(fs, args, env)
	if err != nil {
		return failed(env, err)
	}
	if *out == "" {
		return failed(env, fmt.Errorf("report needs --html FILE"))
	}
	// The page must not replace an input (as check --snapshot refuses).
	inputs := []cli.NamedFile{{What: "the pipeline definition", Path: f.pipeline}}
	for _, input := range in.files {
		inputs = append(inputs, cli.NamedFile{What: "the event log file", Path: input})
	}
	if err := cli.DistinctOutputs(inputs, []cli.NamedFile{{What: "--html", Path: *out}}); err != nil {
		return failed(env, err)
	}
	if *interactive && len(in.files) > 1 {
		return failed(env, fmt.Errorf("report --interactive takes a log of one file (compressed or not): the viewer's module reads one, and %s is %d files; without --interactive the report reads them all as one log", render.Terminal(in.name), len(in.files)))
	}
	// The report is a record: judged at one moment, the same on every open.
	// The static report streams the log; the interactive one carries it.
	p, log, opts, err := f.resolve(in, env.Now().UTC().Format(time.RFC3339), *interactive)
	if err != nil {
		return failed(env, err)
	}
	var mod module
	if *interactive {
		if mod, err = f.findModule(func(s string) { fmt.Fprintf(env.Stderr, "greenlight: %s\n", s) }); err != nil {
			return failed(env, err)
		}
	}
	var res *checker.Result
	if log != nil {
		res, err = checkStored(f.inputFormat, in.files[0], log, opts)
	} else {
		res, err = checkFiles(f.inputFormat, in.files, opts)
	}
	if err != nil {
		return failed(env, err)
	}
	var page []byte
	if *interactive {
		if page, err = ReportWithStatic(p, log, mod.wasm, mod.wasmExec, res); err != nil {
			return failed(env, err)
		}
		fmt.Fprintf(env.Stderr, "greenlight: the viewer's module: %s\n", mod.from)
	} else {
		o := render.DefaultHTMLOptions
		o.Log, o.LogFiles = in.name, in.files
		page = render.HTMLReport(res, o)
	}
	if err := atomicfile.Write(*out, page); err != nil {
		return failed(env, err)
	}
	fmt.Fprintf(env.Stdout, "greenlight: wrote %s (%s, judged at %s)\n", render.Terminal(*out), verdictLine(res, in.name), p.Now)
	if res.Snapshot == nil {
		return cli.ExitInvalid
	}
	return cli.ExitOK
}

// checkOpened checks the opened files of a log in its format, as check
// does: a native log is its files read as one log, an OpenLineage log its
// one file (parse refuses more).
func checkOpened(format string, files []*logsource.File, opts checker.Options) (*checker.Result, error) {
	if format == checker.FormatOpenLineage {
		return openlineage.Check(files[0].Log.R, opts)
	}
	return checker.CheckFiles(logsource.Logs(files), opts, checker.Reading{})
}

// checkFiles checks the log made of the files named, each read as a
// stream and decompressed when it is gzip or zstd (cli.OpenLog).
func checkFiles(format string, names []string, opts checker.Options) (*checker.Result, error) {
	files, err := cli.OpenLog(names, nil)
	if err != nil {
		return nil, err
	}
	defer logsource.CloseAll(files)
	return checkOpened(format, files, opts)
}

// checkStored checks the log of one file, given as its bytes as stored
// (what the page's module is given), decompressed as check decompresses
// the file itself.
func checkStored(format, name string, log []byte, opts checker.Options) (*checker.Result, error) {
	file, err := logsource.New(name, bytes.NewReader(log))
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return checkOpened(format, []*logsource.File{file}, opts)
}

// The lines of index.html that Report replaces with inlined content.
const (
	styleLink  = `<link rel="stylesheet" href="viewer.css">`
	scriptLink = `<script src="viewer.js"></script>`
	headEnd    = `</head>`
	mainStart  = `<main>`
)

// Report returns the viewer as one HTML file that needs no server: the style
// and the viewer's script inline, and the module, wasm_exec.js, the worker
// and the log as gzip+base64 data elements the page decodes. A
// Content-Security-Policy allows only those inline scripts (by hash), the
// WebAssembly module and the Blob worker; no image, frame or request.
func Report(p Preload, log, module, wasmExec []byte) ([]byte, error) {
	return ReportWithStatic(p, log, module, wasmExec, nil)
}

// ReportWithStatic is Report with, when res is not nil, the static report
// of res (render.WriteHTMLReportContent) in a noscript element before the
// viewer's main element: with scripts off the page still shows the
// verdict, the runs, their errors and recovery, the schedule and the
// timelines, and with scripts on the viewer checks the log again and any
// other dropped in. The static report's style is allowed by its hash.
func ReportWithStatic(p Preload, log, module, wasmExec []byte, res *checker.Result) ([]byte, error) {
	read := func(name string) (string, error) {
		b, err := viewer.Static.ReadFile(name)
		return string(b), err
	}
	page, err := read("index.html")
	if err != nil {
		return nil, err
	}
	css, err := read("viewer.css")
	if err != nil {
		return nil, err
	}
	script, err := read("viewer.js")
	if err != nil {
		return nil, err
	}
	worker, err := read("worker.js")
	if err != nil {
		return nil, err
	}
	for _, raw := range []string{css, script} {
		if strings.Contains(strings.ToLower(raw), "</s") {
			return nil, fmt.Errorf("viewer: an inlined file contains </s, which would end its element early")
		}
	}
	pre, err := json.Marshal(p) // escapes <, > and & as \u003c...: safe inside a script element
	if err != nil {
		return nil, err
	}
	var data strings.Builder
	for _, d := range []struct {
		id   string
		body []byte
	}{{"gl-module", module}, {"gl-wasm-exec", wasmExec}, {"gl-worker", []byte(worker)}, {"gl-log", log}} {
		z, err := gzipped(d.body)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&data, "<script type=\"application/octet-stream\" id=%q data-encoding=\"gzip\">%s</script>\n", d.id, base64.StdEncoding.EncodeToString(z))
	}
	fmt.Fprintf(&data, "<script type=\"application/json\" id=\"gl-preload\">%s</script>\n", pre)
	styles := "'sha256-" + hash(css) + "'"
	noscript := ""
	if res != nil {
		var content bytes.Buffer
		if err := render.WriteHTMLReportContent(&content, res, render.DefaultHTMLOptions); err != nil {
			return nil, err
		}
		static := render.HTMLReportStyle()
		if strings.Contains(strings.ToLower(static+content.String()), "</noscript") {
			return nil, fmt.Errorf("viewer: the static report contains </noscript, which would end its element early")
		}
		styles += " 'sha256-" + hash(static) + "'"
		noscript = "<noscript>\n<style>" + static + "</style>\n" +
			`<p class="note">Scripts are off, so the viewer cannot run; this is the report greenlight rendered when it wrote this file.</p>` + "\n" +
			content.String() + "</noscript>\n"
	}
	csp := fmt.Sprintf("default-src 'none'; script-src 'wasm-unsafe-eval' 'sha256-%s'; worker-src blob:; style-src %s",
		hash(script), styles)
	replace := []struct{ old, new string }{
		{styleLink, "<style>" + css + "</style>"},
		{scriptLink, data.String() + "<script>" + script + "</script>"},
		{headEnd, `<meta http-equiv="Content-Security-Policy" content="` + csp + `">` + "\n" + headEnd},
		{mainStart, noscript + mainStart},
	}
	for _, r := range replace {
		if strings.Count(page, r.old) != 1 {
			return nil, fmt.Errorf("viewer: index.html must hold %s exactly once", r.old)
		}
		page = strings.Replace(page, r.old, r.new, 1)
	}
	return []byte(page), nil
}

func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}
