// Package viewcmd holds the native binary's browser commands: "greenlight
// view" serves the viewer (wasm/viewer) on 127.0.0.1 with a log preloaded,
// and "greenlight report" writes a standalone HTML report rendered by Go
// (render.WriteHTMLReport), or with --interactive one file holding the
// viewer, the WebAssembly module and the log. Both read their log as check
// does (internal/logsource: several files as one log, gzip and zstd
// decompressed); the page's module reads a log of one file, compressed or
// not, so view serves the static report of a log of several files and
// report --interactive refuses one (docs/wasm.md). The viewer's js module comes
// from --wasm-dir or $GREENLIGHT_WASM_DIR when given, else it is built on
// demand from the binary's embedded source into the user cache directory
// (findModule); view without a Go toolchain serves the static report.
package viewcmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// Commands returns view and report, for cli.Env.Commands.
func Commands() map[string]func([]string, cli.Env) int {
	return map[string]func([]string, cli.Env) int{
		"view":   runView,
		"report": runReport,
	}
}

// Preload is what the page is given with the log (preload/options.json, or
// the report's gl-preload element): the same options the page's inputs set.
type Preload struct {
	// File is the log's name as the user gave it; the snapshot records it.
	File string `json:"file"`
	// Pipeline is the pipeline definition's text, absent with Stages.
	Pipeline *string `json:"pipeline,omitempty"`
	// PipelineName is the definition's file name, for display.
	PipelineName string `json:"pipeline_name,omitempty"`
	// Stages is the --stages shorthand, absent with Pipeline.
	Stages string `json:"stages,omitempty"`
	// Now is the RFC 3339 moment to judge at; empty means the browser's clock.
	Now string `json:"now,omitempty"`
	// StaleAfterSeconds (seconds) overrides the definition's when > 0.
	StaleAfterSeconds int `json:"stale_after_seconds,omitempty"`
	// Gate is all or latest.
	Gate string `json:"gate"`
	// InputFormat is the log's format (--input-format), absent for native.
	InputFormat string `json:"input_format,omitempty"`
}

// flags are what view and report share.
type flags struct {
	pipeline, stages, now, gate, wasmDir, inputFormat, logOrder string
	stale                                                       *cli.RangedInt
}

// logInput is the log a command reads: its files in reading order and its
// name (the snapshot's source.path), as check names it.
type logInput struct {
	files []string
	name  string
}

func (f *flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.pipeline, "pipeline", "", "pipeline definition `FILE` (YAML or JSON) declaring the expected stages")
	fs.StringVar(&f.stages, "stages", "", "shorthand for a linear pipeline: comma-separated stage `ids`")
	fs.StringVar(&f.now, "now", "", "judge the log at this RFC 3339 `time`")
	f.stale = cli.AddRangedInt(fs, "stale-after-seconds", 0, 1, limits.StaleAfterSeconds, "`seconds` of silence before an attempt in progress is a stall candidate")
	fs.StringVar(&f.gate, "gate", "all", "which runs the verdict looks at: `all|latest` (every run, or only the latest)")
	fs.StringVar(&f.inputFormat, "input-format", checker.FormatNative, "event log `format`: native or openlineage (one file of OpenLineage run events)")
	fs.StringVar(&f.logOrder, "log-order", logsource.OrderGiven, "`order` of a log's files: given (as named; a glob's matches in byte order) or name (all sorted by path, runs of digits as numbers: -9 before -10)")
	fs.StringVar(&f.wasmDir, "wasm-dir", "", "`DIR` holding a built greenlight.wasm and wasm_exec.js (default $GREENLIGHT_WASM_DIR, else built on demand into the user cache directory)")
}

