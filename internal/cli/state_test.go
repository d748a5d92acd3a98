package cli

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	data = binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
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
	args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state, "--fail-on-unhealthy"}
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
	data = binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(state, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, stdout, stderr := runMain(args...)
	want := "greenlight: " + state + ": the checkpoint is unusable: its contents are damaged (a run's head that does not fit its body) (remove it to check the whole log)\n"
	if got != ExitInvalid || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q", got, stdout, stderr, ExitInvalid, want)
	}
}
