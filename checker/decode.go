package checker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Status is what an event says happened to an attempt.
type Status uint8

// The statuses of the event contract: the core three, then the recovery
// model's (docs/recovery.md). StatusCancelled is never written as an event
// status; it is the outcome of a cancelled resolution or job-log record.
const (
	StatusStarted Status = iota + 1
	StatusSucceeded
	StatusFailed
	StatusHeartbeat
	StatusUnknown
	StatusResolved
	StatusCancelled
)

// String returns the status as the log writes it.
func (s Status) String() string {
	switch s {
	case StatusStarted:
		return "started"
	case StatusSucceeded:
		return "succeeded"
	case StatusFailed:
		return "failed"
	case StatusHeartbeat:
		return "heartbeat"
	case StatusUnknown:
		return "unknown"
	case StatusResolved:
		return "resolved"
	case StatusCancelled:
		return "cancelled"
	}
	return "invalid"
}

// contractFields are the event keys of schemas/event.schema.json; a key equal
// to one of them in another letter case is refused (see propertyNames there).
const (
	fieldRunID = iota
	fieldStage
	fieldAttempt
	fieldStatus
	fieldTimestamp
	fieldReturncode
	fieldError
	fieldScheduledFor
	fieldOwner
	fieldAttemptID
	fieldErrorCode
	fieldLeaseExpiresAt
	fieldReason
	fieldResolution
	fieldEvidenceRef
	fieldResolvedBy
	fieldApprovedBy
	fieldManualCompletion
	fieldCompensated
	fieldRequestedBy
	fieldRerunFrom
	fieldCount
)

func contractFieldNames() [fieldCount]string {
	return [fieldCount]string{"run_id", "stage", "attempt", "status", "timestamp_utc", "returncode", "error", "scheduled_for",
		"owner", "attempt_id", "error_code", "lease_expires_at", "reason", "resolution", "evidence_ref",
		"resolved_by", "approved_by", "manual_completion", "compensated", "requested_by", "rerun_from"}
}

// Event is one decoded, schema-valid event line. RunID and Error alias the
// line's bytes or the decoder's arena: copy them to keep them past the batch
// of lines they came in.
type Event struct {
	Line       int
	RunID      []byte
	Stage      StageID
	Attempt    int64
	Status     Status
	Time       time.Time
	HasCode    bool
	Returncode int64
	HasError   bool
	Error      []byte
	// HasScheduledFor says the event names the schedule slot its run fills
	// (optional field scheduled_for, in UTC in ScheduledFor).
	HasScheduledFor bool
	ScheduledFor    time.Time
	// Recovery-model fields (docs/recovery.md); "" or false when absent or
	// null. These strings are copies and stay valid.
	Owner            string
	AttemptID        string
	ErrorCode        string
	LeaseExpiresAt   time.Time // zero when absent
	Reason           string
	Resolution       Status // StatusSucceeded, StatusFailed, StatusCancelled or 0
	EvidenceRef      string
	ResolvedBy       string
	ApprovedBy       string
	ManualCompletion bool
	Compensated      bool
	RequestedBy      string
	RerunFrom        bool
}

// lineDecoder decodes lines into events with one reused jsontext.Decoder and
// scratch buffers, so that the hot path allocates little.
type lineDecoder struct {
	rd      bytes.Reader
	dec     *jsontext.Decoder
	names   [fieldCount]string
	raw     [fieldCount][]byte // raw JSON value of each contract field seen; aliases the line
	kind    [fieldCount]jsontext.Kind
	arena   []byte // unquoted text that events keep; see text
	strBuf  []byte
	unknown []string // keys outside the contract, for --strict
	// otherKeys are the first maxOtherKeys raw keys outside the contract
	// (aliasing the line), for a schema message's "did you mean".
	otherKeys [][]byte
	folded    bool // a key equal to a contract field in another letter case
	// foldedKeys are the first maxFoldedKeys such keys with their raw
	// values, for the schema validator's message; foldedCount counts all.
	foldedKeys  [maxFoldedKeys]foldedKey
	foldedCount int
	// recovery says the line has a field of the recovery model (owner and
	// the fields after it in contractFieldNames).
	recovery bool
}

