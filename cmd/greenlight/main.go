// Command greenlight proves, fail-closed, whether data-pipeline runs are
// healthy, from the JSON Lines event log their orchestrator writes. See
// "greenlight --help" and README.md. "greenlight action" is the GitHub
// Action mode (internal/action), dispatched here so that internal/cli and
// the WASI module stay free of the Actions library. The browser commands
// (view, report; internal/viewcmd) reach cli.Main as extra commands for the
// same reason: the WASI module needs no HTTP server. So do the writing
// commands (run, emit; internal/emit), which lock files
// and start processes.
package main

import (
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
	// The zone database is embedded so that a schedule's IANA time zone
	// resolves where the system has none (docs/schedule.md).
	_ "time/tzdata"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/action"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/emit"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

func main() {
	setGC()
	// A closed standard output is a write error (EPIPE) that the commands
	// report and clean up after (exit 2), not a silent SIGPIPE death.
	signal.Ignore(syscall.SIGPIPE)
	if len(os.Args) > 1 && os.Args[1] == "action" {
		stopOnSignal()
		if len(os.Args) == 3 && (os.Args[2] == "--help" || os.Args[2] == "-h") {
			os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
		}
		if len(os.Args) > 2 {
			os.Stderr.WriteString("greenlight: action takes no arguments; it reads its inputs from INPUT_* variables\n")
			os.Exit(cli.ExitInvalid)
		}
		os.Exit(action.Main(action.Env{GH: githubactions.New(), Now: time.Now, Token: action.RandomToken}))
	}
	if len(os.Args) < 2 || (os.Args[1] != "view" && os.Args[1] != "run") {
		// view serves until a signal and stops cleanly by itself; run
		// forwards SIGINT, SIGTERM and SIGHUP to its command and records
		// the outcome.
		stopOnSignal()
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Commands: commands()}))
}

// gcPercent is the garbage collector's GOGC for every command, unless the
// environment sets GOGC; it is the only place the native binary sets it.
// What a check allocates is mostly its fold state (runs and attempts),
// which lives to the end: at Go's default of 100 each collection marks a
// growing state and frees little. What the outputs allocate after the
// check is garbage (about a hundred bytes a run for each pass over the
// runs), which a larger GOGC lets grow the heap before it is collected:
// at 200 the heap reaches at most three times what was live at the last
// collection, between the two (docs/contract.md, "Outputs are written run
// by run"; docs/performance.md has the measurements).
const gcPercent = 200

// setGC sets gcPercent, unless GOGC is in the environment: a user who
// sets it (GOGC=off, or a smaller heap) gets what they asked for.
func setGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(gcPercent)
	}
}

// commands are the native binary's commands beyond cli.Main's own.
func commands() map[string]func([]string, cli.Env) int {
	c := viewcmd.Commands()
	c["run"] = emit.RunCommand
	c["emit"] = emit.Command
	return c
}

// stopOnSignal makes every signal that would end greenlight (SIGINT,
// SIGTERM, SIGHUP of a closed terminal or SSH session, SIGQUIT) stop it at
// once without leaving anything behind (docs/contract.md, exit codes): the
// temporary file of a snapshot, checkpoint or report being written is
// removed, its target keeps its previous bytes, stderr says so last, and
// the exit code is 128 plus the signal's number (cli.ExitInterrupted,
// cli.ExitTerminated, cli.ExitHangup, cli.ExitQuit), as a shell reports a
// command a signal stopped. SIGQUIT then prints no goroutine dump.
func stopOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		sig := <-ch
		stop := signalExits[sig]
		msg := "greenlight: stopped by " + stop.name
		for _, target := range atomicfile.Abandon() {
			msg += "; " + render.Terminal(target) + " left as it was"
		}
		os.Stderr.WriteString(msg + "\n")
		os.Exit(stop.code)
	}()
}

// signalExits name the signals stopOnSignal handles, with their exit codes.
var signalExits = map[os.Signal]struct {
	name string
	code int
}{
	syscall.SIGINT:  {"SIGINT", cli.ExitInterrupted},
	syscall.SIGTERM: {"SIGTERM", cli.ExitTerminated},
	syscall.SIGHUP:  {"SIGHUP", cli.ExitHangup},
	syscall.SIGQUIT: {"SIGQUIT", cli.ExitQuit},
}
