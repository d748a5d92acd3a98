package eventline

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/greenlight-ci/greenlight/internal/words"
	"github.com/greenlight-ci/greenlight/schemas"
)

// leafSkip is the message of a schema error leaf that another leaf of the
// same error already explains.
const leafSkip = "\x00skip"

// friendlyLeaf words one failing leaf of a schema validation for a person
// (docs/contract.md, "Messages"): which field, the value found, what was
// expected and the nearest allowed value ("did you mean"). inst is the
// validated instance (schemas.Instance's form), nil when not known; the
// values taken from it are Go-quoted, the message as a whole never is. ok
// is false to keep the validator's own message.
func friendlyLeaf(e *schemas.ValidationError, loc string, inst any) (msg string, ok bool) {
	kw := e.KeywordLocation
	switch {
	case strings.HasSuffix(kw, "/propertyNames/then/enum") || strings.HasSuffix(kw, "/propertyNames/enum"):
		// A key that differs from a contract field only in case
		// ("Status"): name the one field it shadows.
		key := lastToken(loc)
		allowed, parsed := enumValues(e.Message)
		if !parsed {
			return "", false
		}
		for _, a := range allowed {
			if strings.EqualFold(a, key) {
				return strconv.Quote(key) + " differs from the contract field " + strconv.Quote(a) + " only in case and would shadow it: write " + strconv.Quote(a), true
			}
		}
		if near := words.Nearest(key, allowed); near != "" {
			return strconv.Quote(key) + " is not a field of the event contract; did you mean " + strconv.Quote(near) + "?", true
		}
		return strconv.Quote(key) + " is not a field of the event contract (see \"greenlight schema event\")", true
	case strings.HasSuffix(kw, "/enum"):
		allowed, parsed := enumValues(e.Message)
		if !parsed {
			return "", false
		}
		v, found := lookup(inst, loc)
		if !found {
			return "", false
		}
		m := "found " + valueText(v) + ", expected " + oneOf(allowed)
		if s, isString := v.(string); isString {
			if near := words.Nearest(s, allowed); near != "" {
				m += "; did you mean " + strconv.Quote(near) + "?"
			}
		}
		return m, true
	case (strings.HasSuffix(kw, "/properties/stage") || strings.HasSuffix(kw, "/properties/attempt")) && e.Message == "not allowed":
		// A false schema: the field is present on a run-level event or
		// on a request event.
		status, _ := lookup(inst, "/status")
		s, _ := status.(string)
		if s == "requested" || s == "claimed" {
			return requestShapeText(lastToken(loc)), true
		}
		return "a " + s + runLevelText, true
	case strings.HasSuffix(kw, "/required"):
		at, _ := lookup(inst, loc)
		obj, isObj := at.(map[string]any)
		missing := quotedNames(e.Message)
		if !isObj || len(missing) == 0 {
			return "", false
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		var parts []string
		explained := 0
		for _, name := range missing {
			if slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, name) }) {
				explained++ // the leaf for the key that shadows it says so
				continue
			}
			p := "the required field " + strconv.Quote(name) + " is missing"
			if near := nearestKey(name, keys); near != "" {
				p += "; the event has " + strconv.Quote(near) + ": did you mean " + strconv.Quote(name) + "?"
			}
			parts = append(parts, p)
		}
		if explained == len(missing) {
			return leafSkip, true
		}
		return strings.Join(parts, "; "), true
	}
	return "", false
}

// nearestKey is the key of the event closest to the missing field name,
// "" when none is a likely slip; keys in the contract are no slip.
func nearestKey(name string, keys []string) string {
	known := contractFieldNames()
	var cands []string
	for _, k := range keys {
		if !slices.Contains(known[:], k) {
			cands = append(cands, k)
		}
	}
	// The candidates come from a map: sorted, the answer is the same on
	// every run.
	slices.Sort(cands)
	for _, k := range cands {
		if words.Nearest(k, []string{name}) != "" {
			return k
		}
	}
	return ""
}

// enumValues reads the allowed values out of the validator's enum message
// (`value must be one of "a", "b"`); parsed is false for another form.
func enumValues(msg string) (vals []string, parsed bool) {
	const prefix = "value must be one of "
	if !strings.HasPrefix(msg, prefix) {
		return nil, false
	}
	for _, part := range strings.Split(strings.TrimPrefix(msg, prefix), ", ") {
		if part == "<nil>" { // the validator's form of null
			vals = append(vals, jsonNull)
			continue
		}
		s, err := strconv.Unquote(part)
		if err != nil {
			return nil, false
		}
		vals = append(vals, s)
	}
	return vals, len(vals) > 0
}

// quotedNames are the names in the validator's required message
// (`missing properties: 'a', 'b'`).
func quotedNames(msg string) []string {
	const prefix = "missing properties: "
	if !strings.HasPrefix(msg, prefix) {
		return nil
	}
	var names []string
	for _, part := range strings.Split(strings.TrimPrefix(msg, prefix), ", ") {
		if len(part) >= 2 && part[0] == '\'' && part[len(part)-1] == '\'' {
			names = append(names, part[1:len(part)-1])
		}
	}
	return names
}

// jsonNull stands for null among enumValues' strings.
const jsonNull = "\x00null"

