//go:build linux

package osfile

import "golang.org/x/sys/unix"

// hugeBufferBytes is the size from which readParallel reads a file into
// memory mapped for it and backed by transparent huge pages (hugeBuffer)
// rather than into the Go heap.
const hugeBufferBytes = 8 << 20

// hugeBuffer is size bytes of zeroed memory outside the Go heap, which the
// kernel is asked to back with 2 MiB pages (MADV_HUGEPAGE: the systems
// that enable transparent huge pages only where asked, the default of
// many distributions, as on the benchmark machine): the 18 MB checkpoint
// of the 1M-event benchmark log then takes 9 page faults to read into
// instead of 4,400, which in a fresh heap cost about 5 ms of a resumed
// check's 10 (its first and serial step). It returns nil where the
// memory cannot be mapped, for the caller to allocate as usual. The
// memory is never unmapped: it holds a checkpoint the check reads until
// it ends, and its process ends with it (ReadFileToReplace).
func hugeBuffer(size int) []byte {
	if size < hugeBufferBytes {
		return nil
	}
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	unix.Madvise(b, unix.MADV_HUGEPAGE) // a hint: the pages are small without it
	return b
}
