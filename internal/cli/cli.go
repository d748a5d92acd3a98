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
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/version"
	"github.com/greenlight-ci/greenlight/internal/words"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Flag is the command line's flag for a checker.Request field in the
// checker's messages (Request.Knob): "--stages" for Stages, "--max-age" for
// MaxAge, "--job-log" for JobLogFile.
func Flag(field string) string { return words.Knob(field, "--", '-') }

// Exit codes (docs/contract.md, Command line).
const (
	ExitOK        = 0 // valid log; with --fail-on-unhealthy, also healthy
	ExitUnhealthy = 1 // valid log, unhealthy, and --fail-on-unhealthy given
	ExitInvalid   = 2 // invalid log, unreadable file, bad flags or definition, failed write
	// The native binary stopped by a signal, as 128 plus its number (a
	// shell's convention; docs/contract.md).
	ExitHangup      = 129 // SIGHUP (a closed terminal or SSH session)
	ExitInterrupted = 130 // SIGINT
	ExitQuit        = 131 // SIGQUIT
	ExitTerminated  = 143 // SIGTERM
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/greenlight-ci/greenlight/internal/cli.Version=v1.2.3"
// (scripts/build-dist.sh and .github/workflows/release.yml do); empty in
// other builds. ToolVersion is what greenlight reports.
var Version = ""

// ToolVersion returns the version greenlight reports, in "greenlight
// version" and the snapshot's tool.version: Version when the build set it,
// else what the build records (version.Of).
func ToolVersion() string { return version.Of(Version) }

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
  greenlight check EVENTS.jsonl... (--pipeline FILE | --stages IDS) [flags]
  greenlight gate EVENTS.jsonl... (--pipeline FILE | --stages IDS) [flags]
  greenlight validate FILE... (--pipeline FILE | --stages IDS) [flags]
  greenlight merge SNAPSHOT... --max-age DURATION [flags]
  greenlight schema NAME
  greenlight view EVENTS.jsonl... [--pipeline FILE | --stages IDS]        (native binary only)
  greenlight report EVENTS.jsonl... --html FILE [--pipeline FILE | --stages IDS]  (native binary only)
  greenlight run --log FILE --run-id ID --stage S [flags] -- COMMAND [ARGS...]  (native binary only)
  greenlight emit --log FILE --run-id ID --stage S --status STATUS [flags]      (native binary only)
  greenlight action                                    (GitHub Action mode, reads INPUT_*)
  greenlight version

commands:
  check     check one event log (one or more files) and judge its runs (exit 0 even when unhealthy)
  gate      check, failing with exit 1 when a run is unhealthy (for CI)
  validate  check event logs against the event contract only
  merge     roll up the health snapshots of several checks
  schema    print a JSON Schema: event, snapshot, pipeline, violations, ...
  view      open the viewer on a log in the browser
  report    write a self-contained HTML report of a log
  run       run a command as a stage's attempt and write its events
  emit      append one event to a log
  action    the GitHub Action mode
  version   print the version

Run "greenlight help COMMAND" or "greenlight COMMAND --help" for a command's
flags, examples and exit status. EVENTS.jsonl may be - for standard input.
exit status: 0 valid (and healthy for gate or with --fail-on-unhealthy),
1 unhealthy for gate or with --fail-on-unhealthy, 2 invalid log, unreadable
file, bad flags or definition, failed write; 129, 130, 131 and 143
stopped by SIGHUP, SIGINT, SIGQUIT and SIGTERM.
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
		code, err = runCheck("check", args[1:], env)
	case "gate":
		code, err = runCheck("gate", args[1:], env)
	case "validate":
		code, err = runValidate(args[1:], env)
	case "merge":
		code, err = runMerge(args[1:], env)
	case "schema":
		err = runSchema(args[1:], env)
	case "version", "--version":
		err = runVersion(args[0], args[1:], env)
	case "help", "-h", "--help":
		err = runHelp(args[1:], env)
	default:
		if run, ok := env.Commands[args[0]]; ok {
			return run(args[1:], env)
		}
		if args[0] == "action" && len(args) == 2 && isHelp(args[1]) {
			// The module's and the binary's action dispatch come first;
			// they pass --help here.
			err = WriteHelp(env.Stdout, "action", nil)
			break
		}
		err = unknownCommand(args[0], env.known())
	}
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "greenlight: %s\n", ErrorLine(err))
		return ExitInvalid
	}
	return code
}

