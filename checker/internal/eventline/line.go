package eventline

import (
	"fmt"
	"sync"

	"github.com/greenlight-ci/greenlight/schemas"
)

// Config is how lines are read and checked.
type Config struct {
	// MaxLineBytes is the longest accepted line, in bytes (> 0).
	MaxLineBytes int
	// Strict keeps the first field outside the contract of each event, in
	// Decoded.Unknown.
	Strict bool
	// SchemaEveryEvent validates every event with the JSON Schema validator
	// too, not only those the compiled fast path refuses.
	SchemaEveryEvent bool
	// Progress, when not nil, is called with the number of bytes read so
	// far, from the goroutine that called Read, about every ProgressEvery
	// bytes and once when reading ends.
	Progress func(bytesRead int64)
	// Listed, when not nil, reports whether the violation of the next line
	// applied would be listed (within the report's cap); Read calls it from
	// the goroutine that called Read, just before apply. Then the JSON
	// Schema validator words only the schema violations that are listed:
	// a line the compiled check refuses beyond the cap is the same schema
	// violation, counted, without the validator's work (a log of short
	// refused lines costs what a valid log of its size costs). Nil: every
	// refused line is worded.
	Listed func() bool
	// Warm, when not nil, is called from the goroutine that called Read
	// with each batch of decoded lines before apply sees the first of
	// them, so that the caller can bring into the cache, at once, what
	// folding them will read (runstore.Store.Warm).
	Warm func(batch []Decoded)
}

// ProgressEvery is how many bytes (1 MiB) Config.Progress lets pass between
// calls.
const ProgressEvery = 1 << 20

// Decode reads line n, raw, into out: the rules that need no other line
// (invalid_json, duplicate_key, schema). lazy is the event schema for the
// validator; out.Event aliases raw and the decoder's arena.
func (d *Decoder) Decode(out *Decoded, n int, raw []byte, lazy *Schema, cfg *Config) {
	*out = Decoded{Line: n}
	if isBlank(raw) {
		out.Fault = &Fault{FaultInvalidJSON, "blank line: every line must hold one JSON object"}
		return
	}
	if f := d.Syntax(raw, cfg.Strict); f != nil {
		out.Fault = f
		return
	}
	if field, lit := d.longNumber(); field != "" {
		out.Fault = longNumberFault(field, lit)
		return
	}
	ev := &out.Event
	ev.Line = n
	fast := d.fastSchema(ev)
	if !fast {
		// A number like 1e999999 in a contract field would cost the
		// validator (math/big) tens of milliseconds a line: a hostile log
		// could stall a gate. No such number is in any range the contract
		// allows, so the message is ours.
		if field, lit := d.hugeNumber(); field != "" {
			out.Fault = &Fault{FaultSchema, fmt.Sprintf("the event does not match event.schema.json: at /%s: the number %.40s is far outside every range the contract allows", field, lit)}
			return
		}
	}
	switch {
	case !fast && cfg.Listed != nil && !cfg.SchemaEveryEvent:
		// A schema violation either way; its words wait until Read knows
		// whether it is listed (word).
		out.Fault, out.unworded = &Fault{FaultSchema, unlistedSchemaMsg}, raw
		return
	case !fast:
		out.Fault = d.schemaFault(lazy)
		return
	case cfg.SchemaEveryEvent:
		if f := d.schemaFault(lazy); f.Msg != refusedMsg {
			out.Fault = f
			return
		}
	}
	if cfg.Strict && len(d.unknown) > 0 {
		out.Unknown = d.unknown[0]
	}
}

// unlistedSchemaMsg is the message of a schema violation the compiled check
// found beyond the listed violations, which no one reads: the rule id is
// the same as the validator's, and the violation is counted.
const unlistedSchemaMsg = "the event does not match event.schema.json (refused by the compiled contract check; not listed, so not worded)"

// refusedMsg is the message when the validator accepts what the compiled
// check refused: fail closed, and let the differential fuzz test find the
// gap.
const refusedMsg = "the event was refused by the compiled contract check"

// schemaFault is the schema violation of the line that Syntax last read,
// as the JSON Schema validator words it, or refusedMsg when the validator
// accepts it.
func (d *Decoder) schemaFault(lazy *Schema) *Fault {
	schema, err := lazy.Get()
	if err != nil {
		return &Fault{FaultSchema, "the event schema cannot be compiled: " + err.Error()}
	}
	if msg, ok := d.schemaCheckLine(schema); !ok {
		return &Fault{FaultSchema, msg}
	}
	return &Fault{FaultSchema, refusedMsg}
}

// word gives out, a schema violation that Decode left unworded, the
// validator's message, reading its line again.
func (d *Decoder) word(out *Decoded, lazy *Schema, cfg *Config) {
	raw := out.unworded
	out.unworded = nil
	if f := d.Syntax(raw, cfg.Strict); f != nil {
		out.Fault = f // not reached: Decode read the same bytes
		return
	}
	out.Fault = d.schemaFault(lazy)
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Schema is the event schema, compiled the first time a line needs the
// validator: a log the compiled fast path accepts whole never pays for it.
// The zero Schema is ready to use; the decoding goroutines share one.
type Schema struct {
	once   sync.Once
	schema *schemas.Schema
	err    error
}

// Get returns the compiled event schema.
func (l *Schema) Get() (*schemas.Schema, error) {
	l.once.Do(func() { l.schema, l.err = schemas.Compile("event") })
	return l.schema, l.err
}

// schemaCheck validates one line with the JSON Schema validator and returns
// its message when the event does not match.
func schemaCheck(schema *schemas.Schema, raw []byte) (msg string, ok bool) {
	inst, err := schemas.Instance(raw)
	if err != nil {
		return "not valid JSON: " + err.Error(), false
	}
	return schemaCheckValue(schema, inst, nil)
}

// schemaCheckValue validates a decoded instance (schemas.Instance's form)
// with the JSON Schema validator and returns its message when it does not
// match; then hint (if not nil) may first add to the instance what the
// message should know of the event beyond what was validated.
func schemaCheckValue(schema *schemas.Schema, inst any, hint func(any)) (msg string, ok bool) {
	if err := schemas.Validate(schema, inst); err != nil {
		if hint != nil {
			hint(inst)
		}
		return "the event does not match event.schema.json: " + SchemaErrorText(err, inst), false
	}
	return "", true
}
