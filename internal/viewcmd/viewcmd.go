// Package viewcmd holds the native binary's browser commands: "greenlight
// view" serves the viewer (wasm/viewer) on 127.0.0.1 with a log preloaded,
// and "greenlight report" writes a standalone HTML report rendered by Go
// (render.WriteHTMLReport), or with --interactive one file holding the
// viewer, the WebAssembly module and the log. The viewer's js module comes
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
	pipeline, stages, now, gate, wasmDir, inputFormat string
	stale                                             *cli.RangedInt
}

func (f *flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.pipeline, "pipeline", "", "pipeline definition `FILE` (YAML or JSON) declaring the expected stages")
	fs.StringVar(&f.stages, "stages", "", "shorthand for a linear pipeline: comma-separated stage `ids`")
	fs.StringVar(&f.now, "now", "", "judge the log at this RFC 3339 `time`")
	f.stale = cli.AddRangedInt(fs, "stale-after-seconds", 0, 1, checker.StaleAfterSecondsLimit, "`seconds` of silence before an attempt in progress is a stall candidate")
	fs.StringVar(&f.gate, "gate", "all", "which runs the verdict looks at: `all|latest` (every run, or only the latest)")
	fs.StringVar(&f.inputFormat, "input-format", checker.FormatNative, "event log `format`: native or openlineage (one file of OpenLineage run events)")
	fs.StringVar(&f.wasmDir, "wasm-dir", "", "`DIR` holding a built greenlight.wasm and wasm_exec.js (default $GREENLIGHT_WASM_DIR, else built on demand into the user cache directory)")
}

// parse reads the command line and returns the log's name.
func (f *flags) parse(fs *pflag.FlagSet, args []string, env cli.Env) (string, error) {
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	if err := cli.ParseFlags(fs, args, env); err != nil {
		return "", err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "-" {
		return "", fmt.Errorf("%s takes exactly one event log file", fs.Name())
	}
	return fs.Arg(0), nil
}

// resolve reads the log and the definition and checks the options with the
// checker's own rules, so a mistake is reported here (exit 2) rather than
// in the page. With readLog false it leaves the log unread (nil) for the
// caller to stream.
func (f *flags) resolve(name string, fixNow string, readLog bool) (Preload, []byte, checker.Options, error) {
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
	req := checker.Request{PipelineName: render.Terminal(f.pipeline), Stages: f.stages, Now: p.Now, Gate: f.gate, File: name, InputFormat: f.inputFormat}
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
	log, err := osfile.ReadFile(name)
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

// verdictLine says in one line what the native checker found, for the
// commands' own output.
func verdictLine(res *checker.Result) string {
	if res.Snapshot == nil {
		return fmt.Sprintf("%s is invalid: %s", render.Terminal(res.Report.Violations[0].File), words.Count(res.Report.ViolationCount, "contract violation"))
	}
	return fmt.Sprintf("%s: %s", res.Snapshot.Verdict, words.Count(res.Snapshot.RunCount, "run"))
}
