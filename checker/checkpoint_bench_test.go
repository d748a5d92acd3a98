package checker

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// BenchmarkCheckpointLoad measures loading a checkpoint: parsing the file
// and decoding its fold state into a fresh run store, without hashing the
// log (bench/run.sh adds bench/loghash's time for "hash plus load"), with
// the collector off, so that it times the decoding alone (the garbage of
// the iteration before is collected untimed). The checkpoint is that of
// GREENLIGHT_BENCH_LOG, or of 20,000 generated runs, checked at 2026-12-01
// against stages 1,2, with the window GREENLIGHT_BENCH_WINDOW when set
// (7d: the folded runs' records, docs/state.md).
func BenchmarkCheckpointLoad(b *testing.B) {
	var log []byte
	if path := os.Getenv("GREENLIGHT_BENCH_LOG"); path != "" {
		var err error
		if log, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		log = generatedRuns(0, 20000)
	}
	def, err := LinearDefinition([]StageID{IntStage(1), IntStage(2)})
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	if w := os.Getenv("GREENLIGHT_BENCH_WINDOW"); w != "" {
		if opts.Window, err = ParseWindow(w); err != nil {
			b.Fatal(err)
		}
	}
	res, err := checkRead(bytes.NewReader(log), opts, Reading{Checkpoint: true})
	if err != nil || res.Checkpoint == nil {
		b.Fatalf("no checkpoint: %v %s", err, res.NoCheckpoint)
	}
	var file bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&file); err != nil {
		b.Fatal(err)
	}
	opts, _ = opts.normalized()
	b.ReportMetric(float64(file.Len()), "checkpoint-bytes")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		debug.SetGCPercent(100)
		runtime.GC()
		debug.SetGCPercent(-1)
		b.StartTimer()
		cp, err := ParseCheckpoint(file.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		c := newContractState(opts)
		if err := c.decodeFold(cp.fold); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckResume checks GREENLIGHT_BENCH_LOG (or 20,000 generated
// runs) grown by 1,000 events of new runs, in full and resumed from the
// checkpoint of the log before it grew, up to the snapshot's verdict and
// state counts (no run reports, no output), and writing the next checkpoint
// (encoded into memory).
func BenchmarkCheckResume(b *testing.B) {
	var log []byte
	if path := os.Getenv("GREENLIGHT_BENCH_LOG"); path != "" {
		var err error
		if log, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		log = generatedRuns(0, 20000)
	}
	grown := append(bytes.Clone(log), generatedRuns(1<<30, 250)...)
	def, err := LinearDefinition([]StageID{IntStage(1), IntStage(2)})
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	res, err := checkRead(bytes.NewReader(log), opts, Reading{Checkpoint: true})
	if err != nil || res.Checkpoint == nil {
		b.Fatalf("no checkpoint: %v %s", err, res.NoCheckpoint)
	}
	var file bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&file); err != nil {
		b.Fatal(err)
	}
	for _, resume := range []bool{false, true} {
		name := "full"
		if resume {
			name = "resumed"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				rd := Reading{Checkpoint: true}
				if resume {
					if rd.Resume, err = ParseCheckpoint(file.Bytes()); err != nil {
						b.Fatal(err)
					}
				}
				res, err := checkRead(bytes.NewReader(grown), opts, rd)
				if err != nil || res.Snapshot == nil || res.Checkpoint == nil {
					b.Fatalf("%v %v", err, res)
				}
				if _, err := res.Checkpoint.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// generatedRuns writes runs runs of two stages, four events each,
// their ids numbered from first.
func generatedRuns(first, runs int) []byte {
	var buf bytes.Buffer
	for r := first; r < first+runs; r++ {
		for st := 1; st <= 2; st++ {
			fmt.Fprintf(&buf, `{"run_id":"run-%d","stage":%d,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:0%dZ"}`+"\n", r, st, 2*st)
			fmt.Fprintf(&buf, `{"run_id":"run-%d","stage":%d,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T00:00:0%dZ"}`+"\n", r, st, 2*st+1)
		}
	}
	return buf.Bytes()
}
