package eventline

import (
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/schemas"
)

// TestScheduledForFastPathMatchesSchema: the compiled fast path and the JSON
// Schema validator accept and refuse the same scheduled_for values, and the
// fast path reads the instant in UTC.
func TestScheduledForFastPathMatchesSchema(t *testing.T) {
	const head = `{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-11-28T02:00:00Z"`
	tests := []struct {
		name   string
		line   string
		accept bool
		utc    string // the ScheduledFor read, "" when none
	}{
		{"absent", head + `}`, true, ""},
		{"null means absent", head + `,"scheduled_for":null}`, true, ""},
		{"UTC", head + `,"scheduled_for":"2026-11-28T02:00:00Z"}`, true, "2026-11-28T02:00:00Z"},
		{"offset", head + `,"scheduled_for":"2026-11-28T03:00:00+01:00"}`, true, "2026-11-28T02:00:00Z"},
		{"fraction", head + `,"scheduled_for":"2026-11-28T02:00:00.5Z"}`, true, "2026-11-28T02:00:00.5Z"},
		{"escaped string", head + `,"scheduled_for":"2026-11-28T02:00:00\u005a"}`, true, "2026-11-28T02:00:00Z"},
		{"no offset", head + `,"scheduled_for":"2026-11-28T02:00:00"}`, false, ""},
		{"lower-case z", head + `,"scheduled_for":"2026-11-28T02:00:00z"}`, false, ""},
		{"zone name", head + `,"scheduled_for":"2026-11-28T02:00:00 UTC"}`, false, ""},
		{"no such day", head + `,"scheduled_for":"2026-02-29T02:00:00Z"}`, false, ""},
		{"leap second", head + `,"scheduled_for":"2026-12-31T23:59:60Z"}`, false, ""},
		{"empty", head + `,"scheduled_for":""}`, false, ""},
		{"number", head + `,"scheduled_for":1764295200}`, false, ""},
		{"object", head + `,"scheduled_for":{"nominalTime":"2026-11-28T02:00:00Z"}}`, false, ""},
		{"other letter case", head + `,"Scheduled_For":"2026-11-28T02:00:00Z"}`, false, ""},
		{"other letter case, upper", head + `,"SCHEDULED_FOR":null}`, false, ""},
	}
	schema, err := schemas.Compile("event")
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if f := dec.Syntax([]byte(tc.line), false); f != nil {
				t.Fatalf("syntax: %s", f.Msg)
			}
			var ev Event
			fast := dec.fastSchema(&ev)
			msg, slow := schemaCheck(schema, []byte(tc.line))
			if fast != tc.accept || slow != tc.accept {
				t.Fatalf("fast path %v, schema %v (%s), want %v", fast, slow, msg, tc.accept)
			}
			got := ""
			if ev.HasScheduledFor {
				got = ev.ScheduledFor.Format(time.RFC3339Nano)
			}
			if fast && got != tc.utc {
				t.Errorf("scheduled_for read as %q, want %q", got, tc.utc)
			}
		})
	}
}
