// Package viewer holds greenlight's static browser viewer (index.html,
// viewer.js, worker.js, viewer.css) embedded for "greenlight view" and
// "greenlight report --interactive". The WebAssembly module it loads
// (greenlight.wasm) and Go's wasm_exec.js are build outputs, not embedded:
// wasm/build.sh (or "go generate ./wasm/viewer") writes them into this
// directory, and "greenlight view" without --wasm-dir builds them from the
// binary's embedded source into the user cache directory.
package viewer

import "embed"

//go:generate sh ../build.sh

// Static holds the viewer's hand-written files; serve them as they are.
//
//go:embed index.html viewer.js worker.js viewer.css
var Static embed.FS

// The build outputs the viewer loads beside Static, by file name.
const (
	ModuleFile   = "greenlight.wasm"
	WasmExecFile = "wasm_exec.js"
)
