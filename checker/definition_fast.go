package checker

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// definitionFastValid reports whether doc, a pipeline definition in the form
// schemas.Instance gives (objects as map[string]any, numbers as
// json.Number), matches schemas/pipeline.schema.json. It mirrors every
// keyword of that schema in Go, so that a definition that matches never
// costs a schema compile (the compile validates the schema against the
// 2020-12 meta-schema, most of the JavaScript action's start-up; see
// docs/action.md). When it returns false, ParseDefinition compiles the
// schema and words the rejection with the validator's message. The
// differential tests (TestDefinitionFastPathMatchesSchema,
// FuzzDefinitionFastPath) hold the two to accepting exactly the same
// documents; change both together.
func definitionFastValid(doc any) bool {
	top, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := top["stages"]; !ok {
		return false
	}
	for k, v := range top {
		switch k {
		case "pipeline":
			ok = schemaText(v, 1, 256)
		case "stale_after_seconds":
			ok = schemaInteger(v, 1, maxSeconds)
		case "schedule":
			ok = fastSchedule(v)
		case "max_age":
			t, isText := v.(string)
			ok = isText && maxAgePattern(t)
		case "lease_margin_seconds":
			ok = schemaInteger(v, 0, maxSeconds)
		case "retry_brake":
			ok = fastRetryBrake(v)
		case "stages":
			ok = fastStages(v)
		default:
			ok = false // additionalProperties: false
		}
		if !ok {
			return false
		}
	}
	return true
}

// maxSeconds is the schema's upper bound of every duration in seconds (one
// year of 365 days).
const maxSeconds = 31536000

