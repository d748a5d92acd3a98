//go:build unix

package emit

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the command in a process group of its own, so that a
// forwarded signal reaches every process of it (the shell of "sh -c" and
// what it started) exactly once.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// forward sends sig to the command's process group.
func forward(p *os.Process, sig os.Signal) error {
	return syscall.Kill(-p.Pid, sig.(syscall.Signal))
}

// signaled reports the signal that ended the process, if one did.
func signaled(st *os.ProcessState) (os.Signal, bool) {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return nil, false
	}
	return ws.Signal(), true
}

// signalName is the signal's name as shells write it: SIGTERM.
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
	}
	return sig.String()
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 0
}

// restoreSIGPIPE makes the command start with SIGPIPE at its default
// action, as a shell would run it. The native binary ignores SIGPIPE (so a
// closed standard output is a write error, not a silent death), and an
// ignored signal stays ignored across exec; a handled one does not. Handling
// it here also keeps the wrapper alive when its standard error is closed.
func restoreSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// forwardedSignals are the signals run forwards to the command: SIGINT and
// SIGTERM, and SIGHUP, which a closing terminal sends only to its
// foreground process group, which the command is not in.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
