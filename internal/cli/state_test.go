package cli

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/atomicfile"
)

// TestDamagedRunInOutput: a checkpoint whose trailer matches but one of
// whose runs does not decode (docs/state.md: no greenlight writes one)
// loads, and when the text output first reads that run, check stops with
// exit 2 and the damaged checkpoint's message, as for any damaged
// checkpoint, not with a crash. (The next checkpoint, written before the
// output, copied the run's bytes as they were: it is as damaged, and the
// next check says so again.)
func TestDamagedRunInOutput(t *testing.T) {
	dir := t.TempDir()
	logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "st")
	var log strings.Builder
	for _, id := range []string{"a", "b", "c"} {
		log.WriteString(`{"run_id":"` + id + `","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n")
		log.WriteString(`{"run_id":"` + id + `","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}` + "\n")
	}
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state}
	if code, _, stderr := runMain(args...); code != ExitOK {
		t.Fatalf("first check: exit %d, %s", code, stderr)
	}
	// The last body is run c's, before the attempt ids' count (0): its last
	// byte becomes a varint that never ends, under a matching trailer.
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	body := data[:len(data)-4]
	body[len(body)-2] = 0x80
	data = withTrailer(body)
	if err := os.WriteFile(state, data, 0o644); err != nil {
		t.Fatal(err)
	}
	log.WriteString(`{"run_id":"d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}` + "\n")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(args...)
	want := "greenlight: " + state + ": the checkpoint is unusable: its contents are damaged (a bad number) (remove it to check the whole log)\n"
	if code != ExitInvalid || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q", code, stdout, stderr, ExitInvalid, want)
	}
}

