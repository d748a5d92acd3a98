package openlineage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/schemas"
)

// FuzzReaderAgreesWithSchema: the reader (projection, validation, typed
// decoding) accepts an event exactly when openlineage-runevent.schema.json
// accepts the whole event, and reads the same values. Its seeds run in every
// go test.
func FuzzReaderAgreesWithSchema(f *testing.F) {
	seeds := []struct{ typ, time, runID, try, mapIndex, processing string }{
		{"START", `"2026-01-01T10:00:00Z"`, `"00000000-0000-4000-8000-000000000001"`, `1`, `-1`, `"BATCH"`},
		{"COMPLETE", `"2024-11-26T13:05:29.606867+00:00"`, `"019127DE-FD25-7707-BFA4-3EC02693A531"`, `1.0`, `0`, `"STREAMING"`},
		{"RUNNING", `"2026-02-29T10:00:00Z"`, `"0-0-0-0-0"`, `2147483647`, `2147483647`, `"streaming"`},
		{"FAIL", `"2024-02-29T23:59:59.123456789-12:00"`, `"00000000-0000-4000-8000-00000000000g"`, `1e0`, `-2`, `null`},
		{"ABORT", `"2026-01-01T10:00:00"`, `1`, `1.5`, `0.5`, `"SERVICE"`},
		{"OTHER", `"2026-01-01T10:00:60Z"`, `"x"`, `0`, `"0"`, `7`},
		{"START", `"2026-01-01T10:00:00.0000000001Z"`, `"00000000-0000-4000-8000-000000000001"`, `2147483648`, `2147483648`, `"NONE"`},
		{"start", `"2026-01-01t10:00:00z"`, `"00000000-0000-4000-8000-000000000001"`, `-1`, `3`, `""`},
		{"START", `"2026-13-01T10:00:00Z"`, `"00000000-0000-4000-8000-000000000001"`, `1e400`, `1e400`, `"BATCH"`},
		{"-", `"2026-01-01T10:00:00Z"`, `"00000000-0000-4000-8000-000000000001"`, `1`, `2`, `"BATCH"`},
		// A try_number over checker.MaxNumberChars characters, refused before
		// the schema; one at the bound (docs/openlineage.md).
		{"START", `"2026-01-01T10:00:00Z"`, `"00000000-0000-4000-8000-000000000001"`, `1.` + strings.Repeat("0", 70), `0`, `"BATCH"`},
		{"START", `"2026-01-01T10:00:00Z"`, `"00000000-0000-4000-8000-000000000001"`, `1.` + strings.Repeat("0", 62), `0`, `"BATCH"`},
		// Outside the years 0001 to 9999 once in UTC (docs/contract.md).
		{"START", `"0000-01-01T00:30:00+01:00"`, `"00000000-0000-4000-8000-000000000001"`, `1`, `0`, `"BATCH"`},
		{"START", `"9999-12-31T23:00:00-01:00"`, `"00000000-0000-4000-8000-000000000001"`, `1`, `0`, `"BATCH"`},
		{"START", `"0000-12-31T23:00:00-01:00"`, `"00000000-0000-4000-8000-000000000001"`, `1`, `0`, `"BATCH"`},
	}
	for _, s := range seeds {
		f.Add(s.typ, s.time, s.runID, s.try, s.mapIndex, s.processing)
	}
	schema, err := schemas.Compile("openlineage-runevent")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, typ, eventTime, runID, try, mapIndex, processing string) {
		eventType := fmt.Sprintf(`"eventType":%q,`, typ)
		if typ == "-" {
			eventType, typ = "", "" // a RunEvent without eventType
		}
		doc := fmt.Sprintf(`{%s"eventTime":%s,"producer":"p","run":{"runId":%s,"facets":{"airflow":{"taskInstance":{"try_number":%s,"map_index":%s}}}},"job":{"namespace":"n","name":"j","facets":{"jobType":{"processingType":%s,"integration":"X"}}},"inputs":[{"name":"t","facets":{"schema":{"fields":[]}}}]}`,
			eventType, eventTime, runID, try, mapIndex, processing)
		raw := []byte(doc)
		proj, rule, _ := readEvent(raw, eventMembers())
		if rule != "" {
			return // not one JSON object: refused before the schema
		}
		if ptr, _ := longNumber(proj); ptr != "" {
			return // refused before the schema (checker.MaxNumberChars)
		}
		inst, err := schemas.Instance(raw)
		if err != nil {
			t.Fatalf("the reader passed but the instance did not: %v", err)
		}
		// The schema's verdict on the whole event is the reader's.
		_, schemaOK := validate(schema, inst)
		ev, msg, ok := decodeEvent(schema, rawEvent{data: raw}, proj)
		if ok != schemaOK {
			t.Fatalf("schema accepts: %v, reader accepts: %v (%s)\n%s", schemaOK, ok, msg, doc)
		}
		if ok && (ev.kind != kindRun || ev.typ != typ || !ev.hasTry || ev.try < 1 || !ev.hasMap || ev.mapIndex < -1) {
			t.Fatalf("read %+v from %s", ev, doc)
		}
	})
}

// FuzzKindsAgreeWithSchema: for any JSON object, whatever its kind
// (RunEvent, DatasetEvent, JobEvent or none), the reader accepts it exactly
// when the schema accepts it, and tells the kind as the schema does.
func FuzzKindsAgreeWithSchema(f *testing.F) {
	for _, s := range []string{
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","dataset":{"namespace":"n","name":"d"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","dataset":{"namespace":"n"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","dataset":{"namespace":"n","name":"d"},"job":{"namespace":"n"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","job":{"namespace":"n","name":"j"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","job":{"namespace":"n","name":""}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p"}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000001"},"job":{"namespace":"n","name":"j"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","run":{"runId":"00000000-0000-4000-8000-000000000001"},"dataset":{"namespace":"n","name":"d"}}`,
		`{"eventType":"START","eventTime":"2026-01-01T10:00:00Z","producer":"p","run":7,"job":{"namespace":"n","name":"j"}}`,
		`{"eventTime":"2026-01-01T10:00:00Z","producer":"p","dataset":null}`,
	} {
		f.Add(s)
	}
	schema, err := schemas.Compile("openlineage-runevent")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		raw := []byte(doc)
		proj, rule, _ := readEvent(raw, eventMembers())
		if rule != "" {
			return
		}
		inst, err := schemas.Instance(raw)
		if err != nil {
			t.Fatalf("the reader passed but the instance did not: %v", err)
		}
		_, schemaOK := validate(schema, inst)
		ev, msg, ok := decodeEvent(schema, rawEvent{data: raw}, proj)
		if ok != schemaOK {
			t.Fatalf("schema accepts: %v, reader accepts: %v (%s)\n%s", schemaOK, ok, msg, doc)
		}
		if ok && ev.kind != kindOf(inst) {
			t.Fatalf("kind %s, schema's %s\n%s", ev.kind, kindOf(inst), doc)
		}
	})
}
