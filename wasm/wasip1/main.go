//go:build wasip1

// Command greenlight.wasm is greenlight as a WASI (wasip1) command: the same
// internal/cli code as the native binary, so it takes the same arguments
// (check, validate, schema, version), reads the log from standard input or a
// preopened file, prints the same bytes and exits with the same code.
// "greenlight.wasm action" is the GitHub Action mode of internal/action, as
// "greenlight action" natively; the JavaScript action (action/run.mjs) runs
// it under node:wasi. See docs/action.md.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -o greenlight-wasip1.wasm ./wasm/wasip1
// Run:   wasmtime --dir . greenlight-wasip1.wasm check events.jsonl --stages 1,2
package main

import (
	"os"
	"runtime/debug"
	"time"
	// The zone database is embedded so that a schedule's IANA time zone
	// resolves under a WebAssembly runtime, which gives no zone database (docs/schedule.md).
	_ "time/tzdata"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/internal/action"
	"github.com/greenlight-ci/greenlight/internal/cli"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "action" {
		if len(os.Args) == 3 && (os.Args[2] == "--help" || os.Args[2] == "-h") {
			os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
		}
		if len(os.Args) > 2 {
			os.Stderr.WriteString("greenlight: action takes no arguments; it reads its inputs from INPUT_* variables\n")
			os.Exit(cli.ExitInvalid)
		}
		// Action mode is one step over logs that may hold millions of
		// events, and under node Go's default pacing (GOGC=100) spends about
		// a third of the time collecting: bench/action.sh measured 28 s of
		// CPU on the 1M log against 19 s with the settings below. So collect
		// at five times the live heap, but keep the heap under 3 GiB, below
		// wasm32's 4 GiB of memory.
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(3 << 30)
		os.Exit(action.Main(action.Env{GH: githubactions.New(), Now: time.Now, Token: action.RandomToken}))
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now}))
}
