//go:build unix

package osfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestMappedTruncatedWhileProven: a log truncated in place under its
// mapping while a resumed check proves its old part, whichever goroutine
// hashes the pieces that fault (the proof's own, or the one that waits
// for it), is an error naming the file, never a crash.
func TestMappedTruncatedWhileProven(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := 0; b.Len() < 13<<20; r++ { // 13 whole pieces of 1 MiB
		for _, status := range []string{"started", "succeeded"} {
			fmt.Fprintf(&b, `{"run_id":"run-%0200d","stage":1,"attempt":1,"status":%q,"timestamp_utc":%q}`+"\n", r, status, at.Format(time.RFC3339))
		}
		at = at.Add(time.Second)
	}
	log := b.Bytes()
	opts := checker.Options{Definition: def, Now: at, Checkpoint: true}
	first, err := checker.CheckFiles([]checker.LogFile{{Path: "events.jsonl", R: bytes.NewReader(log), At: bytes.NewReader(log)}}, opts)
	if err != nil || first.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	var state bytes.Buffer
	if _, err := first.Checkpoint.WriteTo(&state); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	const want = "reading events.jsonl: the file shrank while it was being read (truncated in place)"
	for i := range 8 {
		if err := os.WriteFile(path, log, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m := NewMapped(f)
		if _, err := m.WriteSection(io.Discard, 0, 1); err != nil { // mapped at the whole size
			t.Fatal(err)
		}
		if err := os.Truncate(path, 1<<20); err != nil {
			t.Fatal(err)
		}
		o := opts
		if o.Resume, err = checker.ParseCheckpoint(state.Bytes()); err != nil {
			t.Fatal(err)
		}
		_, err = checker.CheckFiles([]checker.LogFile{{Path: "events.jsonl", R: f, At: m}}, o)
		m.Close()
		if err == nil || err.Error() != want {
			t.Fatalf("check %d: err = %v, want %q", i, err, want)
		}
	}
}
