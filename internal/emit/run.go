// "greenlight run" (this file and run_command.go) runs a stage's command
// as one attempt and writes that attempt's evidence to the event log
// through the same append as "greenlight emit" (docs/emit.md). Before the
// command starts it appends started, with a unique attempt_id, its owner
// (local-pid://HOST/PID, the wrapper's own process) and a lease; while the
// command lives it appends a heartbeat every interval, each extending the
// lease; when the command ends it appends succeeded or failed with the
// returncode and the last lines of the command's standard error. It
// forwards SIGINT and SIGTERM to the command (and SIGHUP where there is
// one) and exits with the command's exit code, 128 plus the signal's
// number when a signal ended it. When the log says the stage cannot start
// now, it refuses before running anything, with check's rule id and
// message.

package emit

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/limits"
)

// Defaults and ranges of the flags (seconds).
const (
	DefaultHeartbeatSeconds = 30
	MaxHeartbeatSeconds     = 86400
	// The lease defaults to LeaseFactor heartbeat intervals, so that two
	// heartbeats may be lost before the lease lapses.
	LeaseFactor     = 3
	MaxLeaseSeconds = limits.StaleAfterSeconds
)

// The error text of a failed attempt is the end of the command's standard
// error: at most ErrorLines lines and ErrorBytes bytes (whole UTF-8
// characters), trailing white space removed.
const (
	ErrorLines = 20
	ErrorBytes = 4096
)

// Exit codes of the wrapper itself besides the command's own, as shells
// use them: the command was not found, or it was found but cannot be
// started (not executable: nothing is appended; a start that fails after
// the started event: the attempt is recorded as failed).
const (
	ExitNotFound    = 127
	ExitCannotStart = 126
)

// Config is one wrapped attempt.
type Config struct {
	Log   *Log
	Event Event // RunID, Stage, Attempt (0: the next), Fields (for started)
	// Heartbeat is the interval between heartbeats; Lease how far past
	// each event the lease reaches.
	Heartbeat, Lease time.Duration
	// Args is the command and its arguments.
	Args []string
	// Owner is the attempt's owner; AttemptID its id.
	Owner, AttemptID string
	Stdin            io.Reader
	Stdout, Stderr   io.Writer
}

// Owner is the owner of attempts this process runs: local-pid://HOST/PID,
// the form of the recovery model's runbook (docs/recovery.md).
func Owner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return "local-pid://" + host + "/" + strconv.Itoa(os.Getpid())
}

// NewAttemptID returns a fresh attempt_id: 26 characters of crypto/rand's
// base32 text (130 random bits).
func NewAttemptID() string { return rand.Text() }

