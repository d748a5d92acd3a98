package checker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// forgedLog is two runs of one stage: "aa" failed, "bb" succeeded.
const forgedLog = `{"run_id":"aa","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"bb","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:01Z"}
{"run_id":"aa","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","returncode":1,"error":"boom"}
{"run_id":"bb","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:01Z","returncode":0}
`

// forgedStore locates the run store of forgedLog's checkpoint in file: the
// offset of its id block's bytes, of its run index's slots (8 of 4 bytes)
// and of its heads (2 of 40 bytes).
func forgedStore(t *testing.T, file []byte) (ids, slots, heads int) {
	t.Helper()
	// The id block "aabb" (its length 4 first), the index's log2 size 3.
	i := bytes.Index(file, []byte("\x04aabb\x03"))
	if i < 0 || bytes.Contains(file[i+1:], []byte("\x04aabb\x03")) {
		t.Fatalf("no single id block in the checkpoint")
	}
	return i + 1, i + 6, i + 6 + 32
}

// TestForgedCheckpoint: a checkpoint whose trailer matches but whose run
// store contradicts itself (no greenlight writes one) never gives another
// verdict than a full check's: it is a damaged checkpoint, when loaded or
// when the contradicting run is decoded, and never a Go panic.
func TestForgedCheckpoint(t *testing.T) {
	opts, state := checkedState(t, []byte(forgedLog))
	ids, slots, heads := forgedStore(t, state)
	slot := func(file []byte, id string) int {
		for i := range 8 {
			v := binary.LittleEndian.Uint32(file[slots+4*i:])
			if v != 0 && string(file[ids+2*int(v-1):ids+2*int(v)]) == id {
				return slots + 4*i
			}
		}
		t.Fatalf("no slot of %s", id)
		return 0
	}
	// The head's 8 bytes of first line, state code and attempts.
	code := func(p int) int { return heads + 40*p + 32 + 5 }
	grown := forgedLog + `{"run_id":"aa","stage":1,"attempt":2,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}` + "\n"
	for _, tc := range []struct {
		name  string
		forge func(f []byte)
		log   string
		want  string // the fault of a damaged checkpoint
	}{
		{"index slot moved", func(f []byte) {
			a := slot(f, "aa")
			v := binary.LittleEndian.Uint32(f[a:])
			for i := range 8 {
				to := slots + 4*i
				if binary.LittleEndian.Uint32(f[to:]) == 0 && to != a+4 && !(a == slots+28 && to == slots) {
					binary.LittleEndian.PutUint32(f[a:], 0)
					binary.LittleEndian.PutUint32(f[to:], v)
					return
				}
			}
		}, grown, "a run index that does not fit its runs"},
		{"ids the same", func(f []byte) { copy(f[ids:], "aaaa") }, grown, "a run index that does not fit its runs"},
		{"failed run's head says succeeded", func(f []byte) { f[code(0)] = stateSucceeded }, forgedLog, "a run's head that does not fit its body"},
		{"succeeded run's head says failed", func(f []byte) { f[code(1)] = stateFailed }, forgedLog, "a run's head that does not fit its body"},
		{"a run's head says in progress", func(f []byte) { f[code(0)] = runstore.NoCode }, forgedLog, "a run's head that does not fit its body"},
		{"a run's head counts 2 attempts", func(f []byte) { f[code(0)+1] = 2 }, forgedLog, "a run's head that does not fit its body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := bytes.Clone(state)
			tc.forge(f)
			f = withTrailer(f[:len(f)-trailerSize])
			want := "the checkpoint is unusable: its contents are damaged (" + tc.want + ")"
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						e, ok := r.(*CheckpointError)
						if !ok {
							panic(r)
						}
						err = e
					}
				}()
				cp, err := ParseCheckpoint(f)
				if err != nil {
					return err
				}
				res, err := checkRead(strings.NewReader(tc.log), opts, Reading{Checkpoint: true, Resume: cp})
				if err != nil {
					return err
				}
				if res.Snapshot == nil {
					return errors.New("no damage found: the log is invalid")
				}
				// Every run's report, as the JSON document reads them.
				for i := range res.Snapshot.RunCount {
					res.Snapshot.RunAt(i)
				}
				return errors.New("no damage found: verdict " + string(res.Snapshot.Verdict))
			}()
			var damage *CheckpointError
			if !errors.As(err, &damage) || err.Error() != want {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

// TestForgedCounts: a checkpoint whose file lists more lines than its
// bytes could hold, or whose event count is beyond the lines (or, as a
// uvarint past int64, negative), under a matching trailer, is a damaged
// checkpoint when parsed: the counts go on into event_count and every
// line number of the next check.
func TestForgedCounts(t *testing.T) {
	_, state := checkedState(t, []byte(forgedLog))
	cp, err := ParseCheckpoint(state)
	if err != nil {
		t.Fatal(err)
	}
	// The log digest state, then the event count (4) and a byte 1 before
	// the latest event time.
	at := bytes.LastIndex(state, cp.logHash) + len(cp.logHash)
	if !bytes.HasPrefix(state[at:], []byte{4, 1}) {
		t.Fatalf("the event count is not after the log digest state: %v", state[at:at+2])
	}
	// The file's offset (len(forgedLog), two bytes of uvarint), then its
	// line count (4).
	name := bytes.Index(state, []byte("\x03log\x04none")) + 9
	if binary.AppendUvarint(nil, uint64(len(forgedLog)))[0] != state[name] || state[name+2] != 4 {
		t.Fatalf("no offset and line count after the file's name: %v", state[name:name+3])
	}
	for _, tc := range []struct {
		name  string
		forge func(f []byte) []byte
		want  string
	}{
		{"more lines than bytes", func(f []byte) []byte {
			return append(append(bytes.Clone(f[:name+2]), binary.AppendUvarint(nil, uint64(len(forgedLog)+1))...), f[name+3:]...)
		}, "a line count out of range"},
		{"more events than lines", func(f []byte) []byte { f = bytes.Clone(f); f[at] = 5; return f }, "an event count out of range"},
		{"a negative event count", func(f []byte) []byte {
			return append(append(bytes.Clone(f[:at]), binary.AppendUvarint(nil, 1<<63)...), f[at+1:]...)
		}, "an event count out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.forge(state)
			f = withTrailer(f[:len(f)-trailerSize])
			_, err := ParseCheckpoint(f)
			var damage *CheckpointError
			if want := "the checkpoint is unusable: its contents are damaged (" + tc.want + ")"; !errors.As(err, &damage) || err.Error() != want {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

// checkedState is the options of the one-stage checks of the checkpoint
// tests (now 2026-01-02, the log named "log") and the bytes of the
// checkpoint their check of log writes, for a test to damage or forge.
func checkedState(t *testing.T, log []byte) (Options, []byte) {
	t.Helper()
	def, err := LinearDefinition([]StageID{IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), File: "log"}
	res, err := checkRead(bytes.NewReader(log), opts, Reading{Checkpoint: true})
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	var b bytes.Buffer
	if _, err := res.Checkpoint.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return opts, b.Bytes()
}
