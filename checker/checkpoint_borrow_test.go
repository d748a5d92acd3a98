package checker_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// borrowLog is the events of runs first to first+runs-1 (ids padded to 48
// bytes, so that a few thousand runs' ids pass the shortest borrowed
// stretch), each of two stages started, the first succeeded and the
// second failed, then extra.
func borrowLog(first, runs int, extra string) []byte {
	var b bytes.Buffer
	for r := first; r < first+runs; r++ {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Minute)
		for st := 1; st <= 2; st++ {
			for _, status := range []string{"started", "succeeded"} {
				if st == 2 && status == "succeeded" {
					fmt.Fprintf(&b, `{"run_id":"run-%044d","stage":2,"attempt":1,"status":"failed","timestamp_utc":%q,"error":"flaky"}`+"\n", r, at.Format(time.RFC3339))
					continue
				}
				fmt.Fprintf(&b, `{"run_id":"run-%044d","stage":%d,"attempt":1,"status":%q,"timestamp_utc":%q}`+"\n", r, st, status, at.Format(time.RFC3339))
				at = at.Add(time.Second)
			}
		}
	}
	b.WriteString(extra)
	return b.Bytes()
}

// retry is an event of run r's second stage: a new failed attempt, with
// its own error text, which grows the run's body.
func retry(r, attempt int, status string) string {
	return fmt.Sprintf(`{"run_id":"run-%044d","stage":2,"attempt":%d,"status":%q,"timestamp_utc":"2026-03-01T00:00:%02dZ","error":"boom %d"}`+"\n", r, attempt, status, attempt, r)
}

// TestCheckpointBorrowEqualsFull: whatever runs the new events touch, the
// checkpoint of a resumed check, whose untouched stretches are borrowed
// from the old checkpoint's bytes, is byte for byte a full check's, and
// so is the one resumed from it in turn.
func TestCheckpointBorrowEqualsFull(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	const base = 6000
	for _, tc := range []struct {
		name           string
		prefix, suffix []byte
		window         checker.Window
	}{
		{"the first run touched", borrowLog(0, base, ""), []byte(retry(0, 2, "started")), checker.Window{}},
		{"the last run touched", borrowLog(0, base, ""), []byte(retry(base-1, 2, "started")), checker.Window{}},
		{"runs early, mid and late touched", borrowLog(0, base, ""), []byte(retry(3, 2, "started") + retry(base/2, 2, "started") + retry(base-10, 2, "started")), checker.Window{}},
		{"touched runs then new runs", borrowLog(0, base, ""), append([]byte(retry(10, 2, "started")+retry(11, 2, "started")), borrowLog(base, 20, "")...), checker.Window{}},
		{"touched runs failed again, with new error texts", borrowLog(0, base, ""), []byte(retry(100, 2, "started") + retry(100, 2, "failed") + retry(base-100, 2, "started") + retry(base-100, 2, "failed")), checker.Window{}},
		{"new runs only", borrowLog(0, base, ""), borrowLog(base, 5, ""), checker.Window{}},
		{"many new runs (the index grows)", borrowLog(0, base, ""), borrowLog(base, 3*base, ""), checker.Window{}},
		{"a base of no runs", nil, borrowLog(0, base, ""), checker.Window{}},
		{"a window of runs", borrowLog(0, base, ""), append([]byte(retry(base-5, 2, "started")), borrowLog(base, 10, "")...), checker.Window{Runs: base - 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := append(bytes.Clone(tc.prefix), tc.suffix...)
			opts := checker.Options{Definition: def, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), File: "log", Window: tc.window}
			rd := checker.Reading{Checkpoint: true}
			first, err := checkRead(bytes.NewReader(tc.prefix), opts, rd)
			if err != nil || first.Checkpoint == nil {
				t.Fatalf("no checkpoint: %v", err)
			}
			full, err := checkRead(bytes.NewReader(log), opts, rd)
			if err != nil || full.Checkpoint == nil {
				t.Fatalf("full check: %v %+v", err, full.Report.Violations)
			}
			want := stateOf(t, full.Checkpoint)
			ro := checker.Reading{Checkpoint: true, Resume: reread(t, first.Checkpoint)}
			resumed, err := checkRead(bytes.NewReader(log), opts, ro)
			if err != nil || resumed.Checkpoint == nil {
				t.Fatalf("resumed check: %v", err)
			}
			if got := stateOf(t, resumed.Checkpoint); !bytes.Equal(got, want) {
				t.Fatalf("the resumed checkpoint (%d bytes) differs from a full check's (%d bytes) at byte %d", len(got), len(want), firstDiff(got, want))
			}
			// Once more, resumed from the resumed one, with one more event.
			more := append(bytes.Clone(log), retry(1234, 2, "started")...)
			full2, err := checkRead(bytes.NewReader(more), opts, rd)
			if err != nil || full2.Checkpoint == nil {
				t.Fatalf("full check: %v %+v", err, full.Report.Violations)
			}
			ro.Resume = reread(t, resumed.Checkpoint)
			again, err := checkRead(bytes.NewReader(more), opts, ro)
			if err != nil || again.Checkpoint == nil {
				t.Fatalf("resumed check: %v", err)
			}
			if got, want := stateOf(t, again.Checkpoint), stateOf(t, full2.Checkpoint); !bytes.Equal(got, want) {
				t.Fatalf("the checkpoint resumed twice (%d bytes) differs from a full check's (%d bytes) at byte %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

// firstDiff is the first offset where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCheckpointBorrowFilesEqualsFull: a log of two files, the second
// grown since, resumed with its old part proven from At while the next
// checkpoint is encoded (Reading.CheckpointEncoded): the checkpoint handed
// out is byte for byte a full check's, and so are its bytes written once
// the check has returned.
func TestCheckpointBorrowFilesEqualsFull(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	one := borrowLog(0, 3000, "")
	two := borrowLog(3000, 4000, "")
	grown := append(bytes.Clone(two), retry(10, 2, "started")+retry(5000, 2, "started")...)
	grown = append(grown, borrowLog(7000, 10, "")...)
	files := func(second []byte) []checker.LogFile {
		return []checker.LogFile{
			{Path: "one", R: bytes.NewReader(one), At: bytes.NewReader(one)},
			{Path: "two", R: bytes.NewReader(second), At: bytes.NewReader(second)},
		}
	}
	opts := checker.Options{Definition: def, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	rd := checker.Reading{Checkpoint: true}
	first, err := checker.CheckFiles(files(two), opts, rd)
	if err != nil || first.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	full, err := checker.CheckFiles(files(grown), opts, rd)
	if err != nil || full.Checkpoint == nil {
		t.Fatalf("full check: %v", err)
	}
	want := stateOf(t, full.Checkpoint)
	ro := checker.Reading{Checkpoint: true, Resume: reread(t, first.Checkpoint)}
	var early []byte
	ro.CheckpointEncoded = func(cp *checker.Checkpoint) { early = stateOf(t, cp) }
	resumed, err := checker.CheckFiles(files(grown), opts, ro)
	if err != nil || resumed.Checkpoint == nil {
		t.Fatalf("resumed check: %v", err)
	}
	if !bytes.Equal(early, want) {
		t.Fatalf("the checkpoint handed out (%d bytes) differs from a full check's (%d bytes) at byte %d", len(early), len(want), firstDiff(early, want))
	}
	if got := stateOf(t, resumed.Checkpoint); !bytes.Equal(got, want) {
		t.Fatalf("the resumed checkpoint (%d bytes) differs from a full check's (%d bytes) at byte %d", len(got), len(want), firstDiff(got, want))
	}
}
