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
		// forwards SIGINT and SIGTERM to its command and records the
		// outcome.
		stopOnSignal()
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Commands: commands()}))
}

// commands are the native binary's commands beyond cli.Main's own.
func commands() map[string]func([]string, cli.Env) int {
	c := viewcmd.Commands()
	c["run"] = emit.RunCommand
	c["emit"] = emit.Command
	return c
}

// stopOnSignal makes SIGINT and SIGTERM stop greenlight at once without
// leaving anything behind (docs/contract.md, exit codes): the temporary file of
// a snapshot or report being written is removed, its target keeps its
// previous bytes, stderr says so last, and the exit code is 128 plus the
// signal's number (cli.ExitInterrupted, cli.ExitTerminated), as a shell
// reports a command a signal stopped.
func stopOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		msg := "greenlight: stopped by SIGINT"
		code := cli.ExitInterrupted
		if sig == syscall.SIGTERM {
			msg, code = "greenlight: stopped by SIGTERM", cli.ExitTerminated
		}
		for _, target := range atomicfile.Abandon() {
			msg += "; " + render.Terminal(target) + " left as it was"
		}
		os.Stderr.WriteString(msg + "\n")
		os.Exit(code)
	}()
}
