package eventline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

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
	fieldStopConfirmedBy
	fieldStopEvidenceRef
	fieldStopMethod
	fieldResultCode
	fieldAuditEventID
	fieldAuditCompletedBy
	// The request events' fields (docs/recovery.md, Claimed requests).
	fieldRequestID
	fieldClaimedBy
	fieldClaimedAt
	fieldStaleRequestReconciled
	fieldCount
)

func contractFieldNames() [fieldCount]string {
	return [fieldCount]string{"run_id", "stage", "attempt", "status", "timestamp_utc", "returncode", "error", "scheduled_for",
		"owner", "attempt_id", "error_code", "lease_expires_at", "reason", "resolution", "evidence_ref",
		"resolved_by", "approved_by", "manual_completion", "compensated", "requested_by", "rerun_from",
		"stop_confirmed_by", "stop_evidence_ref", "stop_method", "result_code", "audit_event_id", "audit_completed_by",
		"request_id", "claimed_by", "claimed_at", "stale_request_reconciled"}
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
	// The proof that an attempt's owner stopped, on an outcome that ends
	// another owner's attempt (a takeover): who confirmed it, where the
	// proof is, and how (StopMethod: local_pid, host_down, console, other;
	// "" when absent).
	StopConfirmedBy string
	StopEvidenceRef string
	StopMethod      string
	// The run's close (status closed, docs/recovery.md): ResultCode is one
	// of the runbook's result codes (RUN_ARCHIVED, ...; "" when absent),
	// AuditEventID the id of the close's audit record, AuditCompletedBy
	// who completed a pending audit record (with EvidenceRef). A closed
	// event has a zero Stage and Attempt.
	ResultCode       string
	AuditEventID     string
	AuditCompletedBy string
	// Request events (StatusRequested, StatusClaimed; docs/recovery.md,
	// Claimed requests): RequestID keys them (on a run's event it names the
	// request that started the run; "" when absent); ClaimedBy and
	// ClaimedAt are the claim's poller and time (zero when absent);
	// StaleRequestReconciled is a new request's evidence that a stale
	// earlier one was reconciled. A request event has no Stage or Attempt,
	// and RunID is nil when it names no run.
	RequestID              string
	ClaimedBy              string
	ClaimedAt              time.Time
	StaleRequestReconciled string
}

// Decoder decodes lines into events with one reused jsontext.Decoder and
// scratch buffers, so that the hot path allocates little.
type Decoder struct {
	rd    bytes.Reader
	dec   *jsontext.Decoder
	names [fieldCount]string
	raw   [fieldCount][]byte // raw JSON value of each contract field seen; aliases the line
	kind  [fieldCount]jsontext.Kind
	// plain says the scanner found the field's string value without an
	// escape, so that its content is its raw bytes (textOf, contentOf);
	// false when it does not know.
	plain   [fieldCount]bool
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
	// seen are the raw names of the objects the scanner is in, outside the
	// contract's at the top, for its duplicate check (scan.go).
	seen [][]byte
	// dates is the date of the last timestamp_utc read, and its day.
	dates dateCache
	// long says a contract field's raw value is longer than
	// MaxNumberChars, so that longNumber looks for a number among them.
	long bool
}

// NewDecoder returns a decoder for one goroutine.
func NewDecoder() *Decoder {
	d := &Decoder{names: contractFieldNames()}
	d.dec = jsontext.NewDecoder(&d.rd)
	return d
}

// Syntax reads line as one JSON object and records its contract fields' raw
// values. It enforces the reading rules: exactly one object, valid UTF-8, no
// byte-order mark, no duplicate key at any depth. The scanner of scan.go
// validates and records the members in one pass; a line it does not vouch
// for is read by the jsontext decoder, the reference, which gives the fault
// (syntaxJSONText). The recorded raw values alias line.
func (d *Decoder) Syntax(line []byte, keepUnknown bool) *Fault {
	d.resetFields()
	if len(line) == 0 {
		return &Fault{FaultInvalidJSON, "blank line: every line must hold one JSON object"}
	}
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return &Fault{FaultInvalidJSON, "the line starts with a byte-order mark; write UTF-8 without a BOM"}
	}
	if d.scan(line, keepUnknown) {
		return nil
	}
	d.resetFields()
	return d.syntaxJSONText(line, keepUnknown)
}

// resetFields forgets the members recorded from the previous line.
func (d *Decoder) resetFields() {
	d.raw = [fieldCount][]byte{}
	d.kind = [fieldCount]jsontext.Kind{}
	d.plain = [fieldCount]bool{}
	d.unknown = d.unknown[:0]
	d.otherKeys = d.otherKeys[:0]
	d.folded, d.recovery, d.long = false, false, false
	d.foldedCount = 0
}

