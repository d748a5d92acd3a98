//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/schemas"
)

// The real-process tests of greenlight run and emit (docs/emit.md):
// a signal forwarded, heartbeats extending the lease, a wrapper killed with
// SIGKILL, and many writers on one log.

// logEvent is the part of an event line the tests read.
type logEvent struct {
	RunID          string  `json:"run_id"`
	Attempt        int64   `json:"attempt"`
	Status         string  `json:"status"`
	Timestamp      string  `json:"timestamp_utc"`
	Returncode     *int64  `json:"returncode"`
	Error          *string `json:"error"`
	Owner          string  `json:"owner"`
	AttemptID      string  `json:"attempt_id"`
	LeaseExpiresAt string  `json:"lease_expires_at"`
}

// readEvents reads the log, requires every line to be whole (ending in a
// newline) and valid against schemas/event.schema.json, and decodes it.
func readEvents(t *testing.T, path string) []logEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("the log's last line has no newline: %q", data)
	}
	sch, err := schemas.Compile("event")
	if err != nil {
		t.Fatal(err)
	}
	var evs []logEvent
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		inst, err := schemas.Instance(line)
		if err != nil {
			t.Fatalf("line %d is not one JSON value: %v: %q", i+1, err, line)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("line %d breaks the event schema: %v", i+1, err)
		}
		var ev logEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func statuses(evs []logEvent) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Status)
	}
	return strings.Join(s, " ")
}

// waitFor polls the log until it holds n lines with the status, for at most
// 10 s.
func waitFor(t *testing.T, path, status string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		if bytes.Count(data, []byte(`"status":"`+status+`"`)) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %d %s events in %s after 10 s", n, status, path)
}

// checkSnapshot checks the log in-process and returns its snapshot.
func checkSnapshot(t *testing.T, path, stages, now string) *checker.Snapshot {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"check", path, "--stages", stages, "--now", now, "--format", "json"},
		cli.Env{Stdout: &stdout, Stderr: &stderr, Now: time.Now})
	if code != 0 {
		t.Fatalf("check exit %d: %s%s", code, stderr.String(), stdout.String())
	}
	var s checker.Snapshot
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestRunForwardsSignals: SIGINT or SIGTERM sent to greenlight run reaches
// the command; the outcome the command gives is recorded and is the exit
// code (128 plus the signal's number when the signal ended it).
func TestRunForwardsSignals(t *testing.T) {
	for _, c := range []struct {
		name    string
		sig     syscall.Signal
		command []string
		exit    int
		rc      *int64
		error   string
	}{
		{"SIGTERM kills", syscall.SIGTERM, []string{"sleep", "30"}, 143, nil, "killed by SIGTERM, forwarded by greenlight run"},
		{"SIGINT kills", syscall.SIGINT, []string{"sleep", "30"}, 130, nil, "killed by SIGINT, forwarded by greenlight run"},
		{"SIGHUP kills", syscall.SIGHUP, []string{"sleep", "30"}, 129, nil, "killed by SIGHUP, forwarded by greenlight run"},
		{"SIGTERM trapped", syscall.SIGTERM, []string{"sh", "-c", `trap 'echo cleaning up >&2; exit 5' TERM; echo started >&2; read line`}, 5, ptr(int64(5)), "started\ncleaning up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "events.jsonl")
			cmd := exec.Command("greenlight", append([]string{"run", "--log", log, "--stages", "1", "--run-id", "r", "--stage", "1", "--"}, c.command...)...)
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			// The trapping command waits in the shell's own read, with no
			// child process, on a pipe that stays open.
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, log, "started", 1)
			// The command has started (and set its trap) once it says so;
			// sleep says nothing, and has surely started 200 ms after the
			// started event was written.
			for deadline := time.Now().Add(10 * time.Second); strings.Contains(c.command[len(c.command)-1], "echo started") && !strings.Contains(stderr.String(), "started\n"); {
				if time.Now().After(deadline) {
					t.Fatal("the command did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != c.exit {
				t.Errorf("exit %d, want %d; stderr %q", got, c.exit, stderr.String())
			}
			evs := readEvents(t, log)
			if statuses(evs) != "started failed" {
				t.Fatalf("events %q, want started failed", statuses(evs))
			}
			f := evs[1]
			if (f.Returncode == nil) != (c.rc == nil) || (c.rc != nil && *f.Returncode != *c.rc) || f.Error == nil || *f.Error != c.error {
				t.Errorf("failed with returncode %v error %q, want %v %q", f.Returncode, deref(f.Error), c.rc, c.error)
			}
		})
	}
}

