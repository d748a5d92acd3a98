//go:build !windows

package emit

import "syscall"

// rawWrite is one write(2) on fd (on Unix; the one write call of the
// system elsewhere).
func rawWrite(fd uintptr, b []byte) (int, error) {
	return syscall.Write(int(fd), b)
}
