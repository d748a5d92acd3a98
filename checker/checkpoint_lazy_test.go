package checker_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// lazyLog is runs succeeded runs of stages 1 and 2, one a minute from
// 2026-01-01T00:00, their ids numbered from first, then extra.
func lazyLog(first, runs int, extra string) []byte {
	var b bytes.Buffer
	for r := first; r < first+runs; r++ {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Minute)
		for st := 1; st <= 2; st++ {
			for _, status := range []string{"started", "succeeded"} {
				fmt.Fprintf(&b, `{"run_id":"r-%04d","stage":%d,"attempt":1,"status":%q,"timestamp_utc":%q}`+"\n", r, st, status, at.Format(time.RFC3339))
				at = at.Add(time.Second)
			}
		}
	}
	b.WriteString(extra)
	return b.Bytes()
}

// resumeOutputs checks log at now resumed from the checkpoint of its first
// prefix bytes, checked at then, and returns the resumed snapshot, how many
// runs it decoded by the end of its text, its JSON document and text (in
// that order of rendering: the document decodes every run); and the same
// outputs of a full check at now.
func resumeOutputs(t *testing.T, log []byte, prefix int, then, now time.Time) (*checker.Snapshot, int, [2][]byte, [2][]byte) {
	t.Helper()
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	opts := checker.Options{Definition: def, Now: then, File: "log"}
	rd := checker.Reading{Checkpoint: true}
	res, err := checkRead(bytes.NewReader(log[:prefix]), opts, rd)
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v %s", err, res.NoCheckpoint)
	}
	var state bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&state); err != nil {
		t.Fatal(err)
	}
	outputs := func(s *checker.Snapshot) [2][]byte {
		doc, err := render.JSON(s)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := render.WriteText(&text, s); err != nil {
			t.Fatal(err)
		}
		return [2][]byte{doc, text.Bytes()}
	}
	opts.Now = now
	full, err := checkRead(bytes.NewReader(log), opts, rd)
	if err != nil || full.Snapshot == nil {
		t.Fatalf("full check: %v", err)
	}
	if rd.Resume, err = checker.ParseCheckpoint(state.Bytes()); err != nil {
		t.Fatal(err)
	}
	resumed, err := checkRead(bytes.NewReader(log), opts, rd)
	if err != nil || resumed.Snapshot == nil {
		t.Fatalf("resumed check: %v", err)
	}
	s := resumed.Snapshot
	// The text is rendered first: the document decodes every run.
	var text bytes.Buffer
	if err := render.WriteText(&text, s); err != nil {
		t.Fatal(err)
	}
	decoded := checker.DecodedRuns(s)
	doc, err := render.JSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, decoded, [2][]byte{doc, text.Bytes()}, outputs(full.Snapshot)
}

// TestCheckpointDecodesLazily: a check resumed from a checkpoint of many
// runs decodes the runs its new events touch and those its text lists, not
// every run, and gives a full check's bytes.
func TestCheckpointDecodesLazily(t *testing.T) {
	// 300 runs; r-0300 has its stage 1 in progress when the checkpoint is
	// written, r-0005 failed: both listed by the text, with the latest runs.
	failed := `{"run_id":"r-0005x","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:05:30Z"}` + "\n" +
		`{"run_id":"r-0005x","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T00:05:40Z","returncode":1,"error":"boom"}` + "\n" +
		`{"run_id":"r-0300","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T05:00:00Z"}` + "\n"
	log := lazyLog(0, 300, failed)
	prefix := len(log)
	// New: r-0300 goes on (touched), two new runs.
	log = append(log, `{"run_id":"r-0300","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T05:01:00Z"}`+"\n"...)
	log = append(log, lazyLog(301, 2, "")...)
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	s, decodedText, got, want := resumeOutputs(t, log, prefix, now, now)
	if !bytes.Equal(got[1], want[1]) {
		t.Fatalf("the resumed text differs from a full check's:\n%s\nvs\n%s", got[1], want[1])
	}
	if !bytes.Equal(got[0], want[0]) {
		t.Fatalf("the resumed document differs from a full check's")
	}
	// Decoded by the text: r-0300 (touched), r-0005x (failed, listed) and
	// the latest runs of the checkpoint the listing shows besides the two
	// new ones (r-0299, r-0298; r-0300 is one of the five).
	if decodedText != 4 {
		t.Errorf("the resumed text check decoded %d of the checkpoint's 302 runs, want 4", decodedText)
	}
	// A run's order is its head's, for the checkpoint's runs and the new.
	for i, h := range s.RunHeads() {
		at, line, ok := s.RunOrder(i)
		if !at.Equal(h.FirstEvent) || line != h.FirstLine || ok != (h.State == checker.RunSucceeded) {
			t.Errorf("RunOrder(%d) = %s, %d, %t; its head has %s, %d, %s", i, at, line, ok, h.FirstEvent, h.FirstLine, h.State)
		}
	}
	// The document lists every run, so by then each was decoded.
	if n := checker.DecodedRuns(s); n != 302 {
		t.Errorf("after the document, %d runs decoded, want 302", n)
	}
}