// syncBuffer is a buffer a child process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestRunHeartbeats: a command that outlives three heartbeats (interval
// 1 s, the flag's minimum) gets three, each from the same owner and
// attempt, each extending the lease to its own time plus --lease-seconds;
// then the success, and the log is healthy.
func TestRunHeartbeats(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.jsonl")
	wait := `while [ "$(grep -c '"status":"heartbeat"' "$GREENLIGHT_LOG")" -lt 3 ]; do sleep 0.05; done`
	cmd := exec.Command("greenlight", "run", "--log", log, "--stages", "1", "--run-id", "r", "--stage", "1", "--heartbeat-seconds", "1", "--lease-seconds", "2", "--", "sh", "-c", wait)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	evs := readEvents(t, log)
	if got := statuses(evs); got != "started heartbeat heartbeat heartbeat succeeded" {
		t.Fatalf("events %q", got)
	}
	owner := fmt.Sprintf("local-pid://%s/%d", hostname(t), cmd.Process.Pid)
	var prevLease time.Time
	for i, e := range evs {
		if e.AttemptID != evs[0].AttemptID || e.Attempt != 1 {
			t.Errorf("line %d: attempt %d id %q, want attempt 1 id %q", i+1, e.Attempt, e.AttemptID, evs[0].AttemptID)
		}
		if e.Status == "succeeded" {
			break
		}
		if e.Owner != owner {
			t.Errorf("line %d: owner %q, want %q", i+1, e.Owner, owner)
		}
		ts, err1 := checker.ParseTime(e.Timestamp)
		lease, err2 := checker.ParseTime(e.LeaseExpiresAt)
		if err1 != nil || err2 != nil || lease.Sub(ts) != 2*time.Second || !lease.After(prevLease) {
			t.Errorf("line %d: at %s lease %s, want 2 s later and later than the previous lease", i+1, e.Timestamp, e.LeaseExpiresAt)
		}
		prevLease = lease
	}
	s := checkSnapshot(t, log, "1", time.Now().UTC().Format(time.RFC3339Nano))
	if s.Verdict != checker.VerdictHealthy {
		t.Errorf("verdict %s, want healthy", s.Verdict)
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestRunKilledWrapperStalls: greenlight run killed with SIGKILL leaves
// started and heartbeats, then silence. check judges the attempt running
// until its lease plus the 60 s margin has passed, and a stall candidate
// after, naming the owner to confirm stopped (docs/recovery.md).
func TestRunKilledWrapperStalls(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.jsonl")
	cmd := exec.Command("greenlight", "run", "--log", log, "--stages", "1", "--run-id", "r", "--stage", "1",
		"--heartbeat-seconds", "1", "--lease-seconds", "3", "--now", "2026-01-01T10:00:00Z", "--", "sleep", "4")
	// The sleep outlives the wrapper in its own process group, an orphan
	// as the recovery model expects, and ends by itself soon after.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, "heartbeat", 1)
	cmd.Process.Kill() // SIGKILL, to the wrapper alone
	cmd.Wait()
	evs := readEvents(t, log)
	if got := statuses(evs); !strings.HasPrefix(got, "started heartbeat") || strings.Contains(got, "failed") || strings.Contains(got, "succeeded") {
		t.Fatalf("events %q, want started and heartbeats only", got)
	}
	owner := fmt.Sprintf("local-pid://%s/%d", hostname(t), cmd.Process.Pid)
	for _, c := range []struct {
		now, state, action string
		stale              bool
	}{
		{"2026-01-01T10:00:30Z", checker.RunRunning, checker.ActionWait, false},
		{"2026-01-01T10:01:03Z", checker.RunRunning, checker.ActionWait, false}, // lease 10:00:03 + 60 s
		{"2026-01-01T10:01:04Z", checker.RunStalled, checker.ActionConfirmStopped, true},
	} {
		s := checkSnapshot(t, log, "1", c.now)
		r := s.Collect()[0]
		a := r.Stages[0].Attempts[0]
		if string(r.State) != c.state || a.StaleCandidate != c.stale || string(r.Recovery.Action) != c.action || a.Owner == nil || *a.Owner != owner {
			t.Errorf("at %s: run %s, stale candidate %v, action %s, owner %v; want %s, %v, %s, %s", c.now, r.State, a.StaleCandidate, r.Recovery.Action, deref(a.Owner), c.state, c.stale, c.action, owner)
		}
	}
}

// TestConcurrentWriters: 100 concurrent emits and 10 concurrent runs on one
// log leave only whole lines, each valid against the event schema, and
// check validates the log: 110 runs, the 10 wrapped ones succeeded. 20
// emits racing to start the same attempt show the lock: one gets through.
func TestConcurrentWriters(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.jsonl")
	var wg sync.WaitGroup
	errs := make(chan string, 110)
	start := func(args ...string) {
		defer wg.Done()
		if out, err := exec.Command("greenlight", args...).CombinedOutput(); err != nil {
			errs <- fmt.Sprintf("greenlight %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	for i := range 10 {
		wg.Add(1)
		// Each wrapped command lasts until its own first heartbeat is in
		// the log, so every run writes three kinds of event.
		wait := `until grep -q "\"run_id\":\"$GREENLIGHT_RUN_ID\",\"stage\":1,\"attempt\":1,\"status\":\"heartbeat\"" "$GREENLIGHT_LOG"; do sleep 0.05; done`
		go start("run", "--log", log, "--stages", "1", "--run-id", "run-"+strconv.Itoa(i), "--stage", "1", "--heartbeat-seconds", "1", "--", "sh", "-c", wait)
	}
	for i := range 100 {
		wg.Add(1)
		go start("emit", "--log", log, "--stages", "1", "--run-id", "emit-"+strconv.Itoa(i), "--stage", "1", "--status", "started", "--field", "note=concurrent writer")
	}
	// 20 more emits start attempt 1 of one stage at once: the lock lets
	// exactly one through, and the others see it running and are refused.
	var contested sync.WaitGroup
	refused := make(chan string, 20)
	for range 20 {
		contested.Add(1)
		go func() {
			defer contested.Done()
			out, err := exec.Command("greenlight", "emit", "--log", log, "--stages", "1", "--run-id", "contested", "--stage", "1", "--status", "started").CombinedOutput()
			if err != nil {
				refused <- string(out)
			}
		}()
	}
	wg.Wait()
	contested.Wait()
	close(errs)
	close(refused)
	for e := range errs {
		t.Error(e)
	}
	n := 0
	for out := range refused {
		n++
		if !regexp.MustCompile(`^greenlight: \S+:\d+: retry_without_failure: attempt 2 of stage 1 in run contested `).MatchString(out) {
			t.Errorf("a contested emit was refused with %q", out)
		}
	}
	if n != 19 {
		t.Errorf("%d of 20 contested emits refused, want 19", n)
	}
	evs := readEvents(t, log)
	count := map[string]int{}
	for _, e := range evs {
		count[e.Status]++
	}
	if count["started"] != 111 || count["succeeded"] != 10 || count["heartbeat"] < 10 || len(count) != 3 {
		t.Errorf("events by status %v, want 111 started, 10 succeeded, at least 10 heartbeats", count)
	}
	s := checkSnapshot(t, log, "1", time.Now().UTC().Format(time.RFC3339Nano))
	if s.RunCount != 111 || s.StateCounts.Succeeded != 10 || s.StateCounts.Running != 101 {
		t.Errorf("runs %d, state counts %+v; want 111 runs, 10 succeeded, 101 running", s.RunCount, s.StateCounts)
	}
}

// TestRunClosedStderr: with greenlight's standard error closed, the
// command's standard error is still read (it does not block on a full
// pipe), and its outcome is recorded.
func TestRunClosedStderr(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.jsonl")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	cmd := exec.Command("greenlight", "run", "--log", log, "--stages", "1", "--run-id", "r", "--stage", "1", "--",
		"sh", "-c", `i=0; while [ $i -lt 4000 ]; do echo "diagnostic line $i of a chatty job" >&2; i=$((i+1)); done; exit 3`)
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 3 {
		t.Fatalf("exit %d, want 3", got)
	}
	evs := readEvents(t, log)
	if statuses(evs) != "started failed" || evs[1].Error == nil || !strings.HasSuffix(*evs[1].Error, "\ndiagnostic line 3999 of a chatty job") {
		t.Errorf("events %q, error %q", statuses(evs), deref(evs[1].Error))
	}
}

// TestRunForwardsWhileLockHeld: a heartbeat waiting for another writer's
// lock does not delay a forwarded signal; the outcome is written once the
// lock is free, after that heartbeat.
func TestRunForwardsWhileLockHeld(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "events.jsonl")
	marker := filepath.Join(dir, "got-term")
	cmd := exec.Command("greenlight", "run", "--log", log, "--stages", "1", "--run-id", "r", "--stage", "1", "--heartbeat-seconds", "1", "--",
		"sh", "-c", `trap 'echo > "$0"; exit 5' TERM; read line`, marker)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, "started", 1)
	other := flock.New(log + ".lock")
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // a heartbeat now waits for the lock
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			other.Unlock()
			t.Fatal("the command did not get SIGTERM while the lock was held")
		}
	}
	other.Unlock()
	cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 5 {
		t.Errorf("exit %d, want 5", got)
	}
	if got := statuses(readEvents(t, log)); got != "started heartbeat failed" {
		t.Errorf("events %q, want started heartbeat failed", got)
	}
}

