package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/words"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Help is one command's help text, in the parts conventional help has
// (docs/contract.md, "Help"): "greenlight CMD --help" prints them with the
// command's flags between the description and the examples.
type Help struct {
	// Synopsis lines, each a command line with its positional arguments.
	Synopsis []string
	// Description is one paragraph, wrapped at 78 columns when printed.
	Description string
	// Examples are command lines, each with an optional "# comment" line
	// before it.
	Examples []string
	// Exit lists the exit status values and what each means; a line
	// break in one continues it, indented.
	Exit []string
}

const exitSignal = "129, 130, 131, 143  stopped by SIGHUP, SIGINT, SIGQUIT, SIGTERM"

// Helps are the help texts of every command, by name; usage lists them in
// this order (Commands).
var Helps = map[string]Help{
	"check": {
		Synopsis: []string{
			"greenlight check EVENTS.jsonl... (--pipeline FILE | --stages IDS) [flags]",
			"greenlight check --input-format openlineage EVENTS [--pipeline FILE] [flags]",
		},
		Description: "check reads one event log (- for standard input; several files, such as a rotated log, are one log read in --log-order, and a run may span them; gzip and zstd files are read decompressed), proves that every event follows the event contract, folds the events into runs, stages and attempts, and judges each run at --now (the wall clock by default): healthy, or failed, stalled or unknown with the reason. An invalid log is exit 2 and nothing in it is evidence. A valid but unhealthy log is exit 0 unless --fail-on-unhealthy is given (greenlight gate is check with --fail-on-unhealthy), so a CI step can report without gating. Like go test, the text output is quiet on success and loud on failure: the verdict, the latest 20 unhealthy runs and missed slots, the 5 latest runs, each group latest first with a count of the rest, and the verdict again (-v lists every run). A quoted glob is expanded, its matches in byte order of their paths; --log-order name sorts every file by path with numbers by value. A violation names its file and its line there.",
		Examples: []string{
			"greenlight check events.jsonl --stages 1,2",
			"# gate a CI step on the latest run, keeping the snapshot",
			"greenlight check events.jsonl --pipeline pipeline.yaml --gate latest --fail-on-unhealthy --snapshot health.json",
			"# a rotated log: today's file and the compressed days before, oldest first",
			"greenlight check 'logs/events-*.jsonl*' --log-order name --stages 1,2",
			"# judge at a fixed moment, for a reproducible result",
			"greenlight check events.jsonl --stages 1,2 --now 2026-01-01T12:00:00Z --format json",
			"# list every run, not only the unhealthy and the latest ones",
			"greenlight check events.jsonl --stages 1,2 --all-runs",
		},
		Exit: []string{
			"0  the log is valid (with --fail-on-unhealthy: and healthy)",
			"1  the log is valid but unhealthy, and --fail-on-unhealthy is given",
			"2  the log is invalid, a file cannot be read or written, or the flags or\n   the pipeline definition are wrong",
			exitSignal,
		},
	},
	"gate": {
		Synopsis: []string{
			"greenlight gate EVENTS.jsonl... (--pipeline FILE | --stages IDS) [flags]",
		},
		Description: "gate is check with --fail-on-unhealthy: the spelling for a CI step that must fail when a run is unhealthy. It takes check's flags and prints what check prints.",
		Examples: []string{
			"greenlight gate events.jsonl --pipeline pipeline.yaml --gate latest",
			"# run every few minutes on a growing log: decode only what it gained since",
			"greenlight gate events.jsonl --pipeline pipeline.yaml --state gate.state",
		},
		Exit: []string{
			"0  the log is valid and healthy",
			"1  the log is valid but unhealthy",
			"2  the log is invalid, a file cannot be read or written, or the flags or\n   the pipeline definition are wrong",
			exitSignal,
		},
	},
	"validate": {
		Synopsis: []string{
			"greenlight validate FILE... (--pipeline FILE | --stages IDS) [flags]",
		},
		Description: "validate checks one or more event logs against the event contract only, without judging health, and lists every violation as FILE:LINE: rule: message. Each file is a log of its own (a pre-merge check of many logs); --one-log reads them as one log in --log-order, as check does, for a rotated log whose runs span files. gzip and zstd files are read decompressed. A quoted glob ('logs/*.jsonl') is expanded as the action expands its events input (** crosses directories); a glob that matches no file is an error.",
		Examples: []string{
			"greenlight validate events.jsonl --stages 1,2",
			"greenlight validate 'logs/**/*.jsonl' --pipeline pipeline.yaml --format sarif > greenlight.sarif",
		},
		Exit: []string{
			"0  every file follows the event contract",
			"2  a file breaks the contract or cannot be read, a glob matches nothing,\n   or the flags or the pipeline definition are wrong",
			exitSignal,
		},
	},
	"merge": {
		Synopsis: []string{
			"greenlight merge SNAPSHOT... --max-age DURATION [flags]",
		},
		Description: "merge rolls up the health snapshots that check --snapshot wrote, one per pipeline or job, into one verdict. Each snapshot is validated against snapshot.schema.json and must have been generated within --max-age of now; an unusable snapshot is listed in the roll-up and makes the exit status 2 (docs/merge.md).",
		Examples: []string{
			"greenlight merge nightly/*.json --max-age 26h",
			"greenlight merge a.json b.json --max-age 90m --format markdown --fail-on-unhealthy",
		},
		Exit: []string{
			"0  every snapshot is usable (with --fail-on-unhealthy: and the roll-up\n   is healthy)",
			"1  the roll-up is unhealthy, and --fail-on-unhealthy is given",
			"2  a snapshot is unusable (unreadable, not a snapshot, stale,\n   inconsistent) or the flags are wrong",
			exitSignal,
		},
	},
	"schema": {
		Synopsis: []string{
			"greenlight schema NAME",
		},
		Description: "schema prints one of the JSON Schemas that define greenlight's contracts, the source of truth for the files greenlight reads and writes. NAME is one of: " + strings.Join(schemas.Names, ", ") + ".",
		Examples: []string{
			"greenlight schema event",
			"greenlight schema pipeline > pipeline.schema.json",
		},
		Exit: []string{
			"0  the schema is printed",
			"2  NAME is not a schema's name",
		},
	},
	"view": {
		Synopsis: []string{
			"greenlight view EVENTS.jsonl... [--pipeline FILE | --stages IDS] [flags]",
		},
		Description: "view serves the viewer on 127.0.0.1, with the log preloaded, and prints its address; it serves until interrupted. Without --now the page judges the log at the browser's clock. The page's WebAssembly module comes from --wasm-dir or $GREENLIGHT_WASM_DIR, else it is built once from the binary's own source with the go command into the user cache directory; stderr says which. The log is read as check reads it (several files as one log, in --log-order; gzip and zstd files decompressed); the page's module reads a log of one file, compressed or not. For a log of several files, or without a Go toolchain, it serves the static report of greenlight report instead, and says so (native binary only).",
		Examples: []string{
			"greenlight view events.jsonl --stages 1,2 --now 2026-01-01T12:00:00Z",
		},
		Exit: []string{
			"0  stopped by SIGINT or SIGTERM after serving",
			"2  the log or the module cannot be read, or the flags are wrong",
		},
	},
	"report": {
		Synopsis: []string{
			"greenlight report EVENTS.jsonl... --html FILE [--pipeline FILE | --stages IDS] [flags]",
		},
		Description: "report writes a standalone HTML page rendered by greenlight: the verdict, the unhealthy runs latest first with their errors and recovery steps, the latest runs, the schedule and the timelines, judged at one moment (--now, else the wall clock when it is written), so every open shows the same; it needs no script and no other file. The log is read as check reads it: several files as one log, in --log-order, gzip and zstd files decompressed. --interactive writes the viewer with its WebAssembly module and the log as well, to check again in the page (a log of one file, compressed or not: the module reads one); with scripts off that page shows the static report. The file is written atomically, also for an invalid log, to show why (native binary only).",
		Examples: []string{
			"greenlight report events.jsonl --pipeline pipeline.yaml --html health.html",
			"greenlight report events.jsonl --pipeline pipeline.yaml --html viewer.html --interactive",
		},
		Exit: []string{
			"0  the log is valid and the report is written",
			"2  the log is invalid, a file cannot be read or written, or the flags\n   are wrong",
			exitSignal,
		},
	},
	"run": {
		Synopsis: []string{
			"greenlight run --log FILE --run-id ID --stage S (--pipeline FILE | --stages IDS) [flags] -- COMMAND [ARGS...]",
		},
		Description: "run runs COMMAND as one attempt of a stage and writes its evidence to the event log: a started event before it, heartbeats while it runs, and succeeded or failed with its exit code after it. Every event is appended only when the log stays valid, under a lock (docs/emit.md; native binary only).",
		Examples: []string{
			"greenlight run --log events.jsonl --run-id 2026-01-01 --stage 1 --stages 1,2 -- ./ingest.sh",
		},
		Exit: []string{
			"N      the command's own exit status",
			"128+N  the command was ended by signal N",
			"126    the command cannot be started",
			"127    the command is not found",
			"2      greenlight refused or could not record the start (the command\n       did not run), or could not record a success",
		},
	},
	"emit": {
		Synopsis: []string{
			"greenlight emit --log FILE --run-id ID --stage S --status STATUS (--pipeline FILE | --stages IDS) [flags]",
		},
		Description: "emit appends one event, built from its flags, to the event log, under a lock, and only when the log stays valid with it; otherwise it lists the violations it would cause and leaves the log as it was (docs/emit.md; native binary only).",
		Examples: []string{
			"greenlight emit --log events.jsonl --run-id 2026-01-01 --stage 1 --status started --stages 1,2",
			"greenlight emit --log events.jsonl --run-id 2026-01-01 --stage 1 --status failed --returncode 3 --error 'disk full' --stages 1,2",
		},
		Exit: []string{
			"0  the event is appended",
			"2  the event is refused (the violations are listed) or cannot be\n   written, or the flags are wrong",
			exitSignal,
		},
	},
	"action": {
		Synopsis: []string{
			"greenlight action",
		},
		Description: "action is the GitHub Action mode: it takes no arguments, reads its inputs from INPUT_* variables, checks or validates the event logs, annotates the lines that prove a problem, appends a job summary and sets step outputs (docs/action.md). The wasip1 module runs it as greenlight.wasm action.",
		Examples: []string{
			"INPUT_EVENTS='logs/*.jsonl' INPUT_STAGES=1,2 greenlight action",
		},
		Exit: []string{
			"0  the step passes",
			"1  a log is unhealthy and fail-on-unhealthy is true",
			"2  a log is invalid, or an input is unusable",
			exitSignal,
		},
	},
	"version": {
		Synopsis:    []string{"greenlight version"},
		Description: "version prints greenlight's release version (devel for a build without one).",
		Examples:    []string{"greenlight version"},
		Exit:        []string{"0  the version is printed"},
	},
}