// known are the commands env runs, in the order of Commands.
func (env Env) known() []string {
	var names []string
	for _, name := range Commands {
		switch name {
		case "view", "report", "run", "emit": // only where env runs them
			if _, ok := env.Commands[name]; !ok {
				continue
			}
		}
		names = append(names, name)
	}
	return names
}

func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// runHelp is "greenlight help [COMMAND]".
func runHelp(args []string, env Env) error {
	switch {
	case len(args) == 0:
		_, err := io.WriteString(env.Stdout, usage)
		return err
	case len(args) == 1:
		if _, ok := Helps[args[0]]; ok {
			if run, ok := env.Commands[args[0]]; ok {
				run([]string{"--help"}, env) // prints the help with the command's flags
				return nil
			}
			switch args[0] {
			case "check", "gate", "validate", "merge":
				Main([]string{args[0], "--help"}, env)
				return nil
			}
			return WriteHelp(env.Stdout, args[0], nil)
		}
		return unknownCommand(args[0], env.known())
	}
	return usageError{"help takes at most one command name"}
}

// runVersion is "greenlight version".
func runVersion(name string, args []string, env Env) error {
	if len(args) == 1 && isHelp(args[0]) {
		return WriteHelp(env.Stdout, "version", nil)
	}
	if len(args) > 0 {
		return usageError{name + ` takes no arguments (see "greenlight version --help")`}
	}
	_, err := fmt.Fprintf(env.Stdout, "greenlight %s\n", ToolVersion())
	return err
}

// ErrorLine is err's text as one line for a terminal. The messages build
// their file names and values with render.Terminal (through
// osfile.Describe); should a character that a terminal would act on still
// be in the text (an escape sequence in a flag's name, say), the whole line
// goes through render.Terminal too, so nothing reaches the terminal raw
// (docs/contract.md).
func ErrorLine(err error) string {
	line := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	if strings.IndexFunc(line, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return render.Terminal(line)
	}
	return line
}

// common are the flags check and validate share.
type common struct {
	pipeline         string
	stages           string
	now              string
	format           string
	maxLineBytes     *RangedInt
	maxViolations    *RangedInt
	strict           bool
	schemaEveryEvent bool
	inputFormat      string
	gate             string // check only; checker.Request validates it
	maxAge           string // check only: --max-age, a duration or none
	since            string // check only: --since, a duration limiting gate all
	gating           bool   // check only: gate, or --fail-on-unhealthy
	jobLog           string // check only: the --job-log file
	progress         *whenFlag
	progressWhen     string // progress's value, checked by options
	logOrder         string // the order of a log's files: given or name
	inferStages      bool   // check only: --infer-stages
}

func (c *common) register(fs *pflag.FlagSet, formats string) {
	fs.StringVar(&c.pipeline, "pipeline", "", "pipeline definition `FILE` (YAML or JSON) declaring the expected stages")
	fs.StringVar(&c.stages, "stages", "", "shorthand for a linear pipeline: comma-separated stage `ids`, e.g. 1,2 or bronze,silver")
	fs.StringVar(&c.now, "now", "", "judge the log at this RFC 3339 `time` instead of the wall clock (reproducible results)")
	fs.StringVar(&c.format, "format", "text", "output `format`: "+formats)
	c.maxLineBytes = AddRangedInt(fs, "max-line-bytes", limits.DefaultMaxLineBytes, 1, limits.MaxLineBytes, "longest accepted line in `bytes`")
	c.maxViolations = AddRangedInt(fs, "max-violations", limits.DefaultMaxViolations, 1, limits.MaxViolations, "violations listed at most `N` (the rest are counted)")
	fs.BoolVar(&c.strict, "strict", false, "refuse event fields outside the contract")
	fs.BoolVar(&c.schemaEveryEvent, "schema-every-event", false, "validate every event with the JSON Schema validator (slow reference path)")
	fs.StringVar(&c.inputFormat, "input-format", formatNative, "event log `format`: native (the event contract) or openlineage (OpenLineage run events; docs/openlineage.md)")
	c.progress = addWhen(fs, "progress", "when to show reading progress on stderr, `auto|always|never`: auto shows it when stderr is a terminal and the log is 16 MiB or more")
	fs.StringVar(&c.logOrder, "log-order", logsource.OrderGiven, "`order` of a log's files: given (as named; a glob's matches in byte order) or name (all sorted by path, runs of digits as numbers: -9 before -10)")
}

