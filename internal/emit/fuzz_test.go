package emit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// FuzzEncode: whatever the text of run_id, error and an extra string field
// (from --field key=value), the line is one JSON object ending in a
// newline, with no raw newline inside, that reads back as the same strings
// (each invalid UTF-8 byte as U+FFFD).
func FuzzEncode(f *testing.F) {
	f.Add("r-1", "boom", "note", "x")
	f.Add("r\u2028", "line 1\nline 2\x1b[31m", "k\"ey", "\xff\xfe")
	f.Fuzz(func(t *testing.T, runID, errText, key, value string) {
		fields, err := ParseFields([]string{key + "=" + value}, nil)
		if err != nil {
			return // not a key=value flag
		}
		line := Encode(Event{RunID: runID, Stage: checker.IntStage(1), Status: "failed", Error: &errText, Fields: fields}, 1, time.Unix(0, 1).UTC())
		if strings.Count(string(line), "\n") != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line: %q", line)
		}
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		valid := func(s string) string { // each invalid byte becomes U+FFFD, as encoding/json does
			var b strings.Builder
			for _, r := range s {
				b.WriteRune(r) // ranging over a string yields U+FFFD per invalid byte
			}
			return b.String()
		}
		if got["run_id"] != valid(runID) || got["error"] != valid(errText) {
			t.Errorf("%q read back as %q, %q", line, got["run_id"], got["error"])
		}
		if k := fields[0].Key; k != "run_id" && k != "error" && k != "stage" && k != "attempt" && k != "status" && k != "timestamp_utc" && valid(k) == k && got[k] != valid(value) {
			t.Errorf("%q: field %q read back as %q", line, k, got[k])
		}
	})
}
