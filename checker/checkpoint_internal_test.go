package checker

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// FuzzDecodeFold feeds arbitrary bytes to the fold-state decoder, behind
// the checkpoint's trailer: it must never panic but with a damaged run
// (*runstore.DamagedError, which CheckFiles turns into a *CheckpointError),
// anything it refuses is a *CheckpointError, and what it accepts folds
// into a snapshot.
// The seeds are real fold states.
func FuzzDecodeFold(f *testing.F) {
	def, err := LinearDefinition([]StageID{IntStage(1), IntStage(2)})
	if err != nil {
		f.Fatal(err)
	}
	opts, err := Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Checkpoint: true}.normalized()
	if err != nil {
		f.Fatal(err)
	}
	for _, log := range []string{
		"",
		`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n",
		`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","attempt_id":"a","owner":"o","lease_expires_at":"2026-01-01T11:00:00Z"}` + "\n" +
			`{"run_id":"r","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"e","returncode":3}` + "\n" +
			`{"run_id":"s","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","scheduled_for":"2026-01-01T10:00:00Z","requested_by":"p"}` + "\n",
	} {
		res, err := Check(bytes.NewReader([]byte(log)), opts)
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
				if _, ok := r.(*runstore.DamagedError); !ok {
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
	def, err := LinearDefinition([]StageID{IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Checkpoint: true, File: "log"}
	log := []byte(`{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n")
	res, err := Check(bytes.NewReader(log), opts)
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	var b bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	grown := append(bytes.Clone(log), `{"run_id":"r","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}`+"\n"...)
	rewritten := bytes.Clone(grown)
	rewritten[3] = 'X'
	const want = "the checkpoint is unusable: its contents are damaged (a bad number)"
	for _, l := range [][]byte{grown, rewritten} {
		for _, readAt := range []bool{false, true} {
			cp, err := ParseCheckpoint(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			cp.fold = cp.fold[:len(cp.fold)-1]
			f := LogFile{Path: "log", R: bytes.NewReader(l)}
			if readAt {
				f.At = bytes.NewReader(l)
			}
			o := opts
			o.Resume = cp
			_, err = CheckFiles([]LogFile{f}, o)
			var damage *CheckpointError
			if !errors.As(err, &damage) || err.Error() != want {
				t.Errorf("rewritten %t, At %t: err = %v, want %q", l[3] == 'X', readAt, err, want)
			}
		}
	}
}