// logFiles expands the log arguments (globs, quoted or not) into files
// and puts them in --log-order.
func (c *common) logFiles(args []string) ([]string, error) {
	if c.logOrder != logsource.OrderGiven && c.logOrder != logsource.OrderName {
		return nil, usageError{fmt.Sprintf("--log-order %q: use given or name", c.logOrder)}
	}
	names, err := expandLogs(args)
	if err != nil {
		return nil, err
	}
	if err := logsource.Sort(names, c.logOrder); err != nil {
		return nil, usageError{err.Error()}
	}
	stdin := 0
	for _, n := range names {
		if n == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, usageError{"standard input (-) can be read only once"}
	}
	return names, nil
}

// logName names a log in messages and in the snapshot's source.path: its
// file, or for a log of several files the arguments as given (a quoted
// glob stays a glob, so the name holds as the log rotates).
func logName(args, files []string) string {
	if len(files) == 1 {
		return files[0]
	}
	return strings.Join(args, " ")
}

// NewFlagSet is the flag set of the greenlight subcommand name (emit and
// run use it too): it prints nothing on errors, since the caller prints
// them in greenlight's one-line form, and lists flags in the order they
// were defined.
func NewFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// options turns the shared flags into checker options, reading the pipeline
// definition file; checker.Request does the rest, as in the js module.
func (c *common) options(env Env) (checker.Options, error) {
	maxLineBytes, err := c.maxLineBytes.Value()
	if err != nil {
		return checker.Options{}, err
	}
	if c.progressWhen, err = c.progress.Value(); err != nil {
		return checker.Options{}, err
	}
	maxViolations, err := c.maxViolations.Value()
	if err != nil {
		return checker.Options{}, err
	}
	req := checker.Request{
		Knob:             Flag,
		PipelineName:     render.Terminal(c.pipeline), // as the checker's messages name it
		Stages:           c.stages,
		Now:              c.now,
		Gate:             c.gate,
		MaxAge:           c.maxAge,
		Since:            c.since,
		Gating:           c.gating,
		MaxLineBytes:     &maxLineBytes,
		MaxViolations:    &maxViolations,
		Strict:           c.strict,
		SchemaEveryEvent: c.schemaEveryEvent,
		// An OpenLineage log names its jobs, so without a definition the
		// expected stages come from the log.
		InputFormat: c.inputFormat,
		JobLogFile:  c.jobLog,
		InferStages: c.inferStages,
	}
	if err := req.CheckInputFormat(); err != nil {
		return checker.Options{}, usageError{err.Error()}
	}
	if c.pipeline != "" && c.stages != "" {
		return checker.Options{}, usageError{"give either --pipeline or --stages, not both"}
	}
	if c.pipeline != "" {
		data, err := osfile.ReadFile(c.pipeline)
		if err != nil {
			return checker.Options{}, fmt.Errorf("cannot read the pipeline definition: %s", osfile.Describe(err))
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
	o.ToolVersion = ToolVersion()
	return o, nil
}

// readError is the error for a file that cannot be read, its name escaped
// for the terminal; for a device or FIFO named as the event log, the one
// input - stands for, it says how to read standard input.
func readError(what string, err error) error {
	msg := "cannot read " + what + ": " + osfile.Describe(err)
	var nr *osfile.NotRegularError
	if errors.As(err, &nr) && !nr.Mode.IsDir() && what == "the event log" {
		msg += " (greenlight reads only regular files; give - to read standard input)"
	}
	return errors.New(msg)
}

// checkFlags are check's and gate's flags: common's and their own.
type checkFlags struct {
	common
	state                    stateFlags
	stale                    *RangedInt
	snapshotPath, window     *string
	failOnUnhealthy, allRuns *bool
	color                    *whenFlag
	colorWhen                string // color's value once parsed: auto, always or never
}

// runCheck is check, and gate (cmd "gate"): check with --fail-on-unhealthy
// always on.
func runCheck(cmd string, args []string, env Env) (code int, err error) {
	var f checkFlags
	defer func() {
		// A run of the checkpoint that does not decode when an output
		// first reads it (docs/state.md): a damaged checkpoint.
		if r := recover(); r != nil {
			damaged, ok := r.(*checker.CheckpointError)
			if !ok || damaged.Mismatch || f.state.path == "" {
				panic(r)
			}
			code, err = ExitInvalid, fmt.Errorf("%s: %v (remove it to check the whole log)", render.Terminal(f.state.path), damaged)
		}
	}()
	logs, opts, err := f.parse(cmd, args, env)
	if err != nil {
		return ExitInvalid, err
	}
	name := opts.File
	started := time.Now() // the check's own duration, for --format openmetrics
	res, err := f.state.check(logs, opts, f.inputFormat, f.progressWhen, env)
	if err != nil {
		return ExitInvalid, err
	}
	defer f.state.discard() // a staged checkpoint that was not written
	checkSeconds := []float64{time.Since(started).Seconds()}
	if !res.Report.Valid {
		return f.writeInvalid(env, name, len(logs), opts, res, checkSeconds)
	}
	snap := res.Snapshot
	// writeOutput writes the output for the format.
	writeOutput := func(w io.Writer) error {
		switch {
		case f.format == "json":
			return render.WriteSnapshotJSON(w, snap)
		case f.format == "markdown":
			return render.WriteMarkdownReport(w, snap, render.MarkdownOptions{List: render.ListOptions{All: *f.allRuns}})
		case IsCIFormat(f.format):
			return WriteCIFormat(w, f.format, []render.Log{FormatLog(name, len(logs), opts, res)}, checkSeconds)
		}
		return render.WriteTextOptions(w, snap, render.TextOptions{
			List:  render.ListOptions{All: *f.allRuns},
			Color: useColor(f.colorWhen, isTerminal(env.Stdout), os.Getenv),
		})
	}
	printed, err := f.writeFiles(res, env, writeOutput)
	if err != nil {
		return ExitInvalid, err
	}
	switch {
	case f.format == "json" && *f.snapshotPath != "":
		// Printed by writeFiles.
	case printed != nil:
		_, err = printed.WriteTo(env.Stdout)
	default:
		err = writeOutput(env.Stdout)
	}
	if err != nil {
		return ExitInvalid, fmt.Errorf("cannot write the output: %s", osfile.Describe(err))
	}
	if *f.failOnUnhealthy && snap.Verdict != checker.VerdictHealthy {
		return ExitUnhealthy, nil
	}
	return ExitOK, nil
}

// flagSet registers check's flags (gate's: no --fail-on-unhealthy, which
// gate always is) on a new flag set.
func (f *checkFlags) flagSet(cmd string) *pflag.FlagSet {
	fs := NewFlagSet(cmd)
	f.register(fs, "text, json, markdown, junit, sarif, gitlab or openmetrics")
	f.stale = AddRangedInt(fs, "stale-after-seconds", 0, 1, limits.StaleAfterSeconds, "`seconds` of silence before an attempt in progress is a stall candidate (default: the pipeline definition's, else 600)")
	f.snapshotPath = fs.String("snapshot", "", "write the health snapshot JSON atomically to `FILE` (only when the log is valid)")
	f.failOnUnhealthy = new(bool)
	if cmd == "gate" {
		*f.failOnUnhealthy = true
	} else {
		fs.BoolVar(f.failOnUnhealthy, "fail-on-unhealthy", false, "exit 1 when the log is valid but unhealthy (greenlight gate always does)")
	}
	fs.StringVar(&f.gate, "gate", "all", "which runs the verdict looks at: `all|latest` (every run, or only the latest)")
	fs.BoolVar(&f.inferStages, "infer-stages", false, "for --input-format openlineage without --pipeline: take the jobs that logged as the expected stages, also under a gate (a job whose events never arrived is then invisible)")
	fs.StringVar(&f.maxAge, "max-age", "", "freshness: the newest succeeded run must have ended at most `DURATION` (26h, 90m, 2d) before now, else the pipeline is stale (unhealthy); none declares explicitly that there is no freshness expectation. Overrides the definition's max_age; gate needs one of max_age, a schedule or --max-age")
	fs.StringVar(&f.since, "since", "", "with --gate all: judge only the runs whose logical time (scheduled_for, else their first event) is at most `DURATION` (7d, 36h) before now; freshness still applies")
	fs.StringVar(&f.jobLog, "job-log", "", "reconcile with the job's own record of attempt outcomes, JSON Lines `FILE` (see \"greenlight schema joblog\")")
	f.state.register(fs)
	f.window = fs.String("window", "", "keep in full only the runs in the `window` (7d, 36h: back from the newest event; 5000runs: the runs first seen last) and fold older ended runs into compact records, still counted (docs/window.md)")
	f.allRuns = fs.BoolP("all-runs", "v", false, fmt.Sprintf("list every run in the log's order (text and markdown; by default they list the latest %d unhealthy runs and missed slots, then the latest %d runs)", render.DefaultMaxUnhealthy, render.DefaultLatestRuns))
	f.color = addWhen(fs, "color", "when to colour the verdict, `auto|always|never`: auto colours it when stdout is a terminal and NO_COLOR is unset or empty")
	return fs
}

// parse reads check's command line and returns the log's files and the
// checker's options (File the log's name); the error is the first flag,
// argument or input that is not usable, or outputs that would replace an
// input.
func (f *checkFlags) parse(cmd string, args []string, env Env) ([]string, checker.Options, error) {
	fs := f.flagSet(cmd)
	if err := ParseFlags(fs, args, env); err != nil {
		return nil, checker.Options{}, err
	}
	f.gating = *f.failOnUnhealthy
	if fs.Changed("max-age") && f.maxAge == "" {
		return nil, checker.Options{}, usageError{`--max-age "": use a duration from 1s to 8784h0m0s, such as 26h, 90m or 2d, or none`}
	}
	if fs.NArg() == 0 {
		return nil, checker.Options{}, usageError{cmd + " takes an event log: one or more files read as one log (paths or globs), or - for standard input"}
	}
	logs, err := f.logFiles(fs.Args())
	if err != nil {
		return nil, checker.Options{}, err
	}
	if f.inputFormat == formatOpenLineage && len(logs) != 1 {
		return nil, checker.Options{}, usageError{fmt.Sprintf("%s --input-format openlineage takes one log (a file or an event directory), and %s is %s (%s)",
			cmd, render.Terminal(strings.Join(fs.Args(), " ")), words.Count(len(logs), "file"), render.Terminal(strings.Join(shorten(logs, 3), ", ")))}
	}
	if err := checkFormat(f.format, append([]string{"text", "json", "markdown"}, CIFormats...)...); err != nil {
		return nil, checker.Options{}, err
	}
	stale, err := f.stale.Value()
	if err != nil {
		return nil, checker.Options{}, err
	}
	if f.colorWhen, err = f.color.Value(); err != nil {
		return nil, checker.Options{}, err
	}
	opts, err := f.options(env)
	if err != nil {
		return nil, checker.Options{}, err
	}
	opts.StaleAfterSeconds = stale
	if fs.Changed("window") {
		if opts.Window, err = windowOption(*f.window, f.jobLog, f.inputFormat); err != nil {
			return nil, checker.Options{}, err
		}
	}
	if f.jobLog != "" {
		data, err := osfile.ReadFile(f.jobLog)
		if err != nil {
			return nil, checker.Options{}, readError("the job log", err)
		}
		opts.JobLog = bytes.NewReader(data)
	}
	opts.File = logName(fs.Args(), logs)
	if err := f.state.validate(logs, f.inputFormat, fs.Changed("state-mismatch")); err != nil {
		return nil, checker.Options{}, err
	}
	if err := distinctOutputs(*f.snapshotPath, f.state.path, logs, f.jobLog, f.pipeline); err != nil {
		return nil, checker.Options{}, err
	}
	return logs, opts, nil
}

// writeInvalid prints the report of an invalid log in the format (a CI
// format's document, else writeReport's) and says on stderr that nothing
// in it is evidence; the exit code is ExitInvalid.
func (f *checkFlags) writeInvalid(env Env, name string, files int, opts checker.Options, res *checker.Result, checkSeconds []float64) (int, error) {
	var err error
	if IsCIFormat(f.format) {
		err = WriteCIFormat(env.Stdout, f.format, []render.Log{FormatLog(name, files, opts, res)}, checkSeconds)
	} else {
		err = writeReport(env.Stdout, res.Report, f.format)
	}
	if err != nil {
		return ExitInvalid, err
	}
	fmt.Fprintf(env.Stderr, "greenlight: %s is invalid: %s; nothing in it is evidence%s\n",
		render.Terminal(displayName(name)), words.Count(res.Report.ViolationCount, "contract violation"), untouched(*f.snapshotPath))
	return ExitInvalid, nil
}

// writeFiles writes the snapshot (--snapshot) and the checkpoint (--state)
// of a valid log before anything is printed: when one cannot be written,
// stdout holds no verdict that exit 2 contradicts, and the reason is the
// last thing on stderr (docs/contract.md). The checkpoint is written while
// the snapshot's temporary file waits to replace it, so that neither is
// replaced when the other cannot be written. With --format json and
// --snapshot it prints the file's bytes; when it built the output while
// the checkpoint was written, it returns it for the caller to print.
func (f *checkFlags) writeFiles(res *checker.Result, env Env, writeOutput func(io.Writer) error) (printed *bytes.Buffer, err error) {
	writeState := func() error { return f.state.write(res, env) }
	switch {
	case *f.snapshotPath == "" && f.state.writesStaged(res) && boundedOutput(f.format, *f.allRuns):
		// The staged checkpoint's fsync, and renaming it over the old one
		// (which frees the old one's pages), take milliseconds for a large
		// one with the CPU idle: the bounded output is built meanwhile
		// (neither touches check state) and printed only once the
		// checkpoint is written.
		printed = new(bytes.Buffer)
		built := make(chan error, 1)
		var panicked any // a damaged run's, raised again here for runCheck to report
		go func() {
			defer func() {
				if r := recover(); r != nil {
					panicked = r
					built <- nil
				}
			}()
			built <- writeOutput(printed)
		}()
		err := writeState()
		berr := <-built
		// A checkpoint that could not be written is the error, as when
		// the output is built after it: the output was for nothing.
		if panicked != nil && err == nil {
			panic(panicked)
		}
		if err == nil && berr != nil {
			err = fmt.Errorf("cannot write the output: %s", osfile.Describe(berr))
		}
		return printed, err
	case *f.snapshotPath == "":
		return nil, writeState()
	}
	write := func(w io.Writer) error { return render.WriteSnapshotJSON(w, res.Snapshot) }
	var then func(io.Reader) error
	if f.format == "json" {
		// Standard output gets the bytes of the file just written.
		then = func(written io.Reader) error {
			if _, err := io.Copy(env.Stdout, written); err != nil {
				return fmt.Errorf("cannot write the output: %s (%s is written)", osfile.Describe(err), render.Terminal(*f.snapshotPath))
			}
			return nil
		}
	}
	err = atomicfile.WriteFuncBefore(*f.snapshotPath, write, writeState, then)
	var werr *atomicfile.Error
	if errors.As(err, &werr) {
		return nil, fmt.Errorf("%v; no verdict printed, since the snapshot was not written", err)
	}
	return nil, err
}

// boundedOutput says whether the output of format is bounded whatever the
// log (docs/contract.md, streamed outputs): text and markdown without
// --all-runs, and openmetrics. Only such an output is built in memory
// before it is printed.
func boundedOutput(format string, allRuns bool) bool {
	return format == "openmetrics" || (format == "text" || format == "markdown") && !allRuns
}

// distinctOutputs refuses a --snapshot or --state FILE that is also one of
// the check's inputs or the other output (DistinctOutputs).
func distinctOutputs(snapshot, state string, logs []string, jobLog, pipeline string) error {
	var inputs []NamedFile
	for _, l := range logs {
		inputs = append(inputs, NamedFile{"the event log file", l})
	}
	inputs = append(inputs, NamedFile{"the job log", jobLog}, NamedFile{"the pipeline definition", pipeline})
	return DistinctOutputs(inputs, []NamedFile{{"--snapshot", snapshot}, {"--state", state}})
}

func untouched(snapshot string) string {
	if snapshot == "" {
		return ""
	}
	return "; " + render.Terminal(snapshot) + " left as it was"
}

// RangedInt is a numeric flag with a documented range (docs/contract.md):
// any text is taken at parse time, and Value refuses one that is not a
// whole number from Min to Max, naming the flag, the value and the range,
// so a value near the integer limits cannot wrap further on. The range is
// kept in int64, so a flag whose range passes a 32-bit int (returncode)
// means the same on every target (AddRangedInt64, Value64).
type RangedInt struct {
	Name     string
	Min, Max int64
	def      int64
	text     string
	set      bool
}

// AddRangedInt defines the flag --name on fs with a default and a range;
// the range is added to the usage text.
func AddRangedInt(fs *pflag.FlagSet, name string, def, min, max int, usage string) *RangedInt {
	return AddRangedInt64(fs, name, int64(def), int64(min), int64(max), usage)
}

// AddRangedInt64 is AddRangedInt for a range that may pass a 32-bit int;
// read its value with Value64.
func AddRangedInt64(fs *pflag.FlagSet, name string, def, min, max int64, usage string) *RangedInt {
	f := &RangedInt{Name: name, Min: min, Max: max, def: def}
	fs.Var(f, name, fmt.Sprintf("%s; %d to %d", usage, min, max))
	return f
}

// String is the flag's text, or its default.
func (f *RangedInt) String() string {
	if f.set {
		return f.text
	}
	return strconv.FormatInt(f.def, 10)
}

// Set keeps the text; Value checks it.
func (f *RangedInt) Set(s string) error {
	f.text, f.set = s, true
	return nil
}

// Type is the value's name in the usage text.
func (f *RangedInt) Type() string { return "int" }

// Changed reports whether the flag was given.
func (f *RangedInt) Changed() bool { return f.set }

// Value is the flag's value: the default when it was not given, else the
// given decimal whole number when it lies in the range, else an error. The
// flag's range must fit an int (AddRangedInt).
func (f *RangedInt) Value() (int, error) {
	n, err := f.Value64()
	return int(n), err
}

// Value64 is Value as an int64, for a flag of AddRangedInt64.
func (f *RangedInt) Value64() (int64, error) {
	if !f.set {
		return f.def, nil
	}
	n, err := strconv.ParseInt(f.text, 10, 64)
	if err != nil || n < f.Min || n > f.Max {
		return 0, usageError{fmt.Sprintf("--%s %q: use a whole number from %d to %d", f.Name, f.text, f.Min, f.Max)}
	}
	return n, nil
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
	fs := NewFlagSet("validate")
	var c common
	c.register(fs, "text, json, junit, sarif, gitlab or openmetrics")
	oneLog := fs.Bool("one-log", false, "read the files as one log in --log-order (a rotated log: a run may span files), as check does, instead of each file as a log of its own")
	if err := ParseFlags(fs, args, env); err != nil {
		return ExitInvalid, err
	}
	if fs.NArg() == 0 {
		return ExitInvalid, usageError{"validate takes one or more event logs"}
	}
	names, err := c.logFiles(fs.Args())
	if err != nil {
		return ExitInvalid, err
	}
	if err := checkFormat(c.format, append([]string{"text", "json"}, CIFormats...)...); err != nil {
		return ExitInvalid, err
	}
	if *oneLog && c.inputFormat == formatOpenLineage && len(names) != 1 {
		return ExitInvalid, usageError{"validate --one-log --input-format openlineage takes one log (a file or an event directory)"}
	}
	opts, err := c.options(env)
	if err != nil {
		return ExitInvalid, err
	}
	// Each file is a log of its own (a pre-merge check of many fixtures),
	// unless --one-log makes them one.
	groups := make([][]string, 0, len(names))
	if *oneLog {
		groups = append(groups, names)
	} else {
		for _, name := range names {
			groups = append(groups, []string{name})
		}
	}
	all := checker.NewReport()
	events, invalidLogs := 0, 0
	var logs []render.Log // for the CI formats: each log is judged on its contract only
	var checkSeconds []float64
	for _, group := range groups {
		o := opts
		name := logName(fs.Args(), group)
		o.File = name
		started := time.Now()
		// No digest: nothing validate prints names one.
		res, err := checkInput(group, o, checker.Reading{ContractOnly: true}, c.inputFormat, c.progressWhen, env)
		if err != nil {
			return ExitInvalid, err
		}
		if IsCIFormat(c.format) {
			l := FormatLog(name, len(group), o, res)
			l.ContractOnly = true
			logs = append(logs, l)
			checkSeconds = append(checkSeconds, time.Since(started).Seconds())
		}
		if !res.Report.Valid {
			invalidLogs++
		} else {
			events += res.Snapshot.Source.EventCount
		}
		all.Merge(res.Report, opts.MaxViolations)
	}
	if IsCIFormat(c.format) {
		if err := WriteCIFormat(env.Stdout, c.format, logs, checkSeconds); err != nil {
			return ExitInvalid, fmt.Errorf("cannot write the output: %v", err)
		}
	} else if c.format == "json" || !all.Valid {
		if err := writeReport(env.Stdout, all, c.format); err != nil {
			return ExitInvalid, err
		}
	}
	files := len(names)
	if !all.Valid {
		if *oneLog {
			fmt.Fprintf(env.Stderr, "greenlight: the log of %s is invalid, %s\n", words.Count(files, "file"), words.Count(all.ViolationCount, "contract violation"))
		} else {
			fmt.Fprintf(env.Stderr, "greenlight: %d of %s invalid, %s\n", invalidLogs, words.Count(files, "file"), words.Count(all.ViolationCount, "contract violation"))
		}
		return ExitInvalid, nil
	}
	if c.format == "text" {
		if *oneLog {
			fmt.Fprintf(env.Stdout, "greenlight: the log of %s follows the event contract (%s)\n", words.Count(files, "file"), words.Count(events, "event"))
		} else {
			fmt.Fprintf(env.Stdout, "greenlight: %s the event contract (%s)\n", words.Count(files, "file follows"), words.Count(events, "event"))
		}
	}
	return ExitOK, nil
}

// shorten is the first n of names, then "…" when there are more.
func shorten(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(names[:n:n], "…")
}

func runSchema(args []string, env Env) error {
	if len(args) == 1 && isHelp(args[0]) {
		return WriteHelp(env.Stdout, "schema", nil)
	}
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

// windowOption reads --window, refusing it with the options it cannot
// serve (docs/window.md): --job-log, whose reconciliation compares every
// attempt, and --input-format openlineage.
func windowOption(text, jobLog, inputFormat string) (checker.Window, error) {
	w, err := checker.ParseWindow(text)
	if err != nil {
		return w, usageError{"--window: " + err.Error()}
	}
	switch {
	case jobLog != "":
		return w, usageError{"--window cannot be combined with --job-log: the reconciliation compares every attempt with the job log"}
	case inputFormat == formatOpenLineage:
		return w, usageError{"--window reads native event logs only, not --input-format openlineage"}
	}
	return w, nil
}
