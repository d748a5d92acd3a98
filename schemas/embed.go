// Package schemas holds greenlight's JSON Schemas (draft 2020-12), the source
// of truth for every document greenlight reads or writes, embedded in the
// binary, and compiles them with github.com/santhosh-tekuri/jsonschema/v5.
//
// The lean build (build tag greenlight_lean, the GitHub Action's first
// module, docs/action.md) leaves the validator out, and with it the
// package initialization of jsonschema v5, which compiles the meta-schemas
// of five drafts: there Compile ends the process with ExitNeedsFull, so
// that the runner script runs the full module instead.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

//go:embed *.schema.json
var files embed.FS

// Names lists the schemas by their short name, in a fixed order.
var Names = []string{"event", "snapshot", "pipeline", "violations", "openlineage-runevent", "joblog", "rollup"}

// Source returns the bytes of the schema with the given short name (one of
// Names), or an error naming the known ones.
func Source(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("unknown schema %q (known: %s)", name, strings.Join(Names, ", "))
	}
	return b, nil
}

// Instance decodes one JSON document into the form the validator takes
// (numbers kept exact as json.Number). It returns an error for invalid JSON or
// trailing data.
func Instance(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON document")
	}
	return v, nil
}

// FormatUTCRange is the name of greenlight's own format for date-time
// strings, which the schemas put beside "date-time": the instant, once in
// UTC, lies in the years 0001 to 9999 (0001-01-01T00:00:00Z to
// 9999-12-31T23:59:59.999999999Z), the instants whose UTC form RFC 3339 can
// write. Year 0000 with +01:00 is -0001-12-31T23:00:00Z in UTC, and
// 9999-12-31T23:00:00-01:00 is in year 10000 (outside review).
// Compile asserts it; a validator that does not know it ignores it, as JSON
// Schema 2020-12 lets it.
const FormatUTCRange = "greenlight-utc-range"

// isInUTCRange asserts FormatUTCRange. A value that is not a string, or not
// an RFC 3339 date-time, passes: "type", "format": "date-time" and the
// patterns judge those.
func isInUTCRange(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return true
	}
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}
