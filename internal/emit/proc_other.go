//go:build !unix

package emit

import (
	"os"
	"syscall"
)

// sysProcAttr: without process groups, the command runs as a child.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// forward stops the command: Windows has no SIGINT or SIGTERM to send to
// another process.
func forward(p *os.Process, _ os.Signal) error { return p.Kill() }

// signaled: no signal ends a process here.
func signaled(*os.ProcessState) (os.Signal, bool) { return nil, false }

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 0
}

// restoreSIGPIPE: there is no SIGPIPE to restore.
func restoreSIGPIPE() {}

// forwardedSignals are the interrupts run passes on to the command.
var forwardedSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