// parse reads the command line and returns the log: its files, read as
// one log in --log-order as check reads them (cli.LogArgs), and its name.
// Standard input is refused (the page is given a file), and so is an
// OpenLineage log of several files (check takes one too).
func (f *flags) parse(fs *pflag.FlagSet, args []string, env cli.Env) (logInput, error) {
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	if err := cli.ParseFlags(fs, args, env); err != nil {
		return logInput{}, err
	}
	if fs.NArg() == 0 {
		return logInput{}, fmt.Errorf("%s needs an event log: one file, or several read as one log", fs.Name())
	}
	for _, a := range fs.Args() {
		if a == "-" {
			return logInput{}, fmt.Errorf("%s reads event log files, not standard input (-)", fs.Name())
		}
	}
	files, name, err := cli.LogArgs(fs.Args(), f.logOrder)
	if err != nil {
		return logInput{}, err
	}
	if f.inputFormat == checker.FormatOpenLineage && len(files) > 1 {
		return logInput{}, fmt.Errorf("%s --input-format openlineage takes one log file, and %s is %d files", fs.Name(), render.Terminal(name), len(files))
	}
	return logInput{files: files, name: name}, nil
}

// resolve reads the definition and checks the options with the checker's
// own rules, so a mistake is reported here (exit 2) rather than in the
// page. With readLog it also reads the log's one file as stored (for the
// page, whose module decompresses it as check does); else it leaves the
// log unread (nil) for the caller to stream (checkFiles).
func (f *flags) resolve(in logInput, fixNow string, readLog bool) (Preload, []byte, checker.Options, error) {
	name := in.name
	stale, err := f.stale.Value()
	if err != nil {
		return Preload{}, nil, checker.Options{}, err
	}
	p := Preload{File: name, Stages: f.stages, Now: f.now, StaleAfterSeconds: stale, Gate: f.gate}
	if f.inputFormat != checker.FormatNative {
		p.InputFormat = f.inputFormat
	}
	if p.Now == "" {
		p.Now = fixNow
	}
	req := checker.Request{Knob: cli.Flag, PipelineName: render.Terminal(f.pipeline), Stages: f.stages, Now: p.Now, Gate: f.gate, File: name, InputFormat: f.inputFormat}
	if stale > 0 { // the flag's 0 is "not given"; a given value is 1 or more
		req.StaleAfterSeconds = &stale
	}
	if f.pipeline != "" && f.stages == "" {
		data, err := osfile.ReadFile(f.pipeline)
		if err != nil {
			return p, nil, checker.Options{}, fmt.Errorf("cannot read the pipeline definition: %s", osfile.Describe(err))
		}
		text := string(data)
		p.Pipeline, p.PipelineName, req.Pipeline = &text, filepath.Base(f.pipeline), data
	}
	opts, err := req.Options()
	if err != nil {
		return p, nil, opts, err
	}
	opts.ToolVersion = cli.ToolVersion() // the snapshot's tool.version
	if !readLog {
		return p, nil, opts, nil
	}
	if len(in.files) != 1 {
		return p, nil, opts, fmt.Errorf("the viewer's module reads a log of one file, and %s is %d files", render.Terminal(name), len(in.files))
	}
	log, err := osfile.ReadFile(in.files[0])
	if err != nil {
		return p, nil, opts, fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
	}
	return p, log, opts, nil
}

func failed(env cli.Env, err error) int {
	if errors.Is(err, pflag.ErrHelp) {
		return cli.ExitOK
	}
	fmt.Fprintf(env.Stderr, "greenlight: %s\n", cli.ErrorLine(err))
	return cli.ExitInvalid
}

// verdictLine says in one line what the native checker found in the log
// named name (the names given), for the commands' own output.
func verdictLine(res *checker.Result, name string) string {
	if res.Snapshot == nil {
		return fmt.Sprintf("%s is invalid: %s", render.Terminal(name), words.Count(res.Report.ViolationCount, "contract violation"))
	}
	return fmt.Sprintf("%s: %s", res.Snapshot.Verdict, words.Count(res.Snapshot.RunCount, "run"))
}
