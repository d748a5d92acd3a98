// Package greenlight holds greenlight's own source, embedded, so that an
// installed binary can build the viewer's WebAssembly module (GOOS=js) on
// demand with the local Go toolchain ("greenlight view", docs/wasm.md):
// Source is the module's go.mod and go.sum and every package wasm/js is
// built from. internal/viewcmd tests that it lacks none of them.
package greenlight

import "embed"

// Source is the source tree the js module is built from, at the paths it
// has in the repository. Each directory is embedded whole (the checker's
// testdata too, about 0.7 MB), so that a package added to it or moved
// within it needs no change here.
//
//go:embed go.mod go.sum checker schemas internal/limits internal/logsource internal/osfile internal/version internal/words wasm/js
var Source embed.FS