// TestCheckpointJudgedAtNow: a run whose state depends on now when the
// checkpoint is written (an attempt in progress: running, a stall
// candidate, a lease) is judged again at the resumed check's now, with a
// full check's bytes; a later now turns a running attempt stalled and a
// lease expired.
func TestCheckpointJudgedAtNow(t *testing.T) {
	extra := `{"run_id":"quiet","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:00:00Z"}` + "\n" +
		`{"run_id":"leased","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:00:10Z","attempt_id":"l-1","owner":"w","lease_expires_at":"2026-01-02T00:30:00Z"}` + "\n"
	log := lazyLog(0, 20, extra)
	prefix := len(log)
	log = append(log, lazyLog(100, 1, "")...)
	then := time.Date(2026, 1, 2, 0, 5, 0, 0, time.UTC) // both running
	for _, now := range []time.Time{then, then.Add(2 * time.Hour), then.Add(48 * time.Hour)} {
		s, _, got, want := resumeOutputs(t, log, prefix, then, now)
		if !bytes.Equal(got[0], want[0]) {
			t.Fatalf("at %s: the resumed document differs from a full check's:\n%s\nvs\n%s", now, got[0], want[0])
		}
		if !bytes.Equal(got[1], want[1]) {
			t.Fatalf("at %s: the resumed text differs from a full check's:\n%s\nvs\n%s", now, got[1], want[1])
		}
		wantState := checker.RunState(checker.RunRunning)
		if now.After(then) {
			wantState = checker.RunStalled
		}
		for _, id := range []string{"quiet", "leased"} {
			for _, h := range s.RunHeads() {
				if h.RunID == id && h.State != wantState {
					t.Errorf("at %s: run %s is %s, want %s", now, id, h.State, wantState)
				}
			}
		}
	}
}

// TestCheckpointBorrowsUntouchedRuns: the checkpoint of a check resumed
// from one of thousands of runs writes the stretches of runs no new event
// touched from the old checkpoint's bytes (runstore.Encoder.Borrow), and
// its bytes are still those of a full check's checkpoint: with a touched
// run early in the log, whose new body moves where every later body
// starts (their heads are copied and shifted, their bodies borrowed), and
// with none touched (heads and bodies borrowed).
func TestCheckpointBorrowsUntouchedRuns(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	early := `{"run_id":"early","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:04:30Z"}` + "\n"
	prefix := append(lazyLog(0, 5, early), lazyLog(5, 4995, "")...)
	for _, tc := range []struct {
		name      string
		suffix    string
		wantParts int
	}{
		// The bytes before the bodies; the bodies of runs 0 to 5 and of
		// "early", copied; the rest of the base's bodies, borrowed; the
		// new runs' bodies and what follows the store; the trailer.
		{"a touched run", `{"run_id":"early","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-04-01T00:00:00Z"}` + "\n" + string(lazyLog(5000, 3, "")), 4},
		// The bytes up to the heads; the base's heads, borrowed; the new
		// runs' heads; the base's bodies, borrowed; the new bodies and the
		// rest; the trailer.
		{"none touched", string(lazyLog(5000, 3, "")), 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := append(bytes.Clone(prefix), tc.suffix...)
			opts := checker.Options{Definition: def, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), File: "log"}
			rd := checker.Reading{Checkpoint: true}
			first, err := checkRead(bytes.NewReader(prefix), opts, rd)
			if err != nil || first.Checkpoint == nil {
				t.Fatalf("no checkpoint: %v", err)
			}
			full, err := checkRead(bytes.NewReader(log), opts, rd)
			if err != nil || full.Checkpoint == nil {
				t.Fatalf("full check: %v (%s) %+v", err, full.NoCheckpoint, full.Report.Violations)
			}
			rd.Resume = reread(t, first.Checkpoint)
			resumed, err := checkRead(bytes.NewReader(log), opts, rd)
			if err != nil || resumed.Checkpoint == nil {
				t.Fatalf("resumed check: %v", err)
			}
			parts, err := checker.CheckpointParts(resumed.Checkpoint)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := bytes.Join(parts, nil), stateOf(t, full.Checkpoint); !bytes.Equal(got, want) {
				t.Fatalf("the resumed checkpoint (%d bytes) differs from a full check's (%d bytes)", len(got), len(want))
			}
			if len(parts) != tc.wantParts {
				t.Errorf("the resumed checkpoint is %d parts, want %d", len(parts), tc.wantParts)
			}
		})
	}
}