// TestForgedHeadInOutput: a checkpoint whose trailer matches but whose
// failed run's head says succeeded (docs/state.md: no greenlight writes
// one) is not a healthy verdict once the text output lists the run: it is
// exit 2, a damaged checkpoint.
func TestForgedHeadInOutput(t *testing.T) {
	dir := t.TempDir()
	logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "st")
	log := `{"run_id":"a","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
		`{"run_id":"b","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:01Z"}` + "\n" +
		`{"run_id":"a","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","returncode":1,"error":"boom"}` + "\n" +
		`{"run_id":"b","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:01Z","returncode":0}` + "\n"
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state, "--fail-on-unhealthy", "--max-age", "none"}
	if code, _, stderr := runMain(args...); code != ExitUnhealthy {
		t.Fatalf("first check: exit %d, %s", code, stderr)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	// The id block "ab" and the index's log2 size 3, its 8 slots, then
	// the heads: run a's state code is the 6th byte of its last 8.
	i := strings.Index(string(data), "\x02ab\x03")
	if i < 0 {
		t.Fatal("no id block")
	}
	code := i + 4 + 32 + 32 + 5
	if data[code] != 1 {
		t.Fatalf("run a's head code is %d, want 1 (failed)", data[code])
	}
	data[code] = 7 // succeeded
	body := data[:len(data)-4]
	data = withTrailer(body)
	if err := os.WriteFile(state, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, stdout, stderr := runMain(args...)
	want := "greenlight: " + state + ": the checkpoint is unusable: its contents are damaged (a run's head that does not fit its body) (remove it to check the whole log)\n"
	if got != ExitInvalid || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q", got, stdout, stderr, ExitInvalid, want)
	}
}

// failingWriter is a standard output that takes nothing.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// TestResumedFailureLeavesNoTemporary: whatever stops a resumed check after
// its new checkpoint may have been staged (invalid new lines, a damaged run
// its new events name, a log rewritten under it, standard output that
// cannot be written) leaves no temporary file beside the checkpoint, and
// the checkpoint as it was, except after standard output failed: the
// checkpoint of a valid check is written before anything is printed.
func TestResumedFailureLeavesNoTemporary(t *testing.T) {
	ev := func(id, status, at string) string {
		return `{"run_id":"` + id + `","stage":1,"attempt":1,"status":"` + status + `","timestamp_utc":"2026-01-01T` + at + `Z"}` + "\n"
	}
	var base strings.Builder
	for _, id := range []string{"a", "b", "c"} {
		base.WriteString(ev(id, "started", "10:00:00") + ev(id, "succeeded", "10:01:00"))
	}
	// damage makes run c's body (the last) not decode, under a matching
	// trailer (as TestDamagedRunInOutput does).
	damage := func(data []byte) []byte {
		body := data[:len(data)-4]
		body[len(body)-2] = 0x80
		return withTrailer(body)
	}
	for _, tc := range []struct {
		name     string
		grow     func(log string) string
		forge    func([]byte) []byte
		stdout   io.Writer
		code     int
		stderr   string // a prefix, after "greenlight: "
		replaced bool
	}{
		{"invalid new line", func(l string) string { return l + `{"run_id":"d"}` + "\n" }, nil, nil, ExitInvalid, "", false},
		{"damaged run named", func(l string) string { return l + ev("c", "started", "11:00:00") }, damage, nil, ExitInvalid, "STATE: the checkpoint is unusable: its contents are damaged (a bad number)", false},
		{"rewritten and grown", func(l string) string {
			return strings.Replace(l, "10:00:00", "10:00:02", 1) + ev("d", "started", "11:00:00")
		}, nil, nil, ExitInvalid, "STATE: the checkpoint does not fit", false},
		{"stdout closed", func(l string) string { return l + ev("d", "started", "11:00:00") }, nil, failingWriter{}, ExitInvalid, "cannot write the output: closed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "st")
			if err := os.WriteFile(logPath, []byte(base.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state}
			if code, _, stderr := runMain(args...); code != ExitOK {
				t.Fatalf("first check: exit %d, %s", code, stderr)
			}
			before, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			if tc.forge != nil {
				before = tc.forge(before)
				if err := os.WriteFile(state, before, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(logPath, []byte(tc.grow(base.String())), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout io.Writer = &bytes.Buffer{}
			if tc.stdout != nil {
				stdout = tc.stdout
			}
			var stderr bytes.Buffer
			code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: &stderr, Now: func() time.Time { panic("the test gives --now") }})
			if want := "greenlight: " + strings.ReplaceAll(tc.stderr, "STATE", state); code != tc.code || !strings.Contains(stderr.String(), want) {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr with %q", code, stderr.String(), tc.code, want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 2 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("the directory holds %q, want events.jsonl and st", names)
			}
			after, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			if replaced := !bytes.Equal(after, before); replaced != tc.replaced {
				t.Fatalf("checkpoint replaced %t, want %t", replaced, tc.replaced)
			}
		})
	}
}

// withTrailer appends a checkpoint file's trailer (docs/state.md, "Format,
// version 3") to body, everything before it: its CRC-32C, little endian,
// as a checkpoint damaged on purpose gets one that matches.
func withTrailer(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}

// TestStagePanicLeavesNoTemporary: a panic while the staged checkpoint is
// written, on the goroutine that writes it, is the check's error, and
// leaves no temporary file beside the checkpoint.
func TestStagePanicLeavesNoTemporary(t *testing.T) {
	ev := func(id, status, at string) string {
		return `{"run_id":"` + id + `","stage":1,"attempt":1,"status":"` + status + `","timestamp_utc":"2026-01-01T` + at + `Z"}` + "\n"
	}
	dir := t.TempDir()
	logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "st")
	log := ev("a", "started", "10:00:00") + ev("a", "succeeded", "10:01:00")
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state}
	if code, _, stderr := runMain(args...); code != ExitOK {
		t.Fatalf("first check: exit %d, %s", code, stderr)
	}
	if err := os.WriteFile(logPath, []byte(log+ev("b", "started", "11:00:00")), 0o644); err != nil {
		t.Fatal(err)
	}
	atomicfile.MidWrite = func(string) { panic("the disk caught fire") }
	defer func() { atomicfile.MidWrite = nil }()
	code, _, stderr := runMain(args...)
	atomicfile.MidWrite = nil
	if want := "greenlight: writing the checkpoint: the disk caught fire; no verdict printed, since the checkpoint was not written\n"; code != ExitInvalid || stderr != want {
		t.Fatalf("exit %d, stderr %q; want exit %d, stderr %q", code, stderr, ExitInvalid, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 {
		t.Fatalf("the directory holds %q, want events.jsonl and st", names)
	}
}
