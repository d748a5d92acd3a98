//go:build unix

package osfile

import (
	"errors"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sync"

	"golang.org/x/sys/unix"
)

// Mapped is a regular file open for reading whose bytes a resumed check's
// proof hashes straight from memory the file is mapped to
// (checker.SectionWriter), instead of copying them into a buffer first:
// the file is mapped read-only at its size then, on the first
// WriteSection, and unmapped by Close, which leaves the file open.
type Mapped struct {
	f    *os.File
	once sync.Once
	data []byte
	err  error
}

// NewMapped is f, a regular file open for reading, to be read at offsets
// and hashed from memory.
func NewMapped(f *os.File) *Mapped { return &Mapped{f: f} }

// ReadAt reads the file (io.ReaderAt).
func (m *Mapped) ReadAt(p []byte, off int64) (int, error) { return m.f.ReadAt(p, off) }

// errShrank is the error of a mapped file cut shorter while it was read.
var errShrank = errors.New("the file shrank while it was being read (truncated in place)")

// mapping maps the file once, at its size then. A file that cannot be
// mapped (empty, or on a file system without mappings) is read instead.
func (m *Mapped) mapping() []byte {
	m.once.Do(func() {
		st, err := m.f.Stat()
		if err != nil || st.Size() <= 0 || st.Size() > math.MaxInt {
			return
		}
		rc, err := m.f.SyscallConn()
		if err != nil {
			return
		}
		// Control, not Fd: Fd would put the file in blocking mode.
		rc.Control(func(fd uintptr) {
			m.data, m.err = unix.Mmap(int(fd), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
		})
	})
	if m.err != nil {
		return nil
	}
	return m.data
}

// WriteSection writes the n bytes of the file from offset off to w
// (checker.SectionWriter): from the mapping, and any of them past it (the
// file grew since it was mapped) read as ReadAt would. The section's whole
// pages are then unmapped again (they stay cached): a section is read
// once. It returns how many
// there were: fewer than n, with a nil error, where the file ends. A file
// cut shorter in place while its mapping is read is an error saying so,
// not a crash: w must read what it is given on the calling goroutine,
// where the fault is recovered (debug.SetPanicOnFault).
func (m *Mapped) WriteSection(w io.Writer, off, n int64) (int64, error) {
	var written int64
	end := off + n
	if data := m.mapping(); off < int64(len(data)) {
		k := min(end, int64(len(data)))
		var err error
		written, err = writeMapped(w, data[off:k])
		release(data, off, k)
		if err != nil || k == end {
			return written, err
		}
		off = k
	}
	rest, err := io.CopyBuffer(w, io.NewSectionReader(m.f, off, end-off), make([]byte, max(1, min(end-off, 1<<20))))
	return written + rest, err
}

// release unmaps the whole pages of data[from:to] from the process (the
// file's pages stay in the page cache): a section is read once, and the
// pages of a 137 MB log mapped whole would count in the check's resident
// set (peak RSS 184 MB instead of 50 MB for a resumed check of the 1M log).
func release(data []byte, from, to int64) {
	page := int64(os.Getpagesize())
	from = (from + page - 1) / page * page
	to = to / page * page
	if from < to {
		unix.Madvise(data[from:to], unix.MADV_DONTNEED)
	}
}

// writeMapped writes b, mapped memory, to w; a fault reading it (a file
// truncated under its mapping: SIGBUS) is errShrank.
func writeMapped(w io.Writer, b []byte) (n int64, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			n, err = 0, errShrank
		}
	}()
	k, err := w.Write(b)
	return int64(k), err
}

// Close unmaps the file (it does not close it). Nothing may read the
// mapping after it.
func (m *Mapped) Close() error {
	m.once.Do(func() {}) // no mapping after Close
	if m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	return err
}