// TestWritersThroughTwoSpellings: writers that name one log by different
// spellings (the file, a symbolic link to it, a path through a linked
// directory) take one lock, beside the file itself (emit.LockPath). While
// a writer holds events.jsonl.lock, an emit through current.jsonl waits
// and appends only once the lock is free; 21 emits racing to start the
// same attempt through the three spellings let exactly one through, and
// the log stays valid.
func TestWritersThroughTwoSpellings(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "logs", "events.jsonl")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("logs/events.jsonl", filepath.Join(dir, "current.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("logs", filepath.Join(dir, "logdir")); err != nil {
		t.Fatal(err)
	}
	spellings := []string{"current.jsonl", "logdir/events.jsonl", "logs/events.jsonl"}
	emit := func(runID, spelling string) *exec.Cmd {
		cmd := exec.Command("greenlight", "emit", "--log", spelling, "--stages", "1", "--run-id", runID, "--stage", "1", "--status", "started")
		cmd.Dir = dir
		return cmd
	}

	other := flock.New(log + ".lock")
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	waiting := emit("held", "current.jsonl")
	var out bytes.Buffer
	waiting.Stdout, waiting.Stderr = &out, &out
	if err := waiting.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // long enough for an emit that took another lock to append
	if got, _ := os.ReadFile(log); len(got) != 0 {
		other.Unlock()
		waiting.Wait()
		t.Fatalf("an emit through a symbolic link appended while the log's lock was held: %q", got)
	}
	other.Unlock()
	if err := waiting.Wait(); err != nil {
		t.Fatalf("the waiting emit: %v: %s", err, out.Bytes())
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	through := 0
	for i := range 21 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := emit("contested", spellings[i%len(spellings)]).CombinedOutput(); err == nil {
				mu.Lock()
				through++
				mu.Unlock()
			} else if !strings.Contains(string(out), "retry_without_failure: attempt 2 of stage 1 in run contested") {
				t.Errorf("a contested emit was refused with %q", out)
			}
		}()
	}
	wg.Wait()
	if through != 1 {
		t.Errorf("%d of 21 contested emits appended, want 1", through)
	}
	if got := statuses(readEvents(t, log)); got != "started started" {
		t.Errorf("events %q, want one start of run held and one of run contested", got)
	}
	checkSnapshot(t, log, "1", time.Now().UTC().Format(time.RFC3339Nano))
}