// syntaxJSONText is Syntax with the jsontext decoder: it validates the whole
// line in one pass, then walks the members of the validated object with a
// small scanner (members.go). line is neither empty nor starts with a BOM.
func (d *Decoder) syntaxJSONText(line []byte, keepUnknown bool) *Fault {
	d.rd.Reset(line)
	d.dec.Reset(&d.rd)
	v, err := d.dec.ReadValue()
	if err != nil {
		return jsonFault(err)
	}
	if k := v.Kind(); k != '{' {
		return &Fault{FaultInvalidJSON, fmt.Sprintf("the line holds a JSON %s, not an object", JSONKindName(k))}
	}
	if rest := int(d.dec.InputOffset()); skipSpace(line, rest) == len(line) {
		// Only whitespace follows the object: nothing more to ask jsontext.
	} else if _, err := d.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return &Fault{FaultInvalidJSON, "trailing data after the JSON object on the same line"}
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
			d.long = d.long || valEnd-i > MaxNumberChars
			d.recovery = d.recovery || f >= fieldOwner
		} else {
			d.other(rawKey, obj[i:valEnd], keepUnknown)
		}
		i = skipSpace(obj, valEnd)
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}

// other records a member whose raw (quoted) name is not a contract field's:
// a name that folds to one, or a key outside the contract.
func (d *Decoder) other(rawKey, val []byte, keepUnknown bool) {
	d.strBuf = unquote(d.strBuf[:0], rawKey)
	if d.foldsToField(d.strBuf) {
		d.folded = true
		if d.foldedCount < maxFoldedKeys {
			d.foldedKeys[d.foldedCount] = foldedKey{string(d.strBuf), val}
		}
		d.foldedCount++
		return
	}
	if len(d.otherKeys) < maxOtherKeys {
		d.otherKeys = append(d.otherKeys, rawKey)
	}
	if keepUnknown {
		d.unknown = append(d.unknown, string(d.strBuf))
	}
}

// fieldRaw finds the contract field named by a raw (quoted) key.
func (d *Decoder) fieldRaw(rawKey []byte) int {
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
func (d *Decoder) field(key []byte) int {
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
	case "stop_confirmed_by":
		return fieldStopConfirmedBy
	case "stop_evidence_ref":
		return fieldStopEvidenceRef
	case "stop_method":
		return fieldStopMethod
	case "result_code":
		return fieldResultCode
	case "audit_event_id":
		return fieldAuditEventID
	case "audit_completed_by":
		return fieldAuditCompletedBy
	case "request_id":
		return fieldRequestID
	case "claimed_by":
		return fieldClaimedBy
	case "claimed_at":
		return fieldClaimedAt
	case "stale_request_reconciled":
		return fieldStaleRequestReconciled
	}
	return -1
}

// foldsToField reports whether key equals a contract field's name under
// Unicode simple case folding. An ASCII key can only fold to a name of its
// own length (the contract's names are ASCII, and only the non-ASCII ſ and
// the Kelvin sign fold to ASCII letters), so the other names are skipped.
func (d *Decoder) foldsToField(key []byte) bool {
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

// jsonFault classifies a jsontext error of one line (JSONError).
func jsonFault(err error) *Fault {
	kind, msg := JSONError(err)
	return &Fault{kind, msg}
}

// JSONError classifies an error of the jsontext decoder for a violation:
// a repeated name is duplicate_key (the message names its JSON pointer), an
// object that ends too early is a truncated invalid_json, anything else
// invalid_json with the decoder's words. The native and the OpenLineage
// readers share it, so a fault reads the same in both.
func JSONError(err error) (FaultKind, string) {
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		var se *jsontext.SyntacticError
		name := ""
		if errors.As(err, &se) {
			name = string(se.JSONPointer)
		}
		return FaultDuplicateKey, fmt.Sprintf("duplicate key %s: JSON readers disagree on which value wins", name)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return FaultInvalidJSON, "truncated JSON: the object ends before it is closed (a raw line break inside a string splits an event in two: write it as \\n)"
	}
	return FaultInvalidJSON, "not valid JSON: " + strings.TrimPrefix(err.Error(), "jsontext: ")
}

