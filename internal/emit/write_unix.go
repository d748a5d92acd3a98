//go:build unix

package emit

import "syscall"

// rawWrite is one write(2) on fd.
func rawWrite(fd uintptr, b []byte) (int, error) {
	return syscall.Write(int(fd), b)
}