// Commands are the command names in the order the usage lists them.
var Commands = []string{"check", "gate", "validate", "merge", "schema", "view", "report", "run", "emit", "action", "version"}

// WriteHelp prints the help of the command name to w; fs, when not nil,
// gives its flags.
func WriteHelp(w io.Writer, name string, fs *pflag.FlagSet) error {
	h, ok := Helps[name]
	if !ok {
		return fmt.Errorf("no help for %q", name)
	}
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, s := range h.Synopsis {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("\n" + words.Wrap(h.Description, 78) + "\n")
	if fs != nil && fs.HasFlags() {
		b.WriteString("\nflags:\n" + fs.FlagUsages())
	}
	b.WriteString("\nexamples:\n")
	for _, e := range h.Examples {
		b.WriteString("  " + e + "\n")
	}
	b.WriteString("\nexit status:\n")
	for _, e := range h.Exit {
		b.WriteString("  " + strings.ReplaceAll(e, "\n", "\n  ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseFlags parses args with fs, the flag set of the command fs.Name().
// On --help it prints the command's help (WriteHelp) to standard output
// and returns pflag.ErrHelp, which the commands turn into exit 0. A flag fs
// does not define is an error that names the nearest one, if one is close
// ("unknown flag: --stage (did you mean --stages?)").
func ParseFlags(fs *pflag.FlagSet, args []string, env Env) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, pflag.ErrHelp) {
		WriteHelp(env.Stdout, fs.Name(), fs)
		return err
	}
	// pflag's message holds the user's text: it is escaped whole, except
	// for an unknown flag, whose name alone is the user's and is escaped.
	msg := render.Terminal(err.Error())
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		msg = "unknown flag: " + render.Terminal("--"+ne.GetSpecifiedName())
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if near := words.Nearest(ne.GetSpecifiedName(), names); near != "" {
			msg += " (did you mean --" + near + "?)"
		}
	}
	return usageError{msg + ` (see "greenlight ` + fs.Name() + ` --help")`}
}

// unknownCommand is the error for a command line whose first word names no
// command: the nearest command, if one is close, and the known ones. The
// name is quoted once with %q, which escapes every control and unprintable
// character (a bidi override too), so it is safe for a terminal as it is.
func unknownCommand(name string, known []string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if near := words.Nearest(name, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return usageError{msg + `; run "greenlight --help" for the commands`}
}