// fastSchema checks the recorded fields against schemas/event.schema.json
// with compiled Go code and fills ev. It returns false when the event does not
// match the schema; the caller then asks the schema validator for the exact
// message. The differential fuzz test FuzzFastPathMatchesSchema proves the two
// accept exactly the same events.
func (d *Decoder) fastSchema(ev *Event) bool {
	if d.folded {
		return false
	}
	if d.runLevel() {
		return d.fastRunLevel(ev)
	}
	if d.requestStatus() {
		return d.fastRequest(ev)
	}
	for f := fieldRunID; f <= fieldTimestamp; f++ {
		if d.raw[f] == nil {
			return false
		}
	}
	return d.fastKey(ev) && d.fastStatus(ev) && d.fastOutcome(ev) && d.fastRecovery(ev)
}

// runLevel reports whether the line's status is a run-level one (closed),
// whose event names no stage and no attempt.
func (d *Decoder) runLevel() bool {
	return d.kind[fieldStatus] == '"' && string(d.contentOf(fieldStatus)) == "closed"
}

// fastRunLevel is fastSchema for a run-level status: run_id, status and
// timestamp_utc as for any event, no stage and no attempt (not even null),
// and the close's own fields (fastClose).
func (d *Decoder) fastRunLevel(ev *Event) bool {
	if d.raw[fieldRunID] == nil || d.raw[fieldTimestamp] == nil || d.raw[fieldStage] != nil || d.raw[fieldAttempt] != nil {
		return false
	}
	if d.kind[fieldRunID] != '"' || len(d.raw[fieldRunID]) > 2+maxRunIDLiteral {
		return false
	}
	ev.RunID = d.textOf(fieldRunID)
	if !validRunID(ev.RunID) {
		return false
	}
	ev.Stage, ev.Attempt = StageID{}, 0
	return d.fastStatus(ev) && d.fastOutcome(ev) && d.fastRecovery(ev) && d.fastClose(ev)
}

// fastClose checks the close's fields of a closed event (fastRecovery has
// read and type-checked them): result_code is one of the runbook's codes,
// RUN_ARCHIVED_AUDIT_PENDING names its audit record (audit_event_id), and
// a close that completes the audit (audit_completed_by, not blank) is
// RUN_ARCHIVED with audit_event_id and evidence_ref, not blank.
func (d *Decoder) fastClose(ev *Event) bool {
	switch ev.ResultCode {
	case "RUN_ARCHIVED", "RUN_ARCHIVED_LOCK_UNRELEASED", "ARCHIVE_UNCONFIRMED", "LOCK_CONFLICT":
	case "RUN_ARCHIVED_AUDIT_PENDING":
		if d.kind[fieldAuditEventID] != '"' {
			return false
		}
	default:
		return false
	}
	if d.kind[fieldAuditCompletedBy] == '"' {
		return ev.ResultCode == "RUN_ARCHIVED" && HasNonSpace([]byte(ev.AuditCompletedBy)) && d.kind[fieldAuditEventID] == '"' &&
			d.kind[fieldEvidenceRef] == '"' && HasNonSpace([]byte(ev.EvidenceRef))
	}
	return true
}

// fastKey checks and fills the fields that name an attempt: run_id, stage
// and attempt.
func (d *Decoder) fastKey(ev *Event) bool {
	// run_id: string, 1..256 code points, no C0, DEL or C1 control character.
	if d.kind[fieldRunID] != '"' {
		return false
	}
	if len(d.raw[fieldRunID]) > 2+maxRunIDLiteral {
		return false // too long whatever it holds: not unquoted for nothing
	}
	ev.RunID = d.textOf(fieldRunID)
	if !validRunID(ev.RunID) {
		return false
	}
	// stage: integer 1..2^31-1 or a string id.
	switch d.kind[fieldStage] {
	case '0':
		n, ok := jsonInteger(d.raw[fieldStage])
		if !ok || n < 1 || n > MaxStageInt {
			return false
		}
		ev.Stage = StageID{Int: n}
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldStage])
		if !ValidStageString(string(d.strBuf)) {
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
	n, ok := jsonInteger(d.raw[fieldAttempt])
	if !ok || n < 1 || n > maxAttempt {
		return false
	}
	ev.Attempt = n
	return true
}

// fastStatus checks and fills status and timestamp_utc.
func (d *Decoder) fastStatus(ev *Event) bool {
	// status: one of the enum.
	if d.kind[fieldStatus] != '"' {
		return false
	}
	switch string(d.contentOf(fieldStatus)) {
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
	case "skipped":
		ev.Status = StatusSkipped
	case "closed":
		ev.Status = StatusClosed
	case "requested":
		ev.Status = StatusRequested
	case "claimed":
		ev.Status = StatusClaimed
	default:
		return false
	}
	// timestamp_utc: the schema's pattern, then a real calendar date.
	if d.kind[fieldTimestamp] != '"' {
		return false
	}
	t, ok := parseTimestampDated(d.contentOf(fieldTimestamp), &d.dates)
	if !ok {
		return false
	}
	ev.Time = t
	return true
}

