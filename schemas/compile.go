//go:build !greenlight_lean

package schemas

import (
	"bytes"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Lean is whether this is the lean build (build tag greenlight_lean),
// which has no JSON Schema validator; this build has one.
const Lean = false

// Schema is a compiled schema: github.com/santhosh-tekuri/jsonschema/v5's.
type Schema = jsonschema.Schema

// ValidationError is the validator's error for an instance that does not
// match: a tree whose leaves say which keyword failed where.
type ValidationError = jsonschema.ValidationError

// Compile compiles the named schema with format assertion on and remote
// loading disabled: a $ref may only point inside the embedded schemas.
func Compile(name string) (*Schema, error) {
	src, err := Source(name)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.Formats[FormatUTCRange] = isInUTCRange
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("greenlight does not load remote schemas (%s)", url)
	}
	// An absolute URL: a relative one makes the compiler resolve it against
	// the working directory (os.Getwd), which a browser does not have.
	url := "greenlight:///schemas/" + name + ".schema.json"
	if err := c.AddResource(url, bytes.NewReader(src)); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return s, nil
}

// Validate validates inst, in Instance's form, against schema. It returns
// nil when inst matches, the validator's *ValidationError when it does
// not, and ErrNumberOutOfRange instead of the validator's panic on a number
// it cannot represent. Every schema validation of a document read from
// outside (an event, a pipeline definition, a job log record, an
// OpenLineage event, a snapshot) goes through it, so none can crash the
// process.
func Validate(schema *Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = ErrNumberOutOfRange
		}
	}()
	return schema.Validate(inst)
}

// BeginOutput marks the point from which the process writes its results.
// It matters only in the lean build (see there); here it does nothing.
func BeginOutput() {}
