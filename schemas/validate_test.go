package schemas

import (
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestValidate: a match is nil, a mismatch the validator's error, and a
// number the validator cannot represent, where a schema checks a number,
// ErrNumberOutOfRange (the validator itself panics on it).
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		schema, doc string
		want        string // "ok", "mismatch" or "range"
	}{
		{"pipeline", `{"pipeline": "p", "stages": [{"id": 1}]}`, "ok"},
		{"pipeline", `{"pipeline": "p", "stages": [{"id": 1}], "stale_after_seconds": 1e1000000000}`, "range"},
		{"pipeline", `{"pipeline": "p"}`, "mismatch"},
		{"snapshot", `{"run_count": 1e1000000000}`, "range"},
		{"event", `{"run_id": "r", "stage": 1, "attempt": 1e1000000000, "status": "started", "timestamp_utc": "2026-01-01T00:00:00Z"}`, "range"},
		{"event", `{"run_id": "r", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T00:00:00Z"}`, "ok"},
		{"joblog", `"not an object"`, "mismatch"},
	} {
		s, err := Compile(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := Instance([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		err = Validate(s, inst)
		var ve *jsonschema.ValidationError
		got := "mismatch"
		switch {
		case err == nil:
			got = "ok"
		case errors.Is(err, ErrNumberOutOfRange):
			got = "range"
		case !errors.As(err, &ve):
			got = "other: " + err.Error()
		}
		if got != c.want {
			t.Errorf("%s: Validate(%s) = %q (%v), want %q", c.schema, c.doc, got, err, c.want)
		}
	}
}