// fastOutcome checks and fills the fields of an attempt's outcome and slot:
// returncode, error (a string that is not blank on failed) and
// scheduled_for.
func (d *Decoder) fastOutcome(ev *Event) bool {
	// returncode: null or an integer in range.
	ev.HasCode = false
	switch d.kind[fieldReturncode] {
	case 0, 'n':
	case '0':
		n, ok := jsonInteger(d.raw[fieldReturncode])
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
		ev.Error = d.textOf(fieldError)
		if ev.Status == StatusFailed && !HasNonSpace(ev.Error) {
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
		t, ok := ParseTimestamp(d.contentOf(fieldScheduledFor))
		if !ok {
			return false
		}
		ev.HasScheduledFor, ev.ScheduledFor = true, t
	default:
		return false
	}
	return true
}

// fastRecovery checks the recovery-model fields of schemas/event.schema.json
// (version 2) and fills them into ev: optional strings, the lease time, the
// resolution enum, the flags, and the conditional requirements of unknown
// and resolved events.
func (d *Decoder) fastRecovery(ev *Event) bool {
	// Most events carry none of the recovery model's fields: then only the
	// statuses that require some (unknown, skipped, resolved) need the
	// checks below, which would find every field absent.
	if !d.recovery && ev.Status != StatusUnknown && ev.Status != StatusSkipped && ev.Status != StatusResolved && ev.Status != StatusClosed && !ev.Status.IsRequest() {
		ev.Owner, ev.AttemptID, ev.ErrorCode, ev.Reason = "", "", "", ""
		ev.LeaseExpiresAt, ev.Resolution = time.Time{}, 0
		ev.EvidenceRef, ev.ResolvedBy, ev.ApprovedBy, ev.RequestedBy = "", "", "", ""
		ev.ManualCompletion, ev.Compensated, ev.RerunFrom = false, false, false
		ev.StopConfirmedBy, ev.StopEvidenceRef, ev.StopMethod = "", "", ""
		ev.ResultCode, ev.AuditEventID, ev.AuditCompletedBy = "", "", ""
		ev.RequestID, ev.ClaimedBy, ev.ClaimedAt, ev.StaleRequestReconciled = "", "", time.Time{}, ""
		return true
	}
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
		!str(fieldApprovedBy, &ev.ApprovedBy) || !str(fieldRequestedBy, &ev.RequestedBy) ||
		!str(fieldStopConfirmedBy, &ev.StopConfirmedBy) || !str(fieldStopEvidenceRef, &ev.StopEvidenceRef) ||
		!str(fieldStopMethod, &ev.StopMethod) || !d.fastCloseFields(ev, str) {
		return false
	}
	// stop_method: null or one of the four methods.
	switch ev.StopMethod {
	case "", "local_pid", "host_down", "console", "other":
		if ev.StopMethod == "" && d.kind[fieldStopMethod] == '"' {
			return false
		}
	default:
		return false
	}
	if !flag(fieldManualCompletion, &ev.ManualCompletion) || !flag(fieldCompensated, &ev.Compensated) || !flag(fieldRerunFrom, &ev.RerunFrom) {
		return false
	}
	// attempt_id: when a string, it is not blank.
	if present(fieldAttemptID) && !HasNonSpace([]byte(ev.AttemptID)) {
		return false
	}
	if !d.fastLeaseResolution(ev) {
		return false
	}
	nonBlank := func(f int, v string) bool { return d.kind[f] == '"' && HasNonSpace([]byte(v)) }
	if !d.fastRequestFields(ev, str) {
		return false
	}
	switch ev.Status {
	case StatusUnknown, StatusSkipped:
		return nonBlank(fieldReason, ev.Reason)
	case StatusResolved:
		return ev.Resolution != 0 && nonBlank(fieldReason, ev.Reason) && nonBlank(fieldResolvedBy, ev.ResolvedBy)
	}
	return true
}

// fastLeaseResolution reads lease_expires_at (null or a timestamp like
// timestamp_utc) and resolution (null or one of the three outcomes) into
// ev; false when either breaks the schema.
func (d *Decoder) fastLeaseResolution(ev *Event) bool {
	var ok bool
	// lease_expires_at: null or a timestamp like timestamp_utc.
	ev.LeaseExpiresAt = time.Time{}
	switch d.kind[fieldLeaseExpiresAt] {
	case 0, 'n':
	case '"':
		d.strBuf = unquote(d.strBuf[:0], d.raw[fieldLeaseExpiresAt])
		if ev.LeaseExpiresAt, ok = ParseTimestamp(d.strBuf); !ok {
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
	return true
}

// fastCloseFields reads and type-checks the close's fields on any event:
// result_code null or one of the runbook's codes, audit_event_id null or a
// string that is not blank, audit_completed_by null or a string. str reads
// an optional string field (fastRecovery's).
func (d *Decoder) fastCloseFields(ev *Event, str func(int, *string) bool) bool {
	if !str(fieldResultCode, &ev.ResultCode) || !str(fieldAuditEventID, &ev.AuditEventID) || !str(fieldAuditCompletedBy, &ev.AuditCompletedBy) {
		return false
	}
	switch ev.ResultCode {
	case "":
		if d.kind[fieldResultCode] == '"' {
			return false
		}
	case "RUN_ARCHIVED", "RUN_ARCHIVED_AUDIT_PENDING", "RUN_ARCHIVED_LOCK_UNRELEASED", "ARCHIVE_UNCONFIRMED", "LOCK_CONFLICT":
	default:
		return false
	}
	return d.kind[fieldAuditEventID] != '"' || HasNonSpace([]byte(ev.AuditEventID))
}

// text returns the content of the JSON string literal q for an event to
// keep: q's own bytes when it has no escape, else its unquoted form appended
// to the arena. Either way the result lives as long as the line and the
// arena do: the decoder never writes over bytes it has handed out.
func (d *Decoder) text(q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1]
	}
	start := len(d.arena)
	d.arena = unquote(d.arena, q)
	return d.arena[start:len(d.arena):len(d.arena)]
}

// textOf is text of contract field f's string value.
func (d *Decoder) textOf(f int) []byte {
	if q := d.raw[f]; d.plain[f] {
		return q[1 : len(q)-1]
	}
	return d.text(d.raw[f])
}

// contentOf is content of contract field f's string value.
func (d *Decoder) contentOf(f int) []byte {
	if q := d.raw[f]; d.plain[f] {
		return q[1 : len(q)-1]
	}
	return d.content(d.raw[f])
}

// content returns the content of the JSON string literal q for a look
// during this line: q's own bytes when it has no escape, else its unquoted
// form in strBuf.
func (d *Decoder) content(q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1]
	}
	d.strBuf = unquote(d.strBuf[:0], q)
	return d.strBuf
}