func newLineDecoder() *lineDecoder {
	d := &lineDecoder{names: contractFieldNames()}
	d.dec = jsontext.NewDecoder(&d.rd)
	return d
}

// decodeFault is why a line could not become an event: the rule and message.
type decodeFault struct {
	rule RuleID
	msg  string
}

// syntax reads line as one JSON object and records its contract fields' raw
// values. It enforces the reading rules: exactly one object, valid UTF-8, no
// byte-order mark, no duplicate key at any depth. The jsontext decoder
// validates the whole line in one pass; the members of the validated object
// are then walked with a small scanner (members.go), and the recorded raw
// values alias line.
func (d *lineDecoder) syntax(line []byte, keepUnknown bool) *decodeFault {
	for i := range d.raw {
		d.raw[i] = nil
		d.kind[i] = 0
	}
	d.unknown = d.unknown[:0]
	d.otherKeys = d.otherKeys[:0]
	d.folded, d.recovery = false, false
	d.foldedCount = 0
	if len(line) == 0 {
		return &decodeFault{RuleInvalidJSON, "blank line: every line must hold one JSON object"}
	}
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return &decodeFault{RuleInvalidJSON, "the line starts with a byte-order mark; write UTF-8 without a BOM"}
	}
	d.rd.Reset(line)
	d.dec.Reset(&d.rd)
	v, err := d.dec.ReadValue()
	if err != nil {
		return jsonFault(err)
	}
	if k := v.Kind(); k != '{' {
		return &decodeFault{RuleInvalidJSON, fmt.Sprintf("the line holds a JSON %s, not an object", JSONKindName(k))}
	}
	if rest := int(d.dec.InputOffset()); skipSpace(line, rest) == len(line) {
		// Only whitespace follows the object: nothing more to ask jsontext.
	} else if _, err := d.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return &decodeFault{RuleInvalidJSON, "trailing data after the JSON object on the same line"}
		}
		return jsonFault(err)
	}
	// The line is one valid object: walk its members.
	obj := line[skipSpace(line, 0):]
	for i := skipSpace(obj, 1); obj[i] != '}'; {
		keyEnd := stringEnd(obj, i)
		rawKey := obj[i:keyEnd]
		i = skipSpace(obj, keyEnd)
		i = skipSpace(obj, i+1) // past ':'
		valEnd := valueEnd(obj, i)
		f := d.fieldRaw(rawKey)
		if f >= 0 {
			d.raw[f] = obj[i:valEnd]
			d.kind[f] = jsontext.Value(obj[i:valEnd]).Kind()
			d.recovery = d.recovery || f >= fieldOwner
		} else {
			d.strBuf = unquote(d.strBuf[:0], rawKey)
			if d.foldsToField(d.strBuf) {
				d.folded = true
				if d.foldedCount < maxFoldedKeys {
					d.foldedKeys[d.foldedCount] = foldedKey{string(d.strBuf), obj[i:valEnd]}
				}
				d.foldedCount++
			} else {
				if len(d.otherKeys) < maxOtherKeys {
					d.otherKeys = append(d.otherKeys, rawKey)
				}
				if keepUnknown {
					d.unknown = append(d.unknown, string(d.strBuf))
				}
			}
		}
		i = skipSpace(obj, valEnd)
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}

// fieldRaw finds the contract field named by a raw (quoted) key.
func (d *lineDecoder) fieldRaw(rawKey []byte) int {
	inner := rawKey[1 : len(rawKey)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return d.field(unquote(nil, rawKey))
	}
	return d.field(inner)
}

