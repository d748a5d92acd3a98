package checker_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// benchLog builds a valid log of n runs of a two-stage pipeline, shaped like
// ../shared/tools/genlog.py's output (one retry in five runs).
func benchLog(runs int) []byte {
	var b bytes.Buffer
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := func() string { t = t.Add(7 * time.Second); return t.Format("2006-01-02T15:04:05.000000Z") }
	for r := 0; r < runs; r++ {
		id := fmt.Sprintf("run-%08d", r)
		for st := 1; st <= 2; st++ {
			att := 1
			if r%5 == 0 && st == 1 {
				fmt.Fprintf(&b, `{"run_id": %q, "stage": %d, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", id, st, att, ts())
				fmt.Fprintf(&b, `{"run_id": %q, "stage": %d, "attempt": %d, "status": "failed", "timestamp_utc": %q, "returncode": 1, "error": "java.lang.OutOfMemoryError: Java heap space"}`+"\n", id, st, att, ts())
				att++
			}
			fmt.Fprintf(&b, `{"run_id": %q, "stage": %d, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", id, st, att, ts())
			fmt.Fprintf(&b, `{"run_id": %q, "stage": %d, "attempt": %d, "status": "succeeded", "timestamp_utc": %q, "returncode": 0}`+"\n", id, st, att, ts())
		}
	}
	return b.Bytes()
}

func benchDefinition(b *testing.B) *checker.Definition {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		b.Fatal(err)
	}
	// The generated logs (../shared/tools/genlog.py) retry a stage up to
	// three times and start it again in the next run without rerun_from:
	// the retry brake across runs warns instead of refusing them.
	def.RetryBrake = checker.RetryBrake{Threshold: 3, Enforce: false} // the default threshold
	return def
}

// BenchmarkCheck measures the pure check (read, decode, validate, sequence
// rules, verdict) of a 100,000-event log, or of the log named by
// GREENLIGHT_BENCH_LOG; the run reports are left to BenchmarkSnapshotJSON.
func BenchmarkCheck(b *testing.B) {
	log := benchLog(22000)
	if path := os.Getenv("GREENLIGHT_BENCH_LOG"); path != "" {
		var err error
		if log, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
	def := benchDefinition(b)
	opts := checker.Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := checker.Check(bytes.NewReader(log), opts)
		if err != nil || !res.Report.Valid {
			b.Fatal(err, res.Report.Violations)
		}
	}
	b.ReportMetric(float64(bytes.Count(log, []byte("\n")))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSchemaEveryEvent is the slow reference path on the same log.
func BenchmarkSchemaEveryEvent(b *testing.B) {
	log := benchLog(2200)
	opts := checker.Options{Definition: benchDefinition(b), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), SchemaEveryEvent: true}
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, err := checker.Check(bytes.NewReader(log), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotJSON measures building and encoding the run reports of
// a 22,000-run snapshot, as the CLI streams them.
func BenchmarkSnapshotJSON(b *testing.B) {
	log := benchLog(22000)
	res, err := checker.Check(bytes.NewReader(log), checker.Options{Definition: benchDefinition(b), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := render.WriteSnapshotJSON(io.Discard, res.Snapshot); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckSmall measures a whole Check of a one-run log: the fixed
// cost every CLI call pays (schema compile, pipeline start).
func BenchmarkCheckSmall(b *testing.B) {
	log := benchLog(1)
	opts := checker.Options{Definition: benchDefinition(b), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	for b.Loop() {
		if _, err := checker.Check(bytes.NewReader(log), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckJSON is what greenlight check --format json does: check the
// log (GREENLIGHT_BENCH_LOG, or 100,000 generated events) and stream the
// snapshot document.
func BenchmarkCheckJSON(b *testing.B) {
	log := benchLog(22000)
	if path := os.Getenv("GREENLIGHT_BENCH_LOG"); path != "" {
		var err error
		if log, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
	opts := checker.Options{Definition: benchDefinition(b), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		res, err := checker.Check(bytes.NewReader(log), opts)
		if err != nil || res.Snapshot == nil {
			b.Fatal(err)
		}
		if err := render.WriteSnapshotJSON(io.Discard, res.Snapshot); err != nil {
			b.Fatal(err)
		}
	}
}