// oneOf lists the allowed values: `"a", "b" or null`.
func oneOf(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
		if v == jsonNull {
			q[i] = "null"
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// lookup finds the value at the JSON pointer loc in inst.
func lookup(inst any, loc string) (any, bool) {
	if inst == nil {
		return nil, false
	}
	v := inst
	for _, tok := range strings.Split(strings.TrimPrefix(loc, "/"), "/") {
		if tok == "" {
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[unescapeToken(tok)]; !ok {
			return nil, false
		}
	}
	return v, true
}

func lastToken(loc string) string {
	return unescapeToken(loc[strings.LastIndex(loc, "/")+1:])
}

func unescapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// valueText shows a value found in the log: a string Go-quoted, a number or
// literal as written, anything else by its kind.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a value"
}

// SchemaErrorText turns a jsonschema validation error into one line: each
// failing leaf as "at <JSON pointer>: <message>", sorted and joined with
// "; ". Other errors are returned as their text. inst, when not nil, is the
// instance that was validated (schemas.Instance's form): an enum leaf then
// shows the value found and the nearest allowed one, a missing field the
// key that looks like it (friendlyLeaf). Every schema of greenlight (event,
// pipeline, job log, OpenLineage) words its violations with it.
func SchemaErrorText(err error, inst any) string {
	var ve *schemas.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	seen := map[string]bool{}
	var walk func(e *schemas.ValidationError)
	walk = func(e *schemas.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			msg := e.Message
			if m, ok := friendlyLeaf(e, loc, inst); ok {
				if m == leafSkip {
					return
				}
				msg = m
			}
			if strings.HasSuffix(e.KeywordLocation, "/pattern") {
				if hint := patternHint(loc[strings.LastIndex(loc, "/")+1:]); hint != "" {
					msg = hint
				}
			}
			if strings.HasSuffix(e.KeywordLocation, "/maxLength") && loc == "/run_id" {
				msg = "must be at most 256 characters" // the length itself is left out: the validator may see a shortened run_id
			}
			if strings.HasSuffix(e.KeywordLocation, "/format") && strings.HasSuffix(e.Message, "'"+schemas.FormatUTCRange+"'") {
				msg = "must lie, once in UTC, in the years 0001 to 9999 (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)"
			}
			p := "at " + loc + ": " + msg
			if !seen[p] {
				seen[p] = true
				parts = append(parts, p)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	parts = dropRunLevelNoise(parts)
	parts = onlyRequestShape(parts)
	// The validator reports the properties of an object in map order, which
	// changes from run to run: sorted, the same line gives the same text.
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// dropRunLevelNoise keeps, of the leaves at a stage or attempt on a
// run-level event, only the one that says so: the field's type does not
// matter there (null is refused too).
func dropRunLevelNoise(parts []string) []string {
	var runLevel []string // "at /stage: "
	for _, p := range parts {
		if at, _, ok := strings.Cut(p, ": "); ok && strings.HasSuffix(p, runLevelText) {
			runLevel = append(runLevel, at+": ")
		}
	}
	if len(runLevel) == 0 {
		return parts
	}
	return slices.DeleteFunc(parts, func(p string) bool {
		return !strings.HasSuffix(p, runLevelText) && slices.ContainsFunc(runLevel, func(at string) bool { return strings.HasPrefix(p, at) })
	})
}

// runLevelText ends the message of a stage or attempt on a run-level event.
const runLevelText = " event is run-level: it has no stage or attempt"

// patternHint says in words what a field's schema pattern asks, for the
// fields whose patterns people meet; "" leaves the validator's message.
func patternHint(field string) string {
	switch field {
	case "error", "reason", "resolved_by", "attempt_id", "audit_event_id", "audit_completed_by", "evidence_ref":
		return "must hold a character other than white space and characters that render as nothing"
	case "run_id":
		return "must hold no control character (U+0000-U+001F, U+007F-U+009F)"
	case "timestamp_utc", "scheduled_for", "lease_expires_at", "since":
		return "must be an RFC 3339 date-time with an offset, uppercase T and Z, at most 9 fraction digits and no leap second, e.g. 2026-01-01T02:00:00Z or 2026-01-01T04:00:00+02:00"
	case "stage", "id":
		return "a string stage id starts with a letter and holds only letters, digits, _ . - (at most 128 characters)"
	}
	return ""
}

// requestShapeText is the message of a request event (requested, claimed)
// that names field, stage or attempt: such an event is about a request, not
// an attempt (docs/recovery.md, Claimed requests).
func requestShapeText(field string) string {
	return "a request event (status requested or claimed) names a request, not an attempt: remove " + strconv.Quote(field) + " (null too)"
}

// onlyRequestShape drops, from the leaves of a schema message, the other
// leaves at a location that requestShapeText already explains (the field's
// own type check): the one reason is the one to fix.
func onlyRequestShape(parts []string) []string {
	for _, f := range []string{"stage", "attempt"} {
		shape := "at /" + f + ": " + requestShapeText(f)
		if !slices.Contains(parts, shape) {
			continue
		}
		parts = slices.DeleteFunc(parts, func(p string) bool { return strings.HasPrefix(p, "at /"+f+": ") && p != shape })
	}
	return parts
}
