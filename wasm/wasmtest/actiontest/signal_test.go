//go:build unix

package actiontest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"
)

// TestWasmSignalCleanup: SIGTERM or SIGINT to the JavaScript action while
// the module runs (a cancelled job) ends the run at once, removes what the
// action made (its directory in RUNNER_TEMP, and the .NAME.tmp-* file of
// a snapshot being written) and exits 128 plus the signal's number; the
// previous snapshot stays byte for byte. SIGTERM comes once the snapshot's
// temporary file is there, SIGINT once the module runs.
func TestWasmSignalCleanup(t *testing.T) {
	root := releaseLayout(t)
	ws := t.TempDir()
	if err := writeMillionLog(filepath.Join(ws, "events.jsonl")); err != nil {
		t.Fatal(err)
	}
	previous := []byte("{\"the previous\": \"snapshot\"}\n")
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		code int
		when string // the glob of the file whose appearance sends the signal
	}{
		{"SIGTERM mid-snapshot", syscall.SIGTERM, 143, filepath.Join(ws, "out", ".health.json.tmp-*")},
		{"SIGINT mid-check", syscall.SIGINT, 130, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			runnerTemp, files := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			snap := filepath.Join(ws, "out", "health.json")
			if err := os.WriteFile(snap, previous, 0o644); err != nil {
				t.Fatal(err)
			}
			when := c.when
			if when == "" {
				when = filepath.Join(runnerTemp, "greenlight-*")
			}
			cmd := exec.Command("node", filepath.Join(root, "action", "run.mjs"))
			cmd.Dir = ws
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GITHUB_WORKSPACE=" + ws, "RUNNER_TEMP=" + runnerTemp,
				"GITHUB_OUTPUT=" + filepath.Join(files, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(files, "summary"),
				"INPUT_EVENTS=events.jsonl", "INPUT_STAGES=1,2", "INPUT_NOW=2026-12-01T00:00:00Z", "INPUT_SNAPSHOT=out/health.json",
				// The signal is the subject, not freshness: without an
				// expectation the gate refuses before any snapshot is written.
				"INPUT_MAX-AGE=none"}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
				if m, _ := filepath.Glob(when); len(m) > 0 {
					break
				}
				select {
				case <-done:
					t.Fatalf("the action ended before %s appeared: %s\n%s", when, stdout.Bytes(), stderr.Bytes())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no %s after 5 minutes", when)
				}
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			<-done
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit %d (%v), want %d; stderr %s", got, cmd.ProcessState, c.code, stderr.Bytes())
			}
			if want := "greenlight: stopped by " + strings.Fields(c.name)[0] + "; removed what the action made"; !strings.HasPrefix(stderr.String(), want) {
				t.Errorf("stderr %q, want it to start %q", stderr.String(), want)
			}
			if left, _ := filepath.Glob(filepath.Join(runnerTemp, "*")); len(left) > 0 {
				t.Errorf("RUNNER_TEMP holds %q", left)
			}
			if left, _ := filepath.Glob(filepath.Join(ws, "out", ".*")); len(left) > 0 {
				t.Errorf("the workspace holds %q", left)
			}
			if got, _ := os.ReadFile(snap); !bytes.Equal(got, previous) {
				t.Errorf("the previous snapshot changed to %.100q", got)
			}
		})
	}
}

// TestOutputsThroughEngines: through the JavaScript action (action/run.mjs
// running the module, as released and with the full module only), as
// internal/action's TestOutputsThroughEngines in-process, a report naming the
// event log or the snapshot naming the definition is refused, exit 2, and
// the file keeps its bytes; a report in a missing directory of the
// workspace is written, the directory created.
func TestOutputsThroughEngines(t *testing.T) { steptest.OutputsThroughEngines(t, engines) }
