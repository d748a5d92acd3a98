// Command greenlight proves, fail-closed, whether data-pipeline runs are
// healthy, from the JSON Lines event log their orchestrator writes. See
// "greenlight --help" and README.md. "greenlight action" is the GitHub
// Action mode (internal/action), dispatched here so that internal/cli and
// the WASI module stay free of the Actions library. The browser commands
// (view, report; internal/viewcmd) reach cli.Main as extra commands for the
// same reason: the WASI module needs no HTTP server.
package main

import (
	"os"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/internal/action"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "action" {
		if len(os.Args) > 2 {
			os.Stderr.WriteString("greenlight: action takes no arguments; it reads its inputs from INPUT_* variables\n")
			os.Exit(cli.ExitInvalid)
		}
		os.Exit(action.Main(action.Env{GH: githubactions.New(), Now: time.Now, Token: action.RandomToken}))
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Commands: viewcmd.Commands()}))
}
