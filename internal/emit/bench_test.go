package emit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// BenchmarkAppendHeartbeat appends heartbeats of one running attempt to a
// log of 10,000 finished runs (40,000 events): each append reads and checks
// the whole log under the lock, so this is the cost per heartbeat of
// greenlight run on a log that size.
func BenchmarkAppendHeartbeat(b *testing.B) {
	var log strings.Builder
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10000 {
		at := t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		for _, st := range []string{"extract", "load"} {
			fmt.Fprintf(&log, `{"run_id":"r-%d","stage":"%s","attempt":1,"status":"started","timestamp_utc":"%s"}`+"\n", i, st, at)
			fmt.Fprintf(&log, `{"run_id":"r-%d","stage":"%s","attempt":1,"status":"succeeded","timestamp_utc":"%s","returncode":0}`+"\n", i, st, at)
		}
	}
	log.WriteString(`{"run_id":"live","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:00:00Z"}` + "\n")
	def, err := checker.ParseDefinition([]byte(pipeline))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	l := &Log{Path: path, Options: checker.Options{Definition: def}, Clock: func() time.Time { return time.Date(2026, 1, 2, 0, 0, 1, 0, time.UTC) }}
	ev := Event{RunID: "live", Stage: checker.StrStage("extract"), Attempt: 1, Status: "heartbeat", Owner: "local-pid://h/1", Lease: time.Minute}
	b.SetBytes(int64(log.Len()))
	b.ResetTimer()
	for range b.N {
		if _, err := l.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
}
