//go:build unix

package action

import (
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"
)

// TestOutputsThroughEngines: with every engine of engines (the native
// in-process action mode; wasm/wasmtest runs the same test through
// action/run.mjs running the module), a report naming the
// event log or the snapshot naming the definition is refused, exit 2, and
// the file keeps its bytes; a report in a missing directory of the
// workspace is written, the directory created.
func TestOutputsThroughEngines(t *testing.T) { steptest.OutputsThroughEngines(t, engines) }
