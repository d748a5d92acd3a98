//go:build !unix

package osfile

import "os"

// openNonBlocking opens name read-only; systems without O_NONBLOCK (Windows,
// WASI) have no FIFO that a path could name, and Open has checked the path.
func openNonBlocking(name string) (*os.File, error) {
	return os.Open(name)
}
