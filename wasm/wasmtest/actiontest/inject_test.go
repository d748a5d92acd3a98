package actiontest

import (
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"
)

// The JavaScript action's side of internal/action's inject_test.go:
// hostile log text, input errors and the snapshot, each through the
// runner script as released and with the full module only.

// TestHostileLogText feeds logs whose error and run_id hold line breaks,
// workflow commands (::error::, ::set-output, ::add-mask::, ::stop-commands::),
// %0A, ##[error], a fake output delimiter, Markdown, HTML and Mermaid
// directives, and checks that none of it forges a workflow command, an
// output or markup, in-process and through the JavaScript action.
func TestHostileLogText(t *testing.T) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			steptest.CheckHostile(t, e.Run(t, steptest.HostileEnv()))
		})
	}
}

// TestHostileRequest: a stale and an unclaimed request whose request_id
// and claimed_by hold workflow commands, property separators, %-escapes and
// HTML get their annotations, and none of that text forges a workflow
// command, a property, an output or markup, through the JavaScript action
// (testdata/action/hostile_request.txtar pins the bytes).
func TestHostileRequest(t *testing.T) {
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			steptest.CheckHostile(t, e.Run(t, steptest.HostileRequestEnv()))
		})
	}
}

// TestInputErrors: each unusable input of testdata/action/input_errors.json
// is refused with exit 2, one error line that names it, and the verdict
// output invalid, through the JavaScript action: the full module runs every
// case, as internal/action's TestInputErrors does in-process, the released
// layout (the lean module first) those that reach the file system. Where
// the module words an OS error its own way (WASI's "No such file or
// directory"), the table says so (want_end).
func TestInputErrors(t *testing.T) {
	for _, c := range steptest.InputErrors(t, root) {
		for _, e := range engines {
			if e.Name == "wasm" && !c.ReachesFileSystem {
				continue
			}
			t.Run(c.Name+"/"+e.Name, func(t *testing.T) {
				c.Check(t, e.Name, e.Run(t, c.Env))
			})
		}
	}
}

// TestSnapshot: a valid log's snapshot is written atomically with the same
// bytes as the checker's golden; an invalid log leaves the previous one.
func TestSnapshot(t *testing.T) { steptest.Snapshot(t, root, engines) }
