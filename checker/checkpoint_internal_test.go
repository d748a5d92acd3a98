package checker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// FuzzDecodeFold feeds arbitrary bytes to the fold-state decoder, behind
// the checkpoint's trailer: anything it refuses is a *CheckpointError, and
// what it accepts folds into a snapshot, whose reports are built, or a run
// that does not decode when first read panics with a *runstore.DamagedError
// while the snapshot is built (CheckFiles turns it into a *CheckpointError)
// or a *CheckpointError when a report is (which the shell reports as a
// damaged checkpoint); no other panic.
// The seeds are real fold states.
func FuzzDecodeFold(f *testing.F) {
	def, err := LinearDefinition([]StageID{IntStage(1), IntStage(2)})
	if err != nil {
		f.Fatal(err)
	}
	opts, err := Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}.normalized()
	if err != nil {
		f.Fatal(err)
	}
	for _, log := range []string{
		"",
		`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n",
		`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","attempt_id":"a","owner":"o","lease_expires_at":"2026-01-01T11:00:00Z"}` + "\n" +
			`{"run_id":"r","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"e","returncode":3}` + "\n" +
			`{"run_id":"s","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","scheduled_for":"2026-01-01T10:00:00Z","requested_by":"p"}` + "\n",
		// Requests, last in the fold state.
		`{"request_id":"q1","status":"requested","timestamp_utc":"2026-01-01T08:00:00Z","scheduled_for":"2026-01-01T00:00:00Z"}` + "\n" +
			`{"request_id":"q1","status":"claimed","timestamp_utc":"2026-01-01T08:01:00Z","claimed_by":"p","claimed_at":"2026-01-01T08:01:00Z","lease_expires_at":"2026-01-01T09:00:00Z"}` + "\n" +
			`{"request_id":"q2","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z","stale_request_reconciled":"INC-1","run_id":"r"}` + "\n",
	} {
		res, err := checkRead(bytes.NewReader([]byte(log)), opts, Reading{Checkpoint: true})
		if err != nil || res.Checkpoint == nil {
			f.Fatalf("no checkpoint: %v", err)
		}
		var b bytes.Buffer
		if _, err := res.Checkpoint.WriteTo(&b); err != nil {
			f.Fatal(err)
		}
		cp, err := ParseCheckpoint(b.Bytes())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(cp.fold)
	}
	f.Fuzz(func(t *testing.T, fold []byte) {
		c := newContractState(opts)
		var bad *CheckpointError
		err := c.decodeFold(fold)
		if err != nil {
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want a *CheckpointError", err)
			}
			return
		}
		// A fold state the decoder accepts folds into a snapshot, or a run
		// of it that does not decode when it is first read is a damaged
		// checkpoint (the runs are decoded lazily, behind the trailer).
		defer func() {
			if r := recover(); r != nil {
				// *runstore.DamagedError: found while the snapshot is
				// built, which CheckFiles recovers (recoverDamage).
				_, late := r.(*CheckpointError)
				_, early := r.(*runstore.DamagedError)
				if !late && !early {
					panic(r)
				}
			}
		}()
		c.snapshot(Source{}).Collect()
	})
}

