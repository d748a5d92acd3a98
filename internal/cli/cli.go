// Package cli is the greenlight command line: flags, files, exit codes. The
// native binary (cmd/greenlight) and the WASI module (wasm/wasip1) both run
// it, so they take the same arguments and print the same bytes.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Exit codes (DESIGN.md §6).
const (
	ExitOK        = 0 // valid log; with --fail-on-unhealthy, also healthy
	ExitUnhealthy = 1 // valid log, unhealthy, and --fail-on-unhealthy given
	ExitInvalid   = 2 // invalid log, unreadable file, bad flags or definition, failed write
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/greenlight-ci/greenlight/internal/cli.Version=v1.2.3"
// (scripts/build-dist.sh and .github/workflows/release.yml do); empty in
// other builds. ToolVersion is what greenlight reports.
var Version = ""

// ToolVersion returns the version greenlight reports: Version when the
// build set it; else the main module's version that debug.ReadBuildInfo
// gives (v1.2.3 for "go install github.com/greenlight-ci/greenlight/cmd/greenlight@v1.2.3",
// a pseudo-version for a build in a git checkout with VCS stamping); else
// "devel".
func ToolVersion() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Env is what the command line may use of the world besides its arguments.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Now returns the wall clock; used only when --now is not given.
	Now func() time.Time
	// Commands are extra commands by name (the native binary's view and
	// report); Main runs one with the arguments after its name and returns
	// its exit code. The wasip1 module has none.
	Commands map[string]func(args []string, env Env) int
}

// usageError is a mistake in the command line: exit 2 with the message.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `greenlight proves, fail-closed, whether data-pipeline runs are healthy.

usage:
  greenlight check EVENTS.jsonl (--pipeline FILE | --stages 1,2) [flags]
  greenlight validate FILE... (--pipeline FILE | --stages 1,2) [flags]
  greenlight check --input-format openlineage EVENTS [--pipeline FILE] [flags]
  greenlight schema event|snapshot|pipeline|violations|openlineage-runevent|joblog
  greenlight view EVENTS.jsonl [--pipeline FILE | --stages 1,2]    (native binary only)
  greenlight report EVENTS.jsonl --html FILE [--pipeline FILE | --stages 1,2]    (native binary only)
  greenlight version