// field finds the contract field named key, or -1; switching on
// string(key) neither allocates nor copies, and the switch compiles to a
// search by length and bytes. TestFieldNames keeps it equal to
// contractFieldNames.
func (d *lineDecoder) field(key []byte) int {
	switch string(key) {
	case "run_id":
		return fieldRunID
	case "stage":
		return fieldStage
	case "attempt":
		return fieldAttempt
	case "status":
		return fieldStatus
	case "timestamp_utc":
		return fieldTimestamp
	case "returncode":
		return fieldReturncode
	case "error":
		return fieldError
	case "scheduled_for":
		return fieldScheduledFor
	case "owner":
		return fieldOwner
	case "attempt_id":
		return fieldAttemptID
	case "error_code":
		return fieldErrorCode
	case "lease_expires_at":
		return fieldLeaseExpiresAt
	case "reason":
		return fieldReason
	case "resolution":
		return fieldResolution
	case "evidence_ref":
		return fieldEvidenceRef
	case "resolved_by":
		return fieldResolvedBy
	case "approved_by":
		return fieldApprovedBy
	case "manual_completion":
		return fieldManualCompletion
	case "compensated":
		return fieldCompensated
	case "requested_by":
		return fieldRequestedBy
	case "rerun_from":
		return fieldRerunFrom
	}
	return -1
}

// foldsToField reports whether key equals a contract field's name under
// Unicode simple case folding. An ASCII key can only fold to a name of its
// own length (the contract's names are ASCII, and only the non-ASCII ſ and
// the Kelvin sign fold to ASCII letters), so the other names are skipped.
func (d *lineDecoder) foldsToField(key []byte) bool {
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for _, n := range d.names {
		if ascii && len(n) != len(key) {
			continue
		}
		if strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}

// JSONKindName names a JSON value kind for messages: string, number,
// boolean, null, array, object (else "value").
func JSONKindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "value"
}

// jsonFault classifies a jsontext error of one line (JSONErrorRule).
func jsonFault(err error) *decodeFault {
	rule, msg := JSONErrorRule(err)
	return &decodeFault{rule, msg}
}

// JSONErrorRule classifies an error of the jsontext decoder for a violation:
// a repeated name is duplicate_key (the message names its JSON pointer), an
// object that ends too early is a truncated invalid_json, anything else
// invalid_json with the decoder's words. The native and the OpenLineage
// readers share it, so a fault reads the same in both.
func JSONErrorRule(err error) (RuleID, string) {
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		var se *jsontext.SyntacticError
		name := ""
		if errors.As(err, &se) {
			name = string(se.JSONPointer)
		}
		return RuleDuplicateKey, fmt.Sprintf("duplicate key %s: JSON readers disagree on which value wins", name)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return RuleInvalidJSON, "truncated JSON: the object ends before it is closed (a raw line break inside a string splits an event in two: write it as \\n)"
	}
	return RuleInvalidJSON, "not valid JSON: " + strings.TrimPrefix(err.Error(), "jsontext: ")
}