// TestDamagedFoldBeatsMismatch: a checkpoint whose fold state is damaged
// (behind an intact trailer) is a damaged checkpoint, never a mismatch to
// recheck, even on a log that does not fit it; and a log that fits is
// damaged too. Both with the last file read from the start (R) and at an
// offset while its old part is proven meanwhile (At).
func TestDamagedFoldBeatsMismatch(t *testing.T) {
	log := []byte(`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n")
	opts, state := checkedState(t, log)
	grown := append(bytes.Clone(log), `{"run_id":"r","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}`+"\n"...)
	rewritten := bytes.Clone(grown)
	rewritten[3] = 'X'
	const want = "the checkpoint is unusable: its contents are damaged (a bad number)"
	for _, l := range [][]byte{grown, rewritten} {
		for _, readAt := range []bool{false, true} {
			cp, err := ParseCheckpoint(state)
			if err != nil {
				t.Fatal(err)
			}
			cp.fold = cp.fold[:len(cp.fold)-1]
			f := LogFile{Path: "log", R: bytes.NewReader(l)}
			if readAt {
				f.At = bytes.NewReader(l)
			}
			_, err = CheckFiles([]LogFile{f}, opts, Reading{Checkpoint: true, Resume: cp})
			var damage *CheckpointError
			if !errors.As(err, &damage) || err.Error() != want {
				t.Errorf("rewritten %t, At %t: err = %v, want %q", l[3] == 'X', readAt, err, want)
			}
		}
	}
}

// TestDamagedRunDecodedLate: a checkpoint whose trailer matches but one of
// whose runs does not decode (no greenlight writes one) loads, since a
// run is decoded only when needed; a check whose new events name that run
// is a damaged checkpoint, and so is reading it from the snapshot after
// the check (a *CheckpointError panic, which the shell reports).
func TestDamagedRunDecodedLate(t *testing.T) {
	var log []byte
	for _, id := range []string{"a", "b", "c"} {
		log = fmt.Appendf(log, `{"run_id":%q,"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n", id)
		log = fmt.Appendf(log, `{"run_id":%q,"stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}`+"\n", id)
	}
	opts, state := checkedState(t, log)
	// The fold state ends with the bodies, the last one run c's, the
	// attempt ids' count (0) and the retry brake's streaks (encodeStreaks:
	// stage 1's, which run c's success ended at its first event, and no
	// trips): the last byte of c's body, its attempt's last line delta,
	// becomes a varint that never ends; the trailer is made to match.
	var streaks runstore.Encoder
	(&contractState{opts: Options{Definition: &Definition{Stages: make([]StageDef, 1)}},
		streaks: []brakeStreak{{at: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}}}).encodeStreaks(&streaks)
	file := state
	body := file[:len(file)-trailerSize]
	body[len(body)-2-len(streaks.B)] = 0x80
	file = withTrailer(body)
	const want = "the checkpoint is unusable: its contents are damaged (a bad number)"
	for _, tc := range []struct {
		name, event string
		damaged     bool
	}{
		{"a new run", `{"run_id":"d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}`, false},
		{"the damaged run", `{"run_id":"c","stage":1,"attempt":2,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}`, true},
	} {
		cp, err := ParseCheckpoint(file)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res, err := checkRead(bytes.NewReader(append(bytes.Clone(log), tc.event+"\n"...)), opts, Reading{Checkpoint: true, Resume: cp})
		if tc.damaged {
			var damage *CheckpointError
			if !errors.As(err, &damage) || err.Error() != want || res != nil {
				t.Errorf("%s: err = %v, want %q", tc.name, err, want)
			}
			continue
		}
		if err != nil || res.Snapshot == nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := res.Snapshot.At(0).RunID; got != "a" {
			t.Errorf("%s: run 0 is %q, want a", tc.name, got)
		}
		func() {
			defer func() {
				r := recover()
				if e, ok := r.(*CheckpointError); !ok || e.Error() != want {
					t.Errorf("%s: reading run c panicked with %v, want %q", tc.name, r, want)
				}
			}()
			res.Snapshot.At(2)
		}()
	}
}

// TestAttemptIDOfNoAttempt: a checkpoint's attempt id is checked against
// the run index when it is loaded (no run is decoded for it), and against
// the attempt itself when the job log reads it: one that names an attempt
// its run does not have (behind a matching trailer) is a damaged
// checkpoint then.
func TestAttemptIDOfNoAttempt(t *testing.T) {
	log := []byte(`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","attempt_id":"a1"}` + "\n" +
		`{"run_id":"r","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}` + "\n")
	opts, state := checkedState(t, log)
	// The fold state ends with the one attempt id: "a1", run "r", stage 0,
	// attempt 1 (zig-zag 2), which becomes attempt 2; then the retry
	// brake's streaks (stage 1's, ended by run r's success at its first
	// event, and no trips).
	var streaks runstore.Encoder
	(&contractState{opts: Options{Definition: &Definition{Stages: make([]StageDef, 1)}},
		streaks: []brakeStreak{{at: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}}}).encodeStreaks(&streaks)
	file := state
	body := file[:len(file)-trailerSize]
	ids := body[:len(body)-len(streaks.B)]
	if !bytes.HasSuffix(ids, []byte{1, 2, 'a', '1', 1, 'r', 0, 2}) || !bytes.HasSuffix(body, streaks.B) {
		t.Fatalf("the fold state ends with %q", body[len(body)-8-len(streaks.B):])
	}
	ids[len(ids)-1] = 4
	file = withTrailer(body)
	grown := append(bytes.Clone(log), `{"run_id":"s","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}`+"\n"...)
	const want = "the checkpoint is unusable: its contents are damaged (an attempt id of no attempt)"
	for _, jobLog := range []bool{false, true} {
		cp, err := ParseCheckpoint(file)
		if err != nil {
			t.Fatal(err)
		}
		o, rd := opts, Reading{Checkpoint: true, Resume: cp}
		if jobLog {
			o.JobLog = bytes.NewReader([]byte(`{"attempt_id": "a1", "result": "SUCCESS", "timestamp_utc": "2026-01-01T10:01:00Z", "returncode": 0}` + "\n"))
		}
		res, err := checkRead(bytes.NewReader(grown), o, rd)
		var damage *CheckpointError
		switch {
		case jobLog && (!errors.As(err, &damage) || err.Error() != want || res != nil):
			t.Errorf("with the job log: err = %v, want %q", err, want)
		case !jobLog && (err != nil || res.Snapshot == nil || res.Snapshot.RunCount != 2):
			t.Errorf("without a job log: %v", err)
		}
	}
}

// withTrailer appends the trailer of the checkpoint file b, everything
// before it: the CRC-32C (Castagnoli) of b, little endian.
func withTrailer(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// checkRead is Check of r read as rd says.
func checkRead(r io.Reader, opts Options, rd Reading) (*Result, error) {
	return CheckFiles([]LogFile{{Path: opts.File, R: r}}, opts, rd)
}
