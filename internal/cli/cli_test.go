package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMaxLineBytesAtTheLimit: a 300 KB line (longer than the reader's
// buffer) is read whole with --max-line-bytes at the top of its range and
// at its own length, and is too long one byte below; a value past the
// range, which once wrapped the limit, is refused (docs/contract.md).
func TestMaxLineBytesAtTheLimit(t *testing.T) {
	pad := strings.Repeat("x", 300_000)
	line := `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","note":"` + pad + `"}`
	log := line + "\n" + `{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}` + "\n"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	n := len(line)
	for _, c := range []struct {
		limit  string
		code   int
		stdout string // its first line
		stderr string
	}{
		{"1073741824", ExitOK, "greenlight: healthy: 1 run (1 succeeded), gate all", ""},
		{itoa(n), ExitOK, "greenlight: healthy: 1 run (1 succeeded), gate all", ""},
		{itoa(n - 1), ExitInvalid, "long.jsonl:1: line_too_long: the line is " + itoa(n+1) + " bytes, over the limit of " + itoa(n-1) + " (raise it with --max-line-bytes)", "greenlight: " + path + " is invalid: 2 contract violations; nothing in it is evidence\n"},
		{"9223372036854775807", ExitInvalid, "", "greenlight: --max-line-bytes \"9223372036854775807\": use a whole number from 1 to 1073741824\n"},
	} {
		t.Run(c.limit, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main([]string{"check", path, "--stages", "1", "--now", "2026-01-01T12:00:00Z", "--max-line-bytes", c.limit},
				Env{Stdout: &stdout, Stderr: &stderr, Now: time.Now})
			first, _, _ := strings.Cut(stdout.String(), "\n")
			if code != c.code || !strings.HasSuffix(first, c.stdout) || stderr.String() != c.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, first, stderr.String(), c.code, c.stdout, c.stderr)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestStateDamagedFold: a checkpoint whose trailer matches but whose fold
// state does not decode is exit 2 naming the checkpoint file, also with
// --state-mismatch recheck, and is left as it was (docs/state.md).
func TestStateDamagedFold(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(log, []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "st")
	args := []string{"check", log, "--stages", "1", "--now", "2026-01-01T12:00:00Z", "--state", state}
	var stdout, stderr bytes.Buffer
	if code := Main(args, Env{Stdout: &stdout, Stderr: &stderr, Now: time.Now}); code != ExitOK {
		t.Fatalf("first check: exit %d, stderr %q", code, stderr.String())
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	// A byte after the fold state's end, under a trailer that matches.
	body := append(data[:len(data)-4:len(data)-4], 0)
	damaged := withTrailer(body)
	if err := os.WriteFile(state, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	want := "greenlight: " + state + ": the checkpoint is unusable: its contents are damaged (bytes after its end) (remove it to check the whole log)\n"
	for _, extra := range [][]string{nil, {"--state-mismatch", "recheck"}} {
		stdout.Reset()
		stderr.Reset()
		code := Main(append(args[:len(args):len(args)], extra...), Env{Stdout: &stdout, Stderr: &stderr, Now: time.Now})
		got, _ := os.ReadFile(state)
		if code != ExitInvalid || stdout.Len() != 0 || stderr.String() != want || !bytes.Equal(got, damaged) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q, checkpoint changed %v; want exit 2, no stdout, %q", extra, code, stdout.String(), stderr.String(), !bytes.Equal(got, damaged), want)
		}
	}
}
