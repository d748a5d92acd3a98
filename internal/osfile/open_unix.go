//go:build unix

package osfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens name read-only with O_NONBLOCK: opening a FIFO then
// returns at once instead of waiting for a writer, and on a regular file the
// flag changes nothing.
func openNonBlocking(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
