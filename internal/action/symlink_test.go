//go:build unix

package action

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEventsOnlyRegularFilesInWorkspace: an events match that resolves,
// through a symbolic link, outside GITHUB_WORKSPACE or to anything but a
// regular file is an error annotation and exit 2, and nothing is read from
// it (docs/action.md). A FIFO must not make the action wait.
func TestEventsOnlyRegularFilesInWorkspace(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	good, err := os.ReadFile(filepath.Join(repoRoot, "testdata/logs/retry_then_success.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.jsonl"))
	write(filepath.Join(outside, "deep", "x.jsonl"))
	write(filepath.Join(ws, "ok", "real.jsonl"))
	link("real.jsonl", filepath.Join(ws, "ok", "alias.jsonl"))
	link("/dev/zero", filepath.Join(ws, "zero", "z.jsonl"))
	link(filepath.Join(outside, "secret.jsonl"), filepath.Join(ws, "out", "passwd.jsonl"))
	link(filepath.Join(ws, "ok"), filepath.Join(ws, "dir", "d.jsonl"))
	link(outside, filepath.Join(ws, "tree", "outside"))
	link("missing.jsonl", filepath.Join(ws, "broken", "b.jsonl"))
	if err := os.MkdirAll(filepath.Join(ws, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo", "f.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(ws, "fifo", "f.jsonl"), filepath.Join(ws, "fifolink", "f.jsonl"))

	for _, c := range []struct {
		name, events string
		jobLog       string // the job-log input, "" for none
		want         string // the error annotation after "greenlight action: "; empty: exit 0
	}{
		{"a link inside the workspace to a regular file", "ok/*.jsonl", "", ""},
		{"** does not follow a link to a directory", "tree/**/*.jsonl", "", `events "tree/**/*.jsonl" matches no file`},
		{"a link to a device", "zero/*.jsonl", "", `events "zero/*.jsonl": zero/z.jsonl (which resolves to /dev/zero) is outside the workspace WS; the action reads only files inside GITHUB_WORKSPACE`},
		{"a link to a file outside", "out/passwd.jsonl", "", `events "out/passwd.jsonl": out/passwd.jsonl (which resolves to OUT/secret.jsonl) is outside the workspace WS; the action reads only files inside GITHUB_WORKSPACE`},
		{"a path outside", "OUT/secret.jsonl", "", `events "OUT/secret.jsonl": OUT/secret.jsonl is outside the workspace WS; the action reads only files inside GITHUB_WORKSPACE`},
		{"a link to a directory", "dir/*.jsonl", "", `events "dir/*.jsonl": dir/d.jsonl (which resolves to WS/ok) is a directory; an event log must be a regular file`},
		{"a broken link", "broken/*.jsonl", "", `events "broken/*.jsonl": cannot resolve broken/b.jsonl: lstat WS/broken/missing.jsonl: no such file or directory`},
		{"a FIFO", "fifo/*.jsonl", "", `events "fifo/*.jsonl": fifo/f.jsonl is a named pipe (FIFO); an event log must be a regular file`},
		{"a job log linked outside the workspace", "ok/real.jsonl", "out/passwd.jsonl", `job-log "out/passwd.jsonl": out/passwd.jsonl (which resolves to OUT/secret.jsonl) is outside the workspace WS; the action reads only files inside GITHUB_WORKSPACE`},
		{"a job log that is a FIFO", "ok/real.jsonl", "fifo/f.jsonl", `job-log "fifo/f.jsonl": fifo/f.jsonl is a named pipe (FIFO); a job log must be a regular file`},
		{"a link to a FIFO", "fifolink/*.jsonl", "", `events "fifolink/*.jsonl": fifolink/f.jsonl (which resolves to WS/fifo/f.jsonl) is a named pipe (FIFO); an event log must be a regular file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			events := strings.ReplaceAll(c.events, "OUT", outside)
			got := runActionIn(t, ws, map[string]string{
				"GITHUB_WORKSPACE": ws,
				"INPUT_EVENTS":     events,
				"INPUT_STAGES":     "1,2",
				"INPUT_NOW":        "2026-01-01T12:00:00Z",
				"INPUT_JOB-LOG":    c.jobLog,
				// What the action may read is the subject, not freshness.
				"INPUT_MAX-AGE": "none",
			})
			if c.want == "" {
				if got.Exit != 0 {
					t.Fatalf("exit %d:\n%s", got.Exit, got.Stdout)
				}
				return
			}
			want := "::error::greenlight action: " + strings.NewReplacer("WS", ws, "OUT", outside).Replace(c.want)
			if got.Exit != 2 || !strings.HasPrefix(got.Stdout, want) || strings.Count(got.Stdout, "\n") != 1 {
				t.Fatalf("exit %d, step log\n%s\nwant exit 2 and one line starting\n%s", got.Exit, got.Stdout, want)
			}
			if !strings.Contains(got.Output, "\ninvalid\n") {
				t.Errorf("verdict output is not invalid:\n%s", got.Output)
			}
		})
	}
}
