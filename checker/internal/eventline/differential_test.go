package eventline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/schemas"
)

// buildLine assembles an event line from raw JSON values; an empty value
// leaves the field out, and extraKey/extraVal add one more member.
func buildLine(runID, stage, attempt, status, ts, rc, errv, extraKey, extraVal string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	add := func(k, v string) {
		if v == "" {
			return
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(v)
	}
	add(`"run_id"`, runID)
	add(`"stage"`, stage)
	add(`"attempt"`, attempt)
	add(`"status"`, status)
	add(`"timestamp_utc"`, ts)
	add(`"returncode"`, rc)
	add(`"error"`, errv)
	if extraKey != "" {
		add(extraKey, extraVal)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// FuzzFastPathMatchesSchema is the differential test of the compiled
// contract check: for every event line that is one valid JSON object, the
// fast path (Decoder.fastSchema) accepts it exactly when the JSON Schema
// validator with schemas/event.schema.json does, and the validator gives the
// same answer and message on the line's contract members alone
// (Decoder.schemaInstance, what Check hands it) as on the whole line. Its seed corpus runs in
// every go test; go test -fuzz=FuzzFastPathMatchesSchema ./checker explores.
func FuzzFastPathMatchesSchema(f *testing.F) {
	seeds := [][9]string{
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `2`, `3`, `"failed"`, `"2026-01-01T00:00:00.123456789+05:30"`, `137`, `"OOM"`, ``, ``},
		{`"r-1"`, `"silver"`, `1`, `"succeeded"`, `"2026-02-28T23:59:59-00:00"`, `0`, `null`, `"host"`, `"a"`},
		{`"r-1"`, `1.0`, `1e0`, `"started"`, `"2026-01-01T00:00:00Z"`, `null`, ``, ``, ``},
		{`"r-1"`, `1.5`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `0`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `2147483648`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `2147483647`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1e400`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `100e-2`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `"1"`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"Started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-02-30T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2024-02-29T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-12-31T23:59:60Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01t00:00:00z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00.Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00.1234567891Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00+24:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z[UTC]"`, ``, ``, ``, ``},
		{`""`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"a\u0000b"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"a\u0085b"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"` + strings.Repeat("é", 256) + `"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"` + strings.Repeat("é", 257) + `"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `0`, `" \t"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `-1`, `"\u00a0"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `4294967296`, `"x"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `-2147483648`, `"x"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1.0e0`, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"succeeded"`, `"2026-01-01T00:00:00Z"`, `true`, `1`, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"STATUS"`, `1`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"ſtage"`, `1`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"Run_Id"`, `"x"`},
		{`"r-1"`, `"9abc"`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `"a` + strings.Repeat("b", 127) + `"`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `"a` + strings.Repeat("b", 128) + `"`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, ``, ``, ``, ``, ``},
		{`1`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `10000000000000000000000e-22`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1e9999999999`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `-0`, `0.0000000000000000000001e22`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-01-01T00:00:00Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-01-01T01:00:00+01:00"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-01-01T00:00:00.5Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `null`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-01-01T00:00:00"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-02-30T00:00:00Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"2026-12-31T23:59:60Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `""`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `1767225600`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `{"nominalTime":"2026-01-01T00:00:00Z"}`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"Scheduled_For"`, `"2026-01-01T00:00:00Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"SCHEDULED_FOR"`, `"2026-01-01T00:00:00Z"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for "`, `"2026-01-01T00:00:00Z"`},
		// Objects and arrays in contract fields and beside them, which the
		// validator sees emptied (outside review).
		{`"r-1"`, `{"a":[1,{"b":2}]}`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"x"`, `{"run_id":1}`},
		{`["r-1"]`, `1`, `[1]`, `{"status":"failed"}`, `["2026-01-01T00:00:00Z"]`, `[]`, `{}`, `"STATUS"`, `[{"status":1}]`},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `{"error":"x"}`, `"Error"`, `"x"`},
		{`"r-1"`, `1`, `1`, `"resolved"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"resolution"`, `["succeeded"]`},
		// skipped needs a reason that is not blank (docs/contract.md, Skipped stages).
		{`"r-1"`, `1`, `1`, `"skipped"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `"branch chose b"`},
		{`"r-1"`, `1`, `1`, `"skipped"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"skipped"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `"\u200b"`},
		{`"r-1"`, `1`, `1`, `"skipped"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `null`},
		{`"r-1"`, `1`, `1`, `"skipped"`, `"2026-01-01T00:00:00Z"`, `0`, `"x"`, `"reason"`, `" \u3000"`},
		{`"r-1"`, `1`, `1`, `"Skipped"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `"x"`},
		{`"r\u005f1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"run\u005fID"`, `"\ud83d\ude00"`},
		// Long strings the validator sees shortened (schemaInstance).
		{`"` + strings.Repeat("r", 2000) + `"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"` + strings.Repeat("r", 2000) + `\u0085"`, `1`, `0`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"` + strings.Repeat("é", 600) + `"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"` + strings.Repeat(` \t\n`, 300) + `"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"` + strings.Repeat(` `, 300) + `\u00a0x"`, ``, ``},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"` + strings.Repeat(` \u3000`, 300) + `"`, ``, ``},
		{`"r-1"`, `1`, `0`, `"unknown"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `"` + strings.Repeat(`\f`, 100) + `"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"attempt_id"`, `"` + strings.Repeat(` `, 100) + `"`},
		// The years 0001 to 9999 once in UTC (outside review).
		{`"r-1"`, `1`, `1`, `"started"`, `"0000-01-01T00:30:00+01:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"0000-02-29T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"0000-12-31T23:00:00-01:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"0000-12-31T22:59:59.999999999-01:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"0001-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"0001-01-01T00:00:00+00:01"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"9999-12-31T23:59:59.999999999Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"9999-12-31T22:59:59-01:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"9999-12-31T23:00:00-01:00"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"9999-12-31T00:00:00-23:59"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"10000-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"scheduled_for"`, `"0000-06-01T00:00:00Z"`},
		{`"r-1"`, `1`, `1`, `"heartbeat"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"lease_expires_at"`, `"9999-12-31T23:30:00-00:31"`},
		// The recovery model (event schema v2).
		{`"r-1"`, `1`, `1`, `"heartbeat"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"lease_expires_at"`, `"2026-01-01T00:10:00+01:00"`},
		{`"r-1"`, `1`, `1`, `"heartbeat"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"lease_expires_at"`, `"2026-01-01T00:10:00"`},
		{`"r-1"`, `1`, `1`, `"heartbeat"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"lease_expires_at"`, `1`},
		{`"r-1"`, `1`, `1`, `"unknown"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `"result file missing"`},
		{`"r-1"`, `1`, `1`, `"unknown"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, `" "`},
		{`"r-1"`, `1`, `1`, `"unknown"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"owner"`, `"local-pid://a/1"`},
		{`"r-1"`, `1`, `1`, `"resolved"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"resolution"`, `"failed"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"resolution"`, `"maybe"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"resolution"`, `null`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"attempt_id"`, `""`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"attempt_id"`, `"\u00a0"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"rerun_from"`, `true`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"rerun_from"`, `"true"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"manual_completion"`, `null`},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"x"`, `"error_code"`, `7`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"Lease_Expires_At"`, `"x"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"REQUESTED_BY"`, `"x"`},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"x"`, `"stop_method"`, `"local_pid"`},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"x"`, `"stop_method"`, `"pid"`},
		{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, `"x"`, `"stop_method"`, `""`},
		{`"r-1"`, `1`, `1`, `"succeeded"`, `"2026-01-01T00:00:00Z"`, `0`, ``, `"stop_confirmed_by"`, `"\u00a0"`},
		{`"r-1"`, `1`, `1`, `"succeeded"`, `"2026-01-01T00:00:00Z"`, `0`, ``, `"stop_evidence_ref"`, `7`},
		{`"r-1"`, `1`, `1`, `"succeeded"`, `"2026-01-01T00:00:00Z"`, `0`, ``, `"Stop_Method"`, `"other"`},
		// The run's close: a run-level event, without stage and attempt.
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"RUN_ARCHIVED"`},
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"LOCK_CONFLICT"`},
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"RUN_ARCHIVED_AUDIT_PENDING"`},
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `null`},
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``},
		{`"r-1"`, `1`, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"RUN_ARCHIVED"`},
		{`"r-1"`, ``, `null`, `"closed"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"RUN_ARCHIVED"`},
		{`"r-1"`, ``, ``, `"closed"`, `"2026-01-01T00:00:00Z"`, `0`, `"x"`, `"audit_completed_by"`, `"bo"`},
		{`"r-1"`, ``, ``, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"RUN_ARCHIVED"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"audit_event_id"`, `"\u200b"`},
		{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"result_code"`, `"ARCHIVED"`},
	}
	// A run_id at its longest as a literal (256 code points, each a
	// surrogate pair escaped: maxRunIDLiteral bytes), one code point more,
	// and one byte more: the fast path turns a longer literal down unread.
	pair := `\uD83D\uDE00`
	for _, id := range []string{strings.Repeat(pair, 256), strings.Repeat(pair, 257), strings.Repeat(pair, 255) + `\u00e9` + pair, "x" + strings.Repeat(pair, 256)} {
		seeds = append(seeds, [9]string{`"` + id + `"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, ``, ``})
	}
	// Blank texts (outside review): ECMA-262 white space beyond ASCII and
	// characters that render as nothing (U+200B, U+00AD, variation
	// selectors, Hangul fillers...) are blank in every field the schema asks
	// to be not blank.
	for _, b := range append(append([]string{}, blankRunes...), visibleRunes...) {
		q, _ := json.Marshal(b)
		seeds = append(seeds,
			[9]string{`"r-1"`, `1`, `1`, `"unknown"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"reason"`, string(q)},
			[9]string{`"r-1"`, `1`, `1`, `"failed"`, `"2026-01-01T00:00:00Z"`, `1`, string(q), ``, ``},
			[9]string{`"r-1"`, `1`, `1`, `"started"`, `"2026-01-01T00:00:00Z"`, ``, ``, `"attempt_id"`, string(q)})
	}
	// Request events (docs/recovery.md, Claimed requests): no stage or
	// attempt, request_id required, run_id optional; a claim's two fields
	// ride in the extra member's value.
	const ts = `"2026-01-01T00:00:00Z"`
	claim := `"rq-1","claimed_by":"poller-a","claimed_at":"2026-01-01T00:00:00Z"`
	seeds = append(seeds,
		[9]string{``, ``, ``, `"requested"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{`"r-1"`, ``, ``, `"requested"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{``, `1`, ``, `"requested"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{``, ``, `null`, `"requested"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{``, ``, ``, `"requested"`, ts, ``, ``, ``, ``},
		[9]string{``, ``, ``, `"requested"`, ts, ``, ``, `"request_id"`, `" "`},
		[9]string{``, ``, ``, `"requested"`, ts, ``, ``, `"request_id"`, `null`},
		[9]string{``, ``, ``, `"claimed"`, ts, ``, ``, `"request_id"`, claim},
		[9]string{`"r-1"`, ``, ``, `"claimed"`, ts, ``, ``, `"request_id"`, claim},
		[9]string{``, ``, ``, `"claimed"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{`"r-1"`, `1`, `1`, `"started"`, ts, ``, ``, `"request_id"`, `"rq-1"`},
		[9]string{`"r-1"`, `1`, `1`, `"started"`, ts, ``, ``, `"claimed_at"`, `"2026-02-30T00:00:00Z"`},
		[9]string{`null`, ``, ``, `"requested"`, ts, ``, ``, `"request_id"`, `"rq-1"`})
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
	}
	schema, err := schemas.Compile("event")
	if err != nil {
		f.Fatal(err)
	}
	dec := NewDecoder()
	f.Fuzz(func(t *testing.T, runID, stage, attempt, status, ts, rc, errv, extraKey, extraVal string) {
		line := buildLine(runID, stage, attempt, status, ts, rc, errv, extraKey, extraVal)
		if fault := dec.Syntax(line, false); fault != nil {
			return // not one valid JSON object: the schema is never asked
		}
		if field, _ := dec.longNumber(); field != "" {
			return // refused before either check (MaxNumberChars)
		}
		var ev Event
		fast := dec.fastSchema(&ev)
		if field, _ := dec.hugeNumber(); field != "" {
			// A number of at most MaxNumberChars characters whose exponent
			// is beyond ±400 is at least 10^336 or, unless zero (which
			// hugeNumber skips), a fraction below 10^-336: in no range of
			// the schema. Check refuses it without the validator, whose
			// exact arithmetic on it can take seconds.
			if fast {
				t.Fatalf("the fast path accepts %s with a number far outside every range", line)
			}
			return
		}
		msg, slow := schemaCheck(schema, line)
		if fast != slow {
			t.Fatalf("fast path says %v, event.schema.json says %v, for %s", fast, slow, line)
		}
		// The validator sees only the contract members, shallowly
		// (schemaInstance): it must find what it finds on the whole line.
		if shallowMsg, shallow := dec.schemaCheckLine(schema); shallow != slow || shallowMsg != msg {
			t.Fatalf("on the contract members the schema says %v %q, on the whole line %v %q, for %s", shallow, shallowMsg, slow, msg, line)
		}
	})
}

// FuzzDecodeLine feeds arbitrary bytes to one line's decoding (reading rules,
// member walk, fast schema check) on the calling goroutine, where a panic is
// reported with its input; in Check the decoder runs on worker goroutines.
func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`))
	f.Add([]byte(`{"":"","e":2,"x":[1,{"a":"\"}"}],"y":true}`))
	f.Add([]byte(" { \"run_id\" : \"\\u0041\" , \"k\\\"\" : null } "))
	f.Add([]byte(`{"run_id":"r\u002d1 \u00e9","stage":"a","attempt":1.0,"status":"failed","timestamp_utc":"2026-01-01T10:00:00+02:00","error":"x"}`))
	lazy := &Schema{}
	schema, err := lazy.Get()
	if err != nil {
		f.Fatal(err)
	}
	opts := &Config{Strict: true}
	dec := NewDecoder()
	f.Fuzz(func(t *testing.T, line []byte) {
		var out Decoded
		dec.arena = dec.arena[:0]
		dec.Decode(&out, 1, line, lazy, opts)
		if out.Fault != nil {
			if strings.Contains(out.Fault.Msg, "refused by the compiled contract check") {
				t.Fatalf("the fast path and the schema disagree on %q", line)
			}
			return
		}
		// An accepted line matches the schema, and the event carries the
		// run id a plain JSON reader finds in it.
		if msg, ok := schemaCheck(schema, line); !ok {
			t.Fatalf("accepted a line the schema refuses (%s): %q", msg, line)
		}
		var ref struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(line, &ref); err != nil || ref.RunID != string(out.Event.RunID) {
			t.Fatalf("run id %q, encoding/json reads %q (%v), in %q", out.Event.RunID, ref.RunID, err, line)
		}
	})
}

// TestFieldNames: the field switch knows every contract field name at its
// index, and nothing else.
func TestFieldNames(t *testing.T) {
	d := NewDecoder()
	for i, n := range contractFieldNames() {
		if got := d.field([]byte(n)); got != i {
			t.Errorf("field(%q) = %d, want %d", n, got, i)
		}
	}
	for _, n := range []string{"", "Run_id", "stage ", "host"} {
		if got := d.field([]byte(n)); got != -1 {
			t.Errorf("field(%q) = %d, want -1", n, got)
		}
	}
}
