//go:build unix

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repoRoot is where the child processes start, so that the snapshot names
// the log as the goldens do.
var repoRoot, _ = filepath.Abs("../..")

var checkArgs = []string{"check", "testdata/logs/retry_then_success.jsonl", "--pipeline", "testdata/logs/pipeline.yaml", "--now", "2026-01-01T12:00:00Z"}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestSignalMidSnapshot: SIGINT or SIGTERM in the middle of writing the
// snapshot, to a real greenlight process, removes the temporary file, leaves
// the previous snapshot byte for byte, says so last on stderr and exits 130
// or 143 (docs/contract.md).
func TestSignalMidSnapshot(t *testing.T) {
	for _, sig := range stopSignals {
		for _, format := range []string{"text", "json"} {
			t.Run(sig.name+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				snap := filepath.Join(dir, "health.json")
				previous := []byte("{\"the previous\": \"snapshot\"}\n")
				if err := os.WriteFile(snap, previous, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("greenlight-stall-write", append(checkArgs, "--snapshot", snap, "--format", format)...)
				cmd.Dir = repoRoot
				var stdout bytes.Buffer
				r, line, tmp, ok, err := startMidWrite(t, cmd, &stdout)
				if err != nil || !ok {
					cmd.Process.Kill()
					t.Fatalf("no mid-write line: %q, %v", line, err)
				}
				if st, err := os.Stat(tmp); err != nil || st.Size() == 0 {
					cmd.Process.Kill()
					t.Fatalf("the temporary file is not there with bytes in it: %v", err)
				}
				stopMidWrite(t, cmd, r, sig, snap)
				if got := entries(t, dir); len(got) != 1 || got[0] != "health.json" {
					t.Errorf("the directory holds %q, want only health.json", got)
				}
				if got, _ := os.ReadFile(snap); !bytes.Equal(got, previous) {
					t.Errorf("the previous snapshot changed to %q", got)
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout %q before the snapshot was written", stdout.Bytes())
				}
			})
		}
	}
}

// TestClosedStdout: with standard output closed (EPIPE), greenlight does
// not die of SIGPIPE mid-way: the snapshot, written before anything is
// printed, is whole, no temporary file is left, and the write error is the
// last line on stderr with exit 2.
func TestClosedStdout(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(repoRoot, "testdata/logs/retry_then_success.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			snap := filepath.Join(dir, "health.json")
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close()
			cmd := exec.Command("greenlight", append(checkArgs, "--snapshot", snap, "--format", format)...)
			cmd.Dir = repoRoot
			cmd.Stdout = pw
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Run()
			pw.Close()
			if got := cmd.ProcessState.ExitCode(); got != 2 {
				t.Errorf("exit %d (%v), want 2", got, cmd.ProcessState)
			}
			want := "greenlight: cannot write the output: write /dev/stdout: broken pipe\n"
			if format == "json" {
				want = "greenlight: cannot write the output: write /dev/stdout: broken pipe (" + snap + " is written)\n"
			}
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if got := entries(t, dir); len(got) != 1 || got[0] != "health.json" {
				t.Errorf("the directory holds %q, want only health.json", got)
			}
			if got, _ := os.ReadFile(snap); !bytes.Equal(got, golden) {
				t.Errorf("the snapshot is not the whole document:\n%s", got)
			}
		})
	}
}

// TestSignalMidStagedCheckpoint: SIGINT or SIGTERM while a resumed check
// writes its new checkpoint to a temporary file (staged while the log's
// old part is still proven, docs/state.md) removes that file, leaves the
// old checkpoint byte for byte, prints no verdict and says so last.
func TestSignalMidStagedCheckpoint(t *testing.T) {
	for _, sig := range stopSignals {
		t.Run(sig.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "gate.state")
			var log strings.Builder
			runs := func(from, to int) {
				for i := from; i < to; i++ {
					for _, status := range []string{"started", "succeeded"} {
						log.WriteString(`{"run_id":"r-` + strconv.Itoa(i) + `","stage":1,"attempt":1,"status":"` + status + `","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n")
					}
				}
			}
			runs(0, 40)
			if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"check", logPath, "--stages", "1", "--now", "2026-01-02T00:00:00Z", "--state", state}
			if out, err := exec.Command("greenlight", args...).CombinedOutput(); err != nil {
				t.Fatalf("first check: %v, %s", err, out)
			}
			previous, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			runs(40, 50)
			if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("greenlight-stall-write", args...)
			var stdout bytes.Buffer
			r, line, tmp, ok, err := startMidWrite(t, cmd, &stdout)
			if err != nil || !ok || !strings.HasPrefix(filepath.Base(tmp), ".gate.state.tmp-") {
				cmd.Process.Kill()
				t.Fatalf("no mid-write line of the checkpoint: %q, %v", line, err)
			}
			stopMidWrite(t, cmd, r, sig, state)
			if got := entries(t, dir); len(got) != 2 || got[0] != "events.jsonl" || got[1] != "gate.state" {
				t.Errorf("the directory holds %q, want events.jsonl and gate.state", got)
			}
			if got, _ := os.ReadFile(state); !bytes.Equal(got, previous) {
				t.Errorf("the previous checkpoint changed (%d bytes, was %d)", len(got), len(previous))
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q before the checkpoint was written", stdout.Bytes())
			}
		})
	}
}

// startMidWrite starts cmd (greenlight-stall-write) with stdout to stdout
// and reads its first line of stderr, "mid-write TMP": r reads the rest
// of stderr, line is that first line, tmp the temporary file it names
// (ok when it named one), err the read's error.
func startMidWrite(t *testing.T, cmd *exec.Cmd, stdout *bytes.Buffer) (r *bufio.Reader, line, tmp string, ok bool, err error) {
	t.Helper()
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r = bufio.NewReader(stderr)
	line, err = r.ReadString('\n')
	tmp, ok = strings.CutPrefix(strings.TrimSuffix(line, "\n"), "mid-write ")
	return r, line, tmp, ok, err
}

// stopSignal is a signal that stops greenlight, and the exit code it gives.
type stopSignal struct {
	name string
	sig  syscall.Signal
	code int
}

// stopSignals are the signals a stopped write is tested under.
var stopSignals = []stopSignal{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}, {"SIGHUP", syscall.SIGHUP, 129}, {"SIGQUIT", syscall.SIGQUIT, 131}}

// stopMidWrite sends sig to cmd, stalled in the middle of a write (r reads
// the rest of its stderr), waits for it, and requires its exit code and
// its last words: "stopped by SIG; TARGET left as it was".
func stopMidWrite(t *testing.T, cmd *exec.Cmd, r *bufio.Reader, sig stopSignal, target string) {
	t.Helper()
	if err := cmd.Process.Signal(sig.sig); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != sig.code {
		t.Errorf("exit %d, want %d", got, sig.code)
	}
	if want := "greenlight: stopped by " + sig.name + "; " + target + " left as it was\n"; string(rest) != want {
		t.Errorf("stderr after the signal %q, want %q", rest, want)
	}
}