// fastSchema checks the recorded fields against schemas/event.schema.json
// with compiled Go code and fills ev. It returns false when the event does not
// match the schema; the caller then asks the schema validator for the exact
// message. The differential fuzz test FuzzFastPathMatchesSchema proves the two
// accept exactly the same events.
func (d *lineDecoder) fastSchema(ev *Event) bool {
	if d.folded {
		return false
	}
	for f := fieldRunID; f <= fieldTimestamp; f++ {
		if d.raw[f] == nil {
			return false
		}
	}
	// run_id: string, 1..256 code points, no C0, DEL or C1 control character.
	if d.kind[fieldRunID] != '"' {
		return false
	}
	ev.RunID = d.text(d.raw[fieldRunID])
	if !validRunID(ev.RunID) {
		return false
	}
	// stage: integer 1..2^31-1 or a string id.
	switch d.kind[fieldStage] {
	case '0':
		n, ok := jsonInteger(string(d.raw[fieldStage]))
		if !ok || n < 1 || n > maxStageInt {
			return false
		}
		ev.Stage = StageID{Int: n}
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldStage])
		if !validStageString(string(d.strBuf)) {
			return false
		}
		ev.Stage = StageID{Str: string(d.strBuf)}
	default:
		return false
	}
	// attempt: integer 1..2^31-1.
	if d.kind[fieldAttempt] != '0' {
		return false
	}
	n, ok := jsonInteger(string(d.raw[fieldAttempt]))
	if !ok || n < 1 || n > maxAttempt {
		return false
	}
	ev.Attempt = n
	// status: one of the enum.
	if d.kind[fieldStatus] != '"' {
		return false
	}
	d.strBuf = unquote(d.strBuf[:0], d.raw[fieldStatus])
	switch string(d.strBuf) {
	case "started":
		ev.Status = StatusStarted
	case "succeeded":
		ev.Status = StatusSucceeded
	case "failed":
		ev.Status = StatusFailed
	case "heartbeat":
		ev.Status = StatusHeartbeat
	case "unknown":
		ev.Status = StatusUnknown
	case "resolved":
		ev.Status = StatusResolved
	default:
		return false
	}
	// timestamp_utc: the schema's pattern, then a real calendar date.
	if d.kind[fieldTimestamp] != '"' {
		return false
	}
	d.strBuf = unquote(d.strBuf[:0], d.raw[fieldTimestamp])
	t, ok := parseTimestamp(d.strBuf)
	if !ok {
		return false
	}
	ev.Time = t
	// returncode: null or an integer in range.
	ev.HasCode = false
	switch d.kind[fieldReturncode] {
	case 0, 'n':
	case '0':
		n, ok := jsonInteger(string(d.raw[fieldReturncode]))
		if !ok || n < minReturncode || n > maxReturncode {
			return false
		}
		ev.HasCode, ev.Returncode = true, n
	default:
		return false
	}
	// error: null or a string; on failed, a string that is not blank.
	ev.HasError = false
	switch d.kind[fieldError] {
	case 0, 'n':
		if ev.Status == StatusFailed {
			return false
		}
	case '"':
		ev.Error = d.text(d.raw[fieldError])
		if ev.Status == StatusFailed && !hasNonSpace(ev.Error) {
			return false
		}
		ev.HasError = true
	default:
		return false
	}
	// scheduled_for: null or a string under the timestamp_utc rules.
	ev.HasScheduledFor = false
	switch d.kind[fieldScheduledFor] {
	case 0, 'n':
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldScheduledFor])
		t, ok := parseTimestamp(d.strBuf)
		if !ok {
			return false
		}
		ev.HasScheduledFor, ev.ScheduledFor = true, t
	default:
		return false
	}
	return d.fastRecovery(ev)
}