// fastRetryBrake mirrors the schema's retry_brake object.
func fastRetryBrake(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range obj {
		switch k {
		case "threshold":
			ok = schemaInteger(v, 1, 1000000)
		case "enforce":
			_, ok = v.(bool)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// fastStages mirrors the schema's stages array: 1 to 10000 objects, each
// with an id and only the stage keywords.
func fastStages(v any) bool {
	arr, ok := v.([]any)
	if !ok || len(arr) < 1 || len(arr) > 10000 {
		return false
	}
	for _, s := range arr {
		obj, ok := s.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := obj["id"]; !ok {
			return false
		}
		for k, v := range obj {
			switch k {
			case "id":
				_, ok = fastStageID(v)
			case "name":
				ok = schemaText(v, 1, 256)
			case "depends_on":
				ok = fastDependsOn(v)
			case "idempotent", "skippable":
				_, ok = v.(bool)
			case "stale_after_seconds":
				ok = schemaInteger(v, 1, maxSeconds)
			default:
				ok = false
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// fastStageID mirrors $defs/stage_id: an integer 1 to 2^31-1 or a string
// matching ^[A-Za-z][A-Za-z0-9_.-]{0,127}$ (the two cannot both hold, so
// oneOf is anyOf here). It returns the id, to compare depends_on items.
func fastStageID(v any) (StageID, bool) {
	switch v := v.(type) {
	case json.Number:
		n, ok := jsonIntegerIn(string(v), 1, 2147483647)
		return IntStage(n), ok
	case string:
		return StageID{Str: v}, eventline.ValidStageString(v)
	}
	return StageID{}, false
}

// fastDependsOn mirrors depends_on: an array of distinct stage ids
// (uniqueItems compares numbers by value, so 2 and 2.0 are equal; a valid
// integer id and a valid string id never are).
func fastDependsOn(v any) bool {
	arr, ok := v.([]any)
	if !ok {
		return false
	}
	seen := make(map[StageID]bool, len(arr))
	for _, item := range arr {
		id, ok := fastStageID(item)
		if !ok || seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}

// fastSchedule mirrors the schema's schedule object, its oneOf (exactly one
// of cron and every_seconds) and each field's type, range and pattern.
func fastSchedule(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasCron := obj["cron"]
	_, hasEvery := obj["every_seconds"]
	if hasCron == hasEvery {
		return false
	}
	for k, v := range obj {
		switch k {
		case "cron":
			s, isString := v.(string)
			ok = isString && utf8.RuneCountInString(s) <= 256 && cronPattern(s)
		case "every_seconds":
			ok = schemaInteger(v, 1, maxSeconds)
		case "timezone":
			s, isString := v.(string)
			ok = isString && utf8.RuneCountInString(s) <= 64 && timezonePattern(s)
		case "start_grace_seconds":
			ok = schemaInteger(v, 0, maxSeconds)
		case "max_runtime_seconds":
			ok = schemaInteger(v, 1, maxSeconds)
		case "lookback_slots":
			ok = schemaInteger(v, 1, 1000)
		case "since":
			s, isString := v.(string)
			ok = isString && sinceValid(s)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// schemaText mirrors "type": "string" with minLength and maxLength, which
// count code points.
func schemaText(v any, minLen, maxLen int) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	n := utf8.RuneCountInString(s)
	return n >= minLen && n <= maxLen
}

// schemaInteger mirrors "type": "integer" with minimum and maximum: v is a
// JSON number whose value is an integer in [lo, hi].
func schemaInteger(v any, lo, hi int64) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	_, ok = jsonIntegerIn(string(n), lo, hi)
	return ok
}

// jsonIntegerIn returns the value of lit, a JSON number literal, when that
// value is an integer in [lo, hi] (0 <= lo <= hi < 10^18). Like the schema
// validator, which reads numbers as exact rationals, it judges the value,
// not the spelling: 3.0, 30e-1 and 0.3e1 are the integer 3, -0 is 0.
func jsonIntegerIn(lit string, lo, hi int64) (int64, bool) {
	i := 0
	neg := i < len(lit) && lit[i] == '-'
	if neg {
		i++
	}
	// The significant digits, without the decimal point; point is how many
	// of them come after it.
	start := i
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	intDigits := lit[start:i]
	if intDigits == "" {
		return 0, false
	}
	var fracDigits string
	if i < len(lit) && lit[i] == '.' {
		i++
		fs := i
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
		fracDigits = lit[fs:i]
		if fracDigits == "" {
			return 0, false
		}
	}
	// exp saturates far beyond any document's length: only its sign and
	// rough size matter then.
	const expCap = 1 << 40
	exp := int64(0)
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		expNeg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			expNeg = lit[i] == '-'
			i++
		}
		es := i
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			if exp < expCap {
				exp = exp*10 + int64(lit[i]-'0')
			}
			i++
		}
		if i == es {
			return 0, false
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(lit) {
		return 0, false
	}
	// value = digits × 10^scale, digits without leading or trailing zeros.
	digits := intDigits + fracDigits
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, lo == 0 // zero, whatever its sign and exponent
	}
	if neg {
		return 0, false // a negative non-zero value is below every lo
	}
	scale := exp - int64(len(fracDigits))
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		scale++
	}
	if scale < 0 || int64(len(digits))+scale > 18 {
		return 0, false // a fraction, or 10^18 or more
	}
	var n int64
	for j := 0; j < len(digits); j++ {
		n = n*10 + int64(digits[j]-'0')
	}
	for ; scale > 0; scale-- {
		n *= 10
	}
	return n, n >= lo && n <= hi
}

// cronPattern matches ^[0-9A-Za-z*,/?-]+( +[0-9A-Za-z*,/?-]+){4}$: five
// fields of those characters, apart by runs of spaces.
func cronPattern(s string) bool {
	fields := 0
	for i := 0; i < len(s); {
		if fields > 0 {
			if s[i] != ' ' {
				return false
			}
			for i < len(s) && s[i] == ' ' {
				i++
			}
		}
		start := i
		for i < len(s) && cronChar(s[i]) {
			i++
		}
		if i == start {
			return false
		}
		fields++
	}
	return fields == 5
}

func cronChar(c byte) bool {
	return isAlnum(c) || c == '*' || c == ',' || c == '/' || c == '?' || c == '-'
}

// timezonePattern matches ^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$: a
// letter, then names apart by single slashes, none empty.
func timezonePattern(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || c == '_' || c == '+' || c == '-':
		case c == '/':
			if i+1 == len(s) || s[i+1] == '/' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }

func isAlnum(c byte) bool { return isLetter(c) || (c >= '0' && c <= '9') }

// sinceValid mirrors the schema's since: its pattern (an RFC 3339 date-time
// with an offset, hours 00-23, minutes and seconds 00-59, 1 to 9 fraction
// digits), "format": "date-time" (a real calendar day) and
// "greenlight-utc-range" (the instant in UTC in the years 0001 to 9999).
func sinceValid(s string) bool {
	// YYYY-MM-DDTHH:MM:SS
	// 0123456789012345678
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigit(s[i]) {
			return false
		}
	}
	if !clockOK(s[11:13], s[14:16]) || !below60(s[17:19]) {
		return false
	}
	rest := s[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 || n > 10 {
			return false
		}
		rest = rest[n:]
	}
	switch {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' && clockOK(rest[1:3], rest[4:6]):
	default:
		return false
	}
	// The pattern holds; time.Parse refuses exactly the days the calendar
	// lacks (month 00 or 13, February 30), as date-time does.
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return false
	}
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// clockOK matches ([01][0-9]|2[0-3]):[0-5][0-9], the hour and minute given
// apart.
func clockOK(hh, mm string) bool {
	if !isDigit(hh[0]) || !isDigit(hh[1]) {
		return false
	}
	if hh[0] > '2' || (hh[0] == '2' && hh[1] > '3') {
		return false
	}
	return below60(mm)
}

// below60 matches [0-5][0-9].
func below60(ss string) bool {
	return ss[0] >= '0' && ss[0] <= '5' && isDigit(ss[1])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// maxAgePattern mirrors the schema's pattern of max_age,
// ^(none|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h|d))+)$: none, or one or more
// numbers each followed by a unit. The range (1s to limits.MaxAge) is
// parseMaxAge's, as the schema cannot say it.
func maxAgePattern(s string) bool {
	if s == "none" {
		return true
	}
	if s == "" {
		return false
	}
	for s != "" {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
		s = s[i:]
		matched := false
		for _, u := range []string{"ns", "us", "µs", "ms", "s", "m", "h", "d"} {
			// ms before m: the longest unit that starts s.
			if len(s) >= len(u) && s[:len(u)] == u {
				s = s[len(u):]
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}
