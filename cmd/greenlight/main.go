// Command greenlight proves, fail-closed, whether data-pipeline runs are
// healthy, from the JSON Lines event log their orchestrator writes. See
// "greenlight --help" and README.md.
package main

import (
	"os"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now}))
}