EVENTS.jsonl may be - for standard input; an OpenLineage EVENTS may also be a
JSON array or a directory of *.json files. Run "greenlight check --help" for the flags.
exit codes: 0 valid (and healthy with --fail-on-unhealthy), 1 unhealthy with
--fail-on-unhealthy, 2 invalid log, unreadable file, bad flags or definition.
`

// Main runs greenlight with args (without the program name) and returns the
// exit code. It never calls os.Exit.
func Main(args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitInvalid
	}
	var err error
	code := ExitOK
	switch args[0] {
	case "check":
		code, err = runCheck(args[1:], env)
	case "validate":
		code, err = runValidate(args[1:], env)
	case "schema":
		err = runSchema(args[1:], env)
	case "version", "--version":
		fmt.Fprintf(env.Stdout, "greenlight %s\n", ToolVersion())
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
	default:
		if run, ok := env.Commands[args[0]]; ok {
			return run(args[1:], env)
		}
		known := "check, validate, schema"
		for _, name := range []string{"view", "report", "action"} {
			if _, ok := env.Commands[name]; ok {
				known += ", " + name
			}
		}
		err = usageError{fmt.Sprintf("unknown command %q (use %s or version)", args[0], known)}
	}
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "greenlight: %s\n", oneLine(err.Error()))
		return ExitInvalid
	}
	return code
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// common are the flags check and validate share.
type common struct {
	pipeline         string
	stages           string
	now              string
	format           string
	maxLineBytes     int
	maxViolations    int
	strict           bool
	schemaEveryEvent bool
	inputFormat      string
	gate             string // check only; checker.Request validates it
}

func (c *common) register(fs *pflag.FlagSet, formats string) {
	fs.StringVar(&c.pipeline, "pipeline", "", "pipeline definition `FILE` (YAML or JSON) declaring the expected stages")
	fs.StringVar(&c.stages, "stages", "", "shorthand for a linear pipeline: comma-separated stage `ids`, e.g. 1,2 or bronze,silver")
	fs.StringVar(&c.now, "now", "", "judge the log at this RFC 3339 `time` instead of the wall clock (reproducible results)")
	fs.StringVar(&c.format, "format", "text", "output `format`: "+formats)
	fs.IntVar(&c.maxLineBytes, "max-line-bytes", checker.DefaultMaxLineBytes, "longest accepted line in `bytes`")
	fs.IntVar(&c.maxViolations, "max-violations", checker.DefaultMaxViolations, "violations listed at most `N` (the rest are counted)")
	fs.BoolVar(&c.strict, "strict", false, "refuse event fields outside the contract")
	fs.BoolVar(&c.schemaEveryEvent, "schema-every-event", false, "validate every event with the JSON Schema validator (slow reference path)")
	fs.StringVar(&c.inputFormat, "input-format", formatNative, "event log `format`: native (the event contract) or openlineage (OpenLineage run events; docs/openlineage.md)")
}

func newFlagSet(name string, env Env) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

func parseFlags(fs *pflag.FlagSet, args []string, env Env) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(env.Stdout, "usage of greenlight %s:\n%s", fs.Name(), fs.FlagUsages())
			return err
		}
		return usageError{err.Error() + ` (see "greenlight ` + fs.Name() + ` --help")`}
	}
	return nil
}

// options turns the shared flags into checker options, reading the pipeline
// definition file; checker.Request does the rest, as in the js module.
func (c *common) options(env Env) (checker.Options, error) {
	if err := c.checkInputFormat(); err != nil {
		return checker.Options{}, err
	}
	if c.pipeline != "" && c.stages != "" {
		return checker.Options{}, usageError{"give either --pipeline or --stages, not both"}
	}
	if c.maxLineBytes < 1 {
		return checker.Options{}, usageError{"--max-line-bytes must be at least 1"}
	}
	if c.maxViolations < 1 {
		return checker.Options{}, usageError{"--max-violations must be at least 1"}
	}
	req := checker.Request{
		PipelineName:     c.pipeline,
		Stages:           c.stages,
		Now:              c.now,
		Gate:             c.gate,
		MaxLineBytes:     c.maxLineBytes,
		MaxViolations:    c.maxViolations,
		Strict:           c.strict,
		SchemaEveryEvent: c.schemaEveryEvent,
		// An OpenLineage log names its jobs, so without a definition the
		// expected stages come from the log.
		DefinitionOptional: c.inputFormat == formatOpenLineage,
	}
	if c.pipeline != "" {
		data, err := os.ReadFile(c.pipeline)
		if err != nil {
			return checker.Options{}, fmt.Errorf("cannot read the pipeline definition: %v", err)
		}
		req.Pipeline = data
	}
	o, err := req.Options()
	if err != nil {
		return o, err
	}
	if c.now == "" {
		o.Now = env.Now().UTC()
	}
	return o, nil
}

// openLog opens a log by name; "-" is standard input.
func openLog(name string, env Env) (io.Reader, func(), error) {
	if name == "-" {
		return env.Stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the event log: %v", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("cannot read the event log: %s is a directory", name)
	}
	return f, func() { f.Close() }, nil
}

func runCheck(args []string, env Env) (int, error) {
	fs := newFlagSet("check", env)
	var c common
	c.register(fs, "text, json or markdown")
	stale := fs.Int("stale-after-seconds", 0, "`seconds` of silence before an attempt in progress is a stall candidate (default: the pipeline definition's, else 600)")
	snapshotPath := fs.String("snapshot", "", "write the health snapshot JSON atomically to `FILE` (only when the log is valid)")
	failOnUnhealthy := fs.Bool("fail-on-unhealthy", false, "exit 1 when the log is valid but unhealthy")
	fs.StringVar(&c.gate, "gate", "all", "which runs the verdict looks at: `all` or latest")
	jobLogPath := fs.String("job-log", "", "reconcile with the job's own record of attempt outcomes, JSON Lines `FILE` (see \"greenlight schema joblog\")")
	if err := parseFlags(fs, args, env); err != nil {
		return ExitInvalid, err
	}
	if fs.NArg() != 1 {
		return ExitInvalid, usageError{"check takes exactly one event log (a path, or - for standard input)"}
	}
	if err := checkFormat(c.format, "text", "json", "markdown"); err != nil {
		return ExitInvalid, err
	}
	if fs.Changed("stale-after-seconds") && *stale < 1 {
		return ExitInvalid, usageError{"--stale-after-seconds must be at least 1"}
	}
	opts, err := c.options(env)
	if err != nil {
		return ExitInvalid, err
	}
	opts.StaleAfterSeconds = *stale
	opts.StreamRuns = true // outputs are written run by run
	if *jobLogPath != "" {
		data, err := os.ReadFile(*jobLogPath)
		if err != nil {
			return ExitInvalid, fmt.Errorf("cannot read the job log: %v", err)
		}
		opts.JobLog, opts.JobLogFile = bytes.NewReader(data), *jobLogPath
	}
	name := fs.Arg(0)
	opts.File = name
	res, err := checkInput(name, opts, c.inputFormat, env)
	if err != nil {
		return ExitInvalid, err
	}
	if !res.Report.Valid {
		if err := writeReport(env.Stdout, res.Report, c.format); err != nil {
			return ExitInvalid, err
		}
		fmt.Fprintf(env.Stderr, "greenlight: %s is invalid: %d contract %s; nothing in it is evidence%s\n",
			render.Terminal(displayName(name)), res.Report.ViolationCount, plural(res.Report.ViolationCount, "violation", "violations"), untouched(*snapshotPath))
		return ExitInvalid, nil
	}
	snap := res.Snapshot
	switch c.format {
	case "json":
		if *snapshotPath != "" {
			// One pass writes the snapshot file and standard output.
			err = atomicfile.WriteFunc(*snapshotPath, func(w io.Writer) error {
				return render.WriteSnapshotJSON(io.MultiWriter(w, env.Stdout), snap)
			})
			if err != nil {
				return ExitInvalid, err
			}
			break
		}
		err = render.WriteSnapshotJSON(env.Stdout, snap)
	case "markdown":
		_, err = io.WriteString(env.Stdout, render.MarkdownReport(snap, render.MarkdownOptions{}))
	default:
		_, err = io.WriteString(env.Stdout, render.Text(snap))
	}
	if err != nil {
		return ExitInvalid, fmt.Errorf("cannot write the output: %v", err)
	}
	if *snapshotPath != "" && c.format != "json" {
		err := atomicfile.WriteFunc(*snapshotPath, func(w io.Writer) error { return render.WriteSnapshotJSON(w, snap) })
		if err != nil {
			return ExitInvalid, err
		}
	}
	if *failOnUnhealthy && snap.Verdict != checker.VerdictHealthy {
		return ExitUnhealthy, nil
	}
	return ExitOK, nil
}

func untouched(snapshot string) string {
	if snapshot == "" {
		return ""
	}
	return "; " + render.Terminal(snapshot) + " left as it was"
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

func checkFormat(f string, allowed ...string) error {
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return usageError{fmt.Sprintf("--format %q: use %s", f, strings.Join(allowed, ", "))}
}

func writeReport(w io.Writer, r *checker.Report, format string) error {
	var err error
	switch format {
	case "json":
		var doc []byte
		if doc, err = render.JSON(r); err == nil {
			_, err = w.Write(doc)
		}
	case "markdown":
		_, err = io.WriteString(w, render.ViolationsMarkdown(r, 0))
	default:
		_, err = io.WriteString(w, render.ViolationsText(r))
	}
	if err != nil {
		return fmt.Errorf("cannot write the output: %v", err)
	}
	return nil
}

func runValidate(args []string, env Env) (int, error) {
	fs := newFlagSet("validate", env)
	var c common
	c.register(fs, "text or json")
	if err := parseFlags(fs, args, env); err != nil {
		return ExitInvalid, err
	}
	if fs.NArg() == 0 {
		return ExitInvalid, usageError{"validate takes one or more event logs"}
	}
	if err := checkFormat(c.format, "text", "json"); err != nil {
		return ExitInvalid, err
	}
	opts, err := c.options(env)
	if err != nil {
		return ExitInvalid, err
	}
	all := checker.NewReport()
	stdinUsed := false
	events, invalidFiles := 0, 0
	for _, name := range fs.Args() {
		if name == "-" {
			if stdinUsed {
				return ExitInvalid, usageError{"standard input (-) can be read only once"}
			}
			stdinUsed = true
		}
		o := opts
		o.File = name
		o.StreamRuns = true // validate counts events; it never builds the run reports
		res, err := checkInput(name, o, c.inputFormat, env)
		if err != nil {
			return ExitInvalid, err
		}
		if !res.Report.Valid {
			invalidFiles++
		} else {
			events += res.Snapshot.Source.EventCount
		}
		all.Merge(res.Report, opts.MaxViolations)
	}
	if c.format == "json" || !all.Valid {
		if err := writeReport(env.Stdout, all, c.format); err != nil {
			return ExitInvalid, err
		}
	}
	files := len(fs.Args())
	if !all.Valid {
		fmt.Fprintf(env.Stderr, "greenlight: %d of %d files invalid, %d contract %s\n", invalidFiles, files, all.ViolationCount, plural(all.ViolationCount, "violation", "violations"))
		return ExitInvalid, nil
	}
	if c.format == "text" {
		fmt.Fprintf(env.Stdout, "greenlight: %d %s the event contract (%d events)\n", files, plural(files, "file follows", "files follow"), events)
	}
	return ExitOK, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func runSchema(args []string, env Env) error {
	if len(args) != 1 {
		return usageError{"schema takes one name: " + strings.Join(schemas.Names, ", ")}
	}
	src, err := schemas.Source(args[0])
	if err != nil {
		return usageError{err.Error()}
	}
	if !bytes.HasSuffix(src, []byte("\n")) {
		src = append(src, '\n')
	}
	_, err = env.Stdout.Write(src)
	return err
}