// fastRecovery checks the recovery-model fields of schemas/event.schema.json
// (version 2) and fills them into ev: optional strings, the lease time, the
// resolution enum, the flags, and the conditional requirements of unknown
// and resolved events.
func (d *lineDecoder) fastRecovery(ev *Event) bool {
	// Most events carry none of the recovery model's fields: then only the
	// statuses that require some (unknown, resolved) need the checks below,
	// which would find every field absent.
	if !d.recovery && ev.Status != StatusUnknown && ev.Status != StatusResolved {
		ev.Owner, ev.AttemptID, ev.ErrorCode, ev.Reason = "", "", "", ""
		ev.LeaseExpiresAt, ev.Resolution = time.Time{}, 0
		ev.EvidenceRef, ev.ResolvedBy, ev.ApprovedBy, ev.RequestedBy = "", "", "", ""
		ev.ManualCompletion, ev.Compensated, ev.RerunFrom = false, false, false
		return true
	}
	var ok bool
	str := func(f int, dst *string) bool {
		switch d.kind[f] {
		case 0, 'n':
			*dst = ""
			return true
		case '"':
			d.strBuf = unquote(d.strBuf[:0], d.raw[f])
			*dst = string(d.strBuf)
			return true
		}
		return false
	}
	flag := func(f int, dst *bool) bool {
		switch d.kind[f] {
		case 0, 'n', 'f':
			*dst = false
			return true
		case 't':
			*dst = true
			return true
		}
		return false
	}
	present := func(f int) bool { return d.kind[f] != 0 && d.kind[f] != 'n' }
	if !str(fieldOwner, &ev.Owner) || !str(fieldAttemptID, &ev.AttemptID) || !str(fieldErrorCode, &ev.ErrorCode) ||
		!str(fieldReason, &ev.Reason) || !str(fieldEvidenceRef, &ev.EvidenceRef) || !str(fieldResolvedBy, &ev.ResolvedBy) ||
		!str(fieldApprovedBy, &ev.ApprovedBy) || !str(fieldRequestedBy, &ev.RequestedBy) {
		return false
	}
	if !flag(fieldManualCompletion, &ev.ManualCompletion) || !flag(fieldCompensated, &ev.Compensated) || !flag(fieldRerunFrom, &ev.RerunFrom) {
		return false
	}
	// attempt_id: when a string, it is not blank.
	if present(fieldAttemptID) && !hasNonSpace([]byte(ev.AttemptID)) {
		return false
	}
	// lease_expires_at: null or a timestamp like timestamp_utc.
	ev.LeaseExpiresAt = time.Time{}
	switch d.kind[fieldLeaseExpiresAt] {
	case 0, 'n':
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldLeaseExpiresAt])
		if ev.LeaseExpiresAt, ok = parseTimestamp(d.strBuf); !ok {
			return false
		}
	default:
		return false
	}
	// resolution: null or one of the three outcomes.
	ev.Resolution = 0
	switch d.kind[fieldResolution] {
	case 0, 'n':
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldResolution])
		switch string(d.strBuf) {
		case "succeeded":
			ev.Resolution = StatusSucceeded
		case "failed":
			ev.Resolution = StatusFailed
		case "cancelled":
			ev.Resolution = StatusCancelled
		default:
			return false
		}
	default:
		return false
	}
	nonBlank := func(f int, v string) bool { return d.kind[f] == '"' && hasNonSpace([]byte(v)) }
	switch ev.Status {
	case StatusUnknown:
		return nonBlank(fieldReason, ev.Reason)
	case StatusResolved:
		return ev.Resolution != 0 && nonBlank(fieldReason, ev.Reason) && nonBlank(fieldResolvedBy, ev.ResolvedBy)
	}
	return true
}

// text returns the content of the JSON string literal q for an event to
// keep: q's own bytes when it has no escape, else its unquoted form appended
// to the arena. Either way the result lives as long as the line and the
// arena do: the decoder never writes over bytes it has handed out.
func (d *lineDecoder) text(q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1]
	}
	start := len(d.arena)
	d.arena = unquote(d.arena, q)
	return d.arena[start:len(d.arena):len(d.arena)]
}

// unquote appends the decoded content of the JSON string literal q to dst.
// q has been validated by the decoder.
func unquote(dst, q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return append(dst, q[1:len(q)-1]...)
	}
	out, err := jsontext.AppendUnquote(dst, q)
	if err != nil {
		return append(dst[:0], 0) // unreachable for a validated literal; fails every check
	}
	return out
}

// validRunID: 1..256 code points, none of them U+0000..U+001F or U+007F..U+009F.
func validRunID(b []byte) bool {
	count := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
		} else {
			r, size := utf8.DecodeRune(b[i:])
			if r >= 0x80 && r <= 0x9f {
				return false
			}
			i += size
		}
		if count++; count > 256 {
			return false // too long: the rest need not be read
		}
	}
	return count >= 1
}

