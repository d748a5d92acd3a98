package checker_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

// TestCloseAndRequestsMatchSchema: the snapshots of the close and request
// logs (testdata/recovery/close.jsonl, stale_request.jsonl, and a log with
// a request in each state at once) match snapshot.schema.json, and between
// them give every key of a run's close a value other than null and every
// request state, so the schema is asked about each, not only about nulls.
func TestCloseAndRequestsMatchSchema(t *testing.T) {
	schema, err := schemas.Compile("snapshot")
	if err != nil {
		t.Fatal(err)
	}
	const states = `{"request_id":"rq-requested","status":"requested","timestamp_utc":"2026-01-01T11:59:00Z","scheduled_for":"2026-01-01T01:00:00Z"}
{"request_id":"rq-claimed","status":"requested","timestamp_utc":"2026-01-01T11:58:00Z","scheduled_for":"2026-01-01T02:00:00Z"}
{"request_id":"rq-claimed","status":"claimed","timestamp_utc":"2026-01-01T11:58:30Z","claimed_by":"poller-a","claimed_at":"2026-01-01T11:58:30Z"}
{"request_id":"rq-unclaimed","status":"requested","timestamp_utc":"2026-01-01T09:00:00Z","scheduled_for":"2026-01-01T03:00:00Z"}
`
	logs := []struct{ name, log string }{
		{"close.jsonl", read(t, "../testdata/recovery/close.jsonl")},
		{"stale_request.jsonl", read(t, "../testdata/recovery/stale_request.jsonl")},
		{"every request state", read(t, "../testdata/recovery/stale_request.jsonl") + states},
	}
	closeKeys := map[string]bool{}
	seen := map[checker.RequestState]bool{}
	for _, l := range logs {
		res, err := checker.Check(strings.NewReader(l.log), checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: l.name})
		if err != nil || res.Snapshot == nil {
			t.Fatalf("%s: %v %+v", l.name, err, res.Report.Violations)
		}
		var doc bytes.Buffer
		if err := render.WriteSnapshotJSON(&doc, res.Snapshot); err != nil {
			t.Fatal(err)
		}
		inst, err := schemas.Instance(doc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: the snapshot does not match snapshot.schema.json: %v", l.name, err)
		}
		var s struct {
			Runs []struct {
				Close map[string]any `json:"close"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(doc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Runs {
			for k, v := range r.Close {
				closeKeys[k] = closeKeys[k] || v != nil
			}
		}
		if rq := res.Snapshot.Requests; rq != nil {
			for _, r := range rq.Requests {
				seen[r.State] = true
			}
		}
	}
	var null []string
	for k, given := range closeKeys {
		if !given {
			null = append(null, k)
		}
	}
	slices.Sort(null)
	if len(closeKeys) == 0 || len(null) > 0 {
		t.Errorf("close keys null in every run: %v (of %d keys)", null, len(closeKeys))
	}
	for _, st := range []checker.RequestState{checker.RequestRequested, checker.RequestClaimed, checker.RequestStale,
		checker.RequestUnclaimed, checker.RequestDone, checker.RequestReconciled} {
		if !seen[st] {
			t.Errorf("no request is %s", st)
		}
	}
}

// read returns the file at path as text.
func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
