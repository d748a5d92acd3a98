package checker

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzDecodeFold feeds arbitrary bytes to the fold-state decoder, behind
// the checkpoint's SHA-256 trailer: it must never panic, anything it
// refuses is a *CheckpointError, and what it accepts folds into a snapshot.
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
		// A fold state the decoder accepts folds into a snapshot.
		c.snapshot(Source{}).Collect()
	})
}
