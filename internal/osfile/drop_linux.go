//go:build linux

package osfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropCache asks the kernel to drop the cached pages of f, read whole,
// then closes it.
func dropCache(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.Fadvise(int(fd), 0, 0, unix.FADV_DONTNEED) })
	}
	f.Close()
}