// jsonInteger is JSONInteger of a validated number literal, at once when
// it is only digits (then, by JSON's grammar, without a leading zero).
func jsonInteger(lit []byte) (int64, bool) {
	if len(lit) == 0 || len(lit) > 18 {
		return JSONInteger(string(lit))
	}
	var n int64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return JSONInteger(string(lit))
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
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

// maxRunIDLiteral is the longest a valid run_id's literal can be between
// its quotes: 256 code points, each at most 12 bytes (a surrogate pair
// escaped, "\uD83D\uDE00").
const maxRunIDLiteral = 256 * 12

// validRunID: 1..256 code points, none of them U+0000..U+001F or U+007F..U+009F.
func validRunID(b []byte) bool {
	if len(b) > 0 && len(b) <= 256 && printableASCII(b) {
		return true // as many code points as bytes, none a control character
	}
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

// printableASCII tells whether every byte of b is in 0x20..0x7E, eight
// bytes at a time, the last eight overlapping the ones before. A word is
// when no byte sets the high bit of (w - 0x20 per byte) | (w + 1 per
// byte) | w: below the first byte out of the range, no byte borrows or
// carries, so that byte itself shows (TestPrintableASCII).
func printableASCII(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bad := func(w uint64) bool { return ((w-ones*0x20)|(w+ones)|w)&highs != 0 }
	n := len(b)
	if n < 8 {
		for _, c := range b {
			if c < 0x20 || c >= 0x7f {
				return false
			}
		}
		return true
	}
	for i := 0; i+8 <= n; i += 8 {
		if bad(binary.LittleEndian.Uint64(b[i:])) {
			return false
		}
	}
	return !bad(binary.LittleEndian.Uint64(b[n-8:]))
}

// Number returns the raw literal of the contract field name in the line
// Syntax last read when its value is a number, else nil.
func (d *Decoder) Number(name string) []byte {
	if f := d.field([]byte(name)); f >= 0 && d.kind[f] == '0' {
		return d.raw[f]
	}
	return nil
}
