//go:build greenlight_lean

package schemas

import (
	"os"
	"sync/atomic"
)

// Lean is whether this is the lean build (build tag greenlight_lean): it
// has no JSON Schema validator, so that the GitHub Action's module for the
// common case does not pay jsonschema v5's package initialization, which
// compiles the meta-schemas of five drafts (25 to 40 ms under node).
const Lean = true

// Schema stands for a compiled schema; the lean build never makes one.
type Schema struct{}

// ValidationError stands for the validator's error, with the fields the
// messages read (eventline.SchemaErrorText); the lean build never makes
// one, since Validate never returns.
type ValidationError struct {
	KeywordLocation  string
	InstanceLocation string
	Message          string
	Causes           []*ValidationError
}

func (e *ValidationError) Error() string { return e.Message }

// outputBegun is set by BeginOutput.
var outputBegun atomic.Bool

// BeginOutput marks the point from which the process writes its results
// (action mode calls it before its first write). A schema needed after it
// could no longer be handed to the full module without writing twice, so
// Compile then panics (a bug: action mode reads every document before it
// writes) instead of exiting with ExitNeedsFull.
func BeginOutput() { outputBegun.Store(true) }

// Compile ends the process with ExitNeedsFull, having written nothing: the
// schema named needs the full build.
func Compile(name string) (*Schema, error) {
	needFull()
	return nil, nil
}

// Validate is never reached in the lean build: Compile made no schema.
func Validate(schema *Schema, inst any) error {
	needFull()
	return nil
}

func needFull() {
	if outputBegun.Load() {
		panic("the lean module needs the JSON Schema validator after it began writing its results")
	}
	os.Exit(ExitNeedsFull)
}
