package checker_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
	"github.com/greenlight-ci/greenlight/checker/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// CorpusNow is the moment every log under testdata/logs is judged at.
var corpusNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// corpusDefinition reads testdata/logs/pipeline.yaml.
func corpusDefinition(t *testing.T) *checker.Definition {
	t.Helper()
	return definitionFile(t, "../testdata/logs/pipeline.yaml")
}

// heldWhole writes the snapshot document of s with its run reports held
// whole (runview.SetRuns of Collect) rather than built as they are written.
func heldWhole(s *checker.Snapshot) ([]byte, error) {
	held := *s
	runview.SetRuns(&held, s.Collect())
	return render.JSON(&held)
}

// definitionFile reads and parses a pipeline definition, failing the test
// on any error.
func definitionFile(t *testing.T, path string) *checker.Definition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	def, err := checker.ParseDefinition(data)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// checkHeads fails the test when a run's head (runview.Views.Head) or its
// report built alone (At) is not what its report says in Collect.
func checkHeads(t *testing.T, s *checker.Snapshot) {
	t.Helper()
	reports := s.Collect()
	n := 0
	for i, h := range heads(s) {
		n++
		r := reports[i]
		if want := (runview.Head{RunID: r.RunID, State: string(r.State), FirstEvent: r.FirstEvent, LastEvent: r.LastEvent, FirstLine: r.FirstLine}); h != want {
			t.Errorf("run %d (%s): head %+v, its report says %+v", i, r.RunID, h, want)
		}
		if got := s.At(i); !reflect.DeepEqual(got, r) {
			t.Errorf("run %d (%s): At gives\n%+v\nCollect\n%+v", i, r.RunID, got, r)
		}
	}
	if n != len(reports) || s.Len() != n {
		t.Errorf("%d heads of %d runs", n, len(reports))
	}
}

// checkDoc runs the checker on a log and returns the document greenlight
// prints with --format json: the snapshot, or the violations report.
func checkDoc(t *testing.T, log []byte, opts checker.Options) []byte {
	t.Helper()
	res, err := checker.Check(bytes.NewReader(log), opts)
	if err != nil {
		t.Fatal(err)
	}
	var doc []byte
	if res.Snapshot != nil {
		doc, err = render.JSON(res.Snapshot)
		// The document of reports built as they are written is the one of
		// the same reports held whole.
		whole, err2 := heldWhole(res.Snapshot)
		if err2 != nil {
			t.Fatal(err2)
		}
		if !bytes.Equal(whole, doc) {
			t.Errorf("the snapshot document differs when its run reports are held whole:\n%s\nvs\n%s", doc, whole)
		}
		checkHeads(t, res.Snapshot)
	} else {
		doc, err = render.JSON(res.Report)
	}
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCorpusGolden checks every log under testdata/logs against its golden
// document, byte for byte, on both the fast path and the schema-every-event
// path; -update rewrites the goldens.
func TestCorpusGolden(t *testing.T) {
	def := corpusDefinition(t)
	logs, _ := filepath.Glob("../testdata/logs/*.jsonl")
	if len(logs) == 0 {
		t.Fatal("no logs under testdata/logs")
	}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			log, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			opts := checker.Options{Definition: def, Now: corpusNow, File: "testdata/logs/" + name + ".jsonl"}
			got := checkDoc(t, log, opts)
			opts.SchemaEveryEvent = true
			if slow := checkDoc(t, log, opts); !bytes.Equal(got, slow) {
				t.Errorf("--schema-every-event output differs from the fast path:\n%s\nvs\n%s", slow, got)
			}
			golden := strings.TrimSuffix(path, ".jsonl") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./checker -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
			validateDoc(t, got)
		})
	}
}

// TestSnapshotMarshalJSON: encoding/json writes the same document as
// render.JSON, runs included, in its own layout.
func TestSnapshotMarshalJSON(t *testing.T) {
	log, err := os.ReadFile("../testdata/logs/retry_then_success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := runCheck(t, string(log), nil)
	ours, err := render.JSON(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := json.Marshal(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(ours, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(theirs, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || len(b.(map[string]any)["runs"].([]any)) != 1 {
		t.Errorf("json.Marshal gives\n%s\nrender.JSON\n%s", theirs, ours)
	}
}

// TestSnapshotUnmarshalJSON: a snapshot document read back with
// encoding/json (as greenlight merge reads other checks' snapshots) is the
// snapshot Check made, runs and typed times included, and writes the same
// bytes; a time that is not RFC 3339 is refused with the field's name.
func TestSnapshotUnmarshalJSON(t *testing.T) {
	for _, c := range []struct {
		log, def string
		now      time.Time
	}{
		{"../testdata/sample/campaign_metrics.jsonl", "../testdata/sample/pipeline.yaml", time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)},
		{"../testdata/recovery/orders_daily.jsonl", "../testdata/recovery/pipeline.yaml", corpusNow},
	} {
		t.Run(c.log, func(t *testing.T) {
			log, err := os.ReadFile(c.log)
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Check(bytes.NewReader(log), checker.Options{Definition: definitionFile(t, c.def), Now: c.now})
			if err != nil || res.Snapshot == nil {
				t.Fatalf("check: %v, %v", err, res.Report.Violations)
			}
			doc, err := render.JSON(res.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			var back checker.Snapshot
			if err := json.Unmarshal(doc, &back); err != nil {
				t.Fatal(err)
			}
			again, err := render.JSON(&back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(doc, again) {
				t.Errorf("read back, the snapshot writes\n%s\nwant\n%s", again, doc)
			}
			if !back.GeneratedAt.Equal(res.Snapshot.GeneratedAt) || !reflect.DeepEqual(back.Schedule, res.Snapshot.Schedule) {
				t.Errorf("generated at %v, schedule %+v; want %v, %+v", back.GeneratedAt, back.Schedule, res.Snapshot.GeneratedAt, res.Snapshot.Schedule)
			}
			want, got := res.Snapshot.Collect(), back.Collect()
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d runs read back, want %d", len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				// The brake and the logical time are values for readers
				// only (json:"-"); a run read back orders by its
				// LogicalTime, which its slot or first event gives.
				for j := range w.Stages {
					checker.ClearBrake(&w.Stages[j])
				}
				w.Logical = time.Time{}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("run %s read back as\n%+v\nwant\n%+v", w.RunID, g, w)
				}
			}
		})
	}
	var s checker.Snapshot
	err := json.Unmarshal([]byte(`{"generated_at_utc":"2026-01-01T00:00:00Z","runs":[{"run_id":"r","first_event_at":"yesterday","stages":[]}]}`), &s)
	if err == nil || !strings.Contains(err.Error(), `first_event_at "yesterday"`) {
		t.Errorf("a bad time read back: %v", err)
	}
}
