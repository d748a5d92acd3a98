package checker

import (
	"testing"

	"github.com/greenlight-ci/greenlight/schemas"
)

// TestFastPathMatchesSchemaRecovery pins whole events of the recovery model
// (several new fields at once, which the fuzz target's one extra member
// cannot build): the compiled fast path and event.schema.json agree, and
// both give the expected answer.
func TestFastPathMatchesSchemaRecovery(t *testing.T) {
	const head = `{"run_id":"r-1","stage":1,"attempt":1,"timestamp_utc":"2026-01-01T00:00:00Z",`
	cases := []struct {
		rest  string
		valid bool
	}{
		{`"status":"resolved","resolution":"succeeded","reason":"r","resolved_by":"ana","evidence_ref":"T-1","manual_completion":true,"approved_by":"bo"}`, true},
		{`"status":"resolved","resolution":"cancelled","reason":"r","resolved_by":"ana","compensated":true}`, true},
		{`"status":"resolved","resolution":null,"reason":"r","resolved_by":"ana"}`, false},
		{`"status":"resolved","resolution":"failed","reason":"r","resolved_by":" "}`, false},
		{`"status":"resolved","resolution":"failed","reason":"\t","resolved_by":"ana"}`, false},
		{`"status":"resolved","resolution":"failed","resolved_by":"ana"}`, false},
		{`"status":"resolved","resolution":"failed","reason":"r","resolved_by":"ana","evidence_ref":null}`, true},
		{`"status":"resolved","resolution":"failed","reason":"r","resolved_by":"ana","compensated":1}`, false},
		{`"status":"unknown","reason":null}`, false},
		{`"status":"unknown","reason":"process vanished","attempt_id":"a-1","owner":"local-pid://h/1"}`, true},
		{`"status":"heartbeat","lease_expires_at":null,"owner":null,"attempt_id":null}`, true},
		{`"status":"heartbeat","lease_expires_at":"2026-02-30T00:00:00Z"}`, false},
		{`"status":"started","requested_by":"bo","rerun_from":false,"error_code":null}`, true},
		{`"status":"started","approved_by":["bo"]}`, false},
		{`"status":"failed","error":"x","error_code":"OOM","returncode":137}`, true},
	}
	schema, err := schemas.Compile("event")
	if err != nil {
		t.Fatal(err)
	}
	dec := newLineDecoder()
	for _, tc := range cases {
		line := []byte(head + tc.rest)
		if f := dec.syntax(line, false); f != nil {
			t.Fatalf("%s: %s", line, f.msg)
		}
		var ev Event
		fast := dec.fastSchema(&ev)
		_, slow := schemaCheck(schema, line)
		if fast != slow || fast != tc.valid {
			t.Errorf("fast path %v, schema %v, want %v: %s", fast, slow, tc.valid, line)
		}
	}
}
