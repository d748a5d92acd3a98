//go:build wasip1

// Command greenlight.wasm is greenlight as a WASI (wasip1) command: the same
// internal/cli code as the native binary, so it takes the same arguments
// (check, validate, schema, version), reads the log from standard input or a
// preopened file, prints the same bytes and exits with the same code.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -o greenlight-wasip1.wasm ./wasm/wasip1
// Run:   wasmtime --dir . greenlight-wasip1.wasm check events.jsonl --stages 1,2
package main

import (
	"os"
	"time"
	// The zone database is embedded so that a schedule's IANA time zone
	// resolves under a WebAssembly runtime, which gives no zone database (docs/schedule.md).
	_ "time/tzdata"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now}))
}