// Run runs the attempt and returns the exit code. Messages go to
// cfg.Stderr with the "greenlight:" prefix.
func Run(cfg Config) int {
	path, code := lookCommand(cfg)
	if code != 0 {
		return code
	}
	// Signals are caught from here on, so that one that arrives while the
	// started event is written is not lost: the attempt then ends failed
	// before the command starts.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	restoreSIGPIPE()

	ev, code := appendStarted(cfg)
	if code != 0 {
		return code
	}
	select {
	case sig := <-sigs:
		msg := fmt.Sprintf("stopped by %s before the command started (greenlight run)", signalName(sig))
		return finish(cfg, ev, nil, &msg, 128+signalNumber(sig))
	default:
	}

	tail := &tailBuffer{max: 64 << 10}
	cmd := command(cfg, path, ev, tail)
	if err := cmd.Start(); err != nil {
		msg := "greenlight run cannot start the command: " + err.Error()
		fmt.Fprintf(cfg.Stderr, "greenlight: cannot start the command: %s\n", render.Terminal(err.Error()))
		return finish(cfg, ev, nil, &msg, ExitCannotStart)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopHeartbeats := heartbeats(cfg, ev)
	var forwarded os.Signal
	for {
		select {
		case sig := <-sigs:
			forwarded = sig
			if err := forward(cmd.Process, sig); err != nil {
				fmt.Fprintf(cfg.Stderr, "greenlight: cannot forward %s to the command: %s\n", signalName(sig), render.Terminal(err.Error()))
			}
		case err := <-done:
			stopHeartbeats()
			return outcome(cfg, ev, cmd.ProcessState, err, forwarded, tail)
		}
	}
}

// lookCommand finds the command cfg.Args[0] on PATH. When it cannot, it
// says why on cfg.Stderr (nothing is appended) and returns ExitNotFound or
// ExitCannotStart; else the path and 0.
func lookCommand(cfg Config) (string, int) {
	path, lookErr := exec.LookPath(cfg.Args[0])
	if lookErr == nil {
		return path, 0
	}
	reason := lookErr
	var ee *exec.Error
	if errors.As(lookErr, &ee) {
		reason = ee.Err
	}
	fmt.Fprintf(cfg.Stderr, "greenlight: cannot run %s: %s; nothing was appended\n", strconv.Quote(cfg.Args[0]), render.Terminal(reason.Error()))
	if errors.Is(lookErr, exec.ErrNotFound) {
		return "", ExitNotFound
	}
	return "", ExitCannotStart
}

// appendStarted appends the attempt's started event and returns the event
// the later ones are built from (the attempt's number, its id, no fields),
// or, when the log refuses it, a non-zero exit code (the command is not
// run; the error is on cfg.Stderr).
func appendStarted(cfg Config) (Event, int) {
	started := cfg.Event
	started.Status = checker.StatusStarted.String()
	started.Owner, started.AttemptID, started.Lease = cfg.Owner, cfg.AttemptID, cfg.Lease
	a, err := cfg.Log.AppendStart(started)
	if err != nil {
		var refused *RefusedError
		suffix := ""
		if errors.As(err, &refused) {
			suffix = "\nthe stage cannot start now, so the command was not run"
		} else {
			suffix = "\nthe command was not run"
		}
		return Event{}, Failed(cli.Env{Stderr: cfg.Stderr}, errors.New(err.Error()+suffix))
	}
	printWarnings(cfg, a)
	ev := cfg.Event
	ev.Attempt, ev.Fields = a.Attempt, nil
	ev.AttemptID = cfg.AttemptID
	return ev, 0
}

// command is the wrapped command, not yet started: its standard streams
// are cfg's (standard error also into tail), and its environment this
// process's with the attempt's GREENLIGHT_* variables.
func command(cfg Config, path string, ev Event, tail *tailBuffer) *exec.Cmd {
	cmd := exec.Command(path, cfg.Args[1:]...)
	cmd.Args[0] = cfg.Args[0]
	cmd.Stdin, cmd.Stdout = cfg.Stdin, cfg.Stdout
	cmd.Stderr = passThrough{cfg.Stderr, tail}
	cmd.Env = append(os.Environ(),
		"GREENLIGHT_LOG="+cfg.Log.Path,
		"GREENLIGHT_RUN_ID="+ev.RunID,
		"GREENLIGHT_STAGE="+ev.Stage.String(),
		"GREENLIGHT_ATTEMPT="+strconv.FormatInt(ev.Attempt, 10),
		"GREENLIGHT_ATTEMPT_ID="+cfg.AttemptID,
	)
	cmd.SysProcAttr = sysProcAttr()
	// A process the command left behind that holds its standard error open
	// does not keep the outcome from being written.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// heartbeats appends a heartbeat of the attempt every cfg.Heartbeat until
// the returned stop is called; stop returns once the last heartbeat is
// written. They are written on their own goroutine, so that waiting for
// the lock never delays a forwarded signal; the outcome is written once
// the last heartbeat is.
func heartbeats(cfg Config, ev Event) (stop func()) {
	stopHeartbeats := make(chan struct{})
	heartbeatsDone := make(chan struct{})
	go func() {
		defer close(heartbeatsDone)
		ticker := time.NewTicker(cfg.Heartbeat)
		defer ticker.Stop()
		for {
			select {
			case <-stopHeartbeats:
				return
			case <-ticker.C:
			}
			hb := ev
			hb.Status = checker.StatusHeartbeat.String()
			hb.Owner, hb.Lease = cfg.Owner, cfg.Lease
			if a, err := cfg.Log.Append(hb); err != nil {
				Failed(cli.Env{Stderr: cfg.Stderr}, errors.New(err.Error()+"\nthe heartbeat was not recorded; the command goes on"))
			} else {
				printWarnings(cfg, a)
			}
		}
	}()
	return func() {
		close(stopHeartbeats)
		<-heartbeatsDone
	}
}

// outcome records how the command ended and returns the exit code.
func outcome(cfg Config, ev Event, st *os.ProcessState, waitErr error, forwarded os.Signal, tail *tailBuffer) int {
	if st == nil {
		msg := "greenlight run lost the command: " + waitErr.Error()
		return finish(cfg, ev, nil, &msg, cli.ExitInvalid)
	}
	if sig, ok := signaled(st); ok {
		msg := "killed by " + signalName(sig)
		if forwarded != nil && signalNumber(forwarded) == signalNumber(sig) {
			msg += ", forwarded by greenlight run"
		}
		if t := tail.text(); t != "" {
			msg += "\n" + t
		}
		return finish(cfg, ev, nil, &msg, 128+signalNumber(sig))
	}
	code := st.ExitCode()
	rc := int64(code)
	if code == 0 {
		return finish(cfg, ev, &rc, nil, 0)
	}
	msg := tail.text()
	if msg == "" {
		msg = fmt.Sprintf("exited with code %d and wrote nothing to standard error", code)
	}
	return finish(cfg, ev, &rc, &msg, code)
}

// finish appends the attempt's outcome: succeeded when errText is nil,
// else failed. It returns code, except that an outcome it could not
// append turns a success into exit 2: the log does not prove it.
func finish(cfg Config, ev Event, returncode *int64, errText *string, code int) int {
	ev.Status = checker.StatusSucceeded.String()
	if errText != nil {
		ev.Status = checker.StatusFailed.String()
	}
	ev.Returncode, ev.Error = returncode, errText
	ev.Owner = cfg.Owner // the outcome names who ended the attempt: its owner
	a, err := cfg.Log.Append(ev)
	if err != nil {
		Failed(cli.Env{Stderr: cfg.Stderr}, fmt.Errorf("%w\nthe attempt's outcome (%s) was not recorded", err, ev.Status))
		if code == 0 {
			return cli.ExitInvalid
		}
		return code
	}
	printWarnings(cfg, a)
	return code
}

func printWarnings(cfg Config, a Appended) {
	PrintWarnings(cli.Env{Stderr: cfg.Stderr}, a)
}

// passThrough copies the command's standard error to the wrapper's and
// keeps its end. A failed write to the wrapper's (a closed terminal or
// pipe) is ignored, so that the copy goes on and the command never blocks
// on a full pipe.
type passThrough struct {
	w    io.Writer
	tail *tailBuffer
}

func (p passThrough) Write(b []byte) (int, error) {
	p.w.Write(b) //nolint:errcheck // see the type's comment
	return p.tail.Write(b)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// text is the error text: the last ErrorLines lines, at most ErrorBytes
// bytes starting at a character boundary, trailing white space removed.
func (t *tailBuffer) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Tail(t.buf)
}

// Tail is the end of a command's standard error as an attempt's error text:
// the last ErrorLines lines, at most ErrorBytes bytes starting at a UTF-8
// character boundary, trailing white space removed; "" when nothing but
// white space is left.
func Tail(b []byte) string {
	b = bytes.TrimRight(b, " \t\r\n")
	for i, n := len(b)-1, 0; i >= 0; i-- {
		if b[i] == '\n' {
			if n++; n == ErrorLines {
				b = b[i+1:]
				break
			}
		}
	}
	if len(b) > ErrorBytes {
		b = b[len(b)-ErrorBytes:]
		for len(b) > 0 && b[0]&0xC0 == 0x80 { // a continuation byte
			b = b[1:]
		}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
