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