// hasNonSpace reports whether b holds a character that is not white space
// as the schema's "\S" means it in ECMA-262, the regular expressions of
// JSON Schema: WhiteSpace and LineTerminator, that is U+0009..U+000D,
// U+0020, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000 and U+FEFF. Go's regexp knows only the ASCII part as \s, so the
// schema spells the class out ($defs/nonBlank in schemas/event.schema.json) and
// this function keeps to it; a value made only of these characters is
// blank, as if absent (docs/contract.md, "Blank text").
func hasNonSpace(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !isBlankRune(r) {
			return true
		}
		i += size
	}
	return false
}

// isBlankRune reports whether r is one of ECMA-262's WhiteSpace and
// LineTerminator characters (see hasNonSpace).
func isBlankRune(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r == ' ', r == 0x00a0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000, r == 0xfeff:
		return true
	}
	return false
}

// parseTimestamp checks b against the timestamp_utc pattern of
// schemas/event.schema.json,
// ^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$,
// that the date exists (the schema's "date-time" format) and that the
// instant lies, in UTC, in the years 0001 to 9999 (the schema's
// "greenlight-utc-range" format), and returns the instant in UTC.
func parseTimestamp(b []byte) (time.Time, bool) {
	t, ok := parseTimestampAnyYear(b)
	if !ok || !inUTCRange(t) {
		return time.Time{}, false
	}
	return t, true
}

// Bounds of an instant greenlight reads or writes, in Unix seconds: from
// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, the instants whose
// UTC form RFC 3339 can write (four-digit years; year 0000 is left out, as
// the outside review asks). Year 0000 with +01:00 would otherwise
// become -0001-12-31T23:00:00Z in a snapshot.
// TestUTCRangeBounds checks them against time.Date.
const (
	minUnixUTC = -62135596800 // 0001-01-01T00:00:00Z
	maxUnixUTC = 253402300799 // 9999-12-31T23:59:59Z; any fraction of that second is in range
)

// inUTCRange reports whether t lies in the years 0001 to 9999 in UTC.
func inUTCRange(t time.Time) bool {
	u := t.Unix()
	return u >= minUnixUTC && u <= maxUnixUTC
}

// parseTimestampAnyYear is parseTimestamp without the bound on the UTC
// year.
func parseTimestampAnyYear(b []byte) (time.Time, bool) {
	if len(b) < 20 {
		return time.Time{}, false
	}
	digit := func(i int) bool { return b[i] >= '0' && b[i] <= '9' }
	num2 := func(i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if !digit(i) {
			return time.Time{}, false
		}
	}
	if b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	year := int(b[0]-'0')*1000 + int(b[1]-'0')*100 + num2(2)
	month, day := num2(5), num2(8)
	hour, minute, sec := num2(11), num2(14), num2(17)
	if hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	i := 19
	nsec := 0
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) && digit(i) {
			i++
		}
		nd := i - start
		if nd < 1 || nd > 9 {
			return time.Time{}, false
		}
		for k := start; k < i; k++ {
			nsec = nsec*10 + int(b[k]-'0')
		}
		for k := nd; k < 9; k++ {
			nsec *= 10
		}
	}
	if i >= len(b) {
		return time.Time{}, false
	}
	offset := 0
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if len(b)-i != 6 || !digit(i+1) || !digit(i+2) || b[i+3] != ':' || !digit(i+4) || !digit(i+5) {
			return time.Time{}, false
		}
		oh, om := num2(i+1), num2(i+4)
		if oh > 23 || om > 59 {
			return time.Time{}, false
		}
		offset = (oh*60 + om) * 60
		if b[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return time.Time{}, false
	}
	if i != len(b) {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// daysSinceEpoch is the number of days from 1970-01-01 to the proleptic
// Gregorian date year-month-day (negative before it): the days-from-civil
// algorithm of Howard Hinnant's "chrono-Compatible Low-Level Date
// Algorithms". It is cheaper than time.Date, which also normalizes.
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era-- // floor division
	}
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
