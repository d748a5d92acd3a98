// Package osfile opens the files greenlight reads (event logs, pipeline
// definitions, job logs) and words the errors of the files it reads and
// writes for a terminal. Only a regular file is read: a FIFO, a device, a
// socket or a directory is refused before it is opened, so that a path such
// as /dev/zero or a named pipe cannot make greenlight read without end or
// wait for a writer (docs/contract.md, regular files only).
package osfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// NotRegularError is the error for a path that names something other than a
// regular file. Path is the name as given; Mode is the type of what it names
// (after following symbolic links).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error says what the path names, the path escaped for a terminal.
func (e *NotRegularError) Error() string {
	return render.Terminal(e.Path) + " is " + Kind(e.Mode) + ", not a regular file"
}

// Kind names the type of a file mode in words: "a directory", "a named pipe
// (FIFO)", "a device", "a socket", "a regular file" or "a special file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// errChanged is the error for a file that was swapped for another between
// the check and the open.
var errChanged = errors.New("the file changed while it was being opened")

// Open opens name for reading when it is a regular file (a symbolic link is
// followed). Anything else is a *NotRegularError, found by Stat before the
// file is opened, and checked again on the open file (which is opened
// non-blocking where the system has that, so a FIFO put in its place
// between the two cannot make Open wait).
func Open(name string) (*os.File, error) {
	st, err := os.Stat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// Read as the open it stands for: "open NAME: no such file".
			return nil, &fs.PathError{Op: "open", Path: pe.Path, Err: pe.Err}
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: st.Mode().Type()}
	}
	f, err := openNonBlocking(name)
	if err != nil {
		return nil, err
	}
	fst, err := f.Stat()
	if err == nil && !fst.Mode().IsRegular() {
		err = &NotRegularError{Path: name, Mode: fst.Mode().Type()}
	} else if err == nil && !os.SameFile(st, fst) {
		err = &fs.PathError{Op: "open", Path: name, Err: errChanged}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole of a regular file, as Open allows it.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, false)
}

// ReadFileToReplace is ReadFile for a file about to be replaced (a
// checkpoint a resumed check renames its successor over): once it is
// read, the kernel is asked, on another goroutine, to drop its cached
// pages, which are of no more use. Else the rename frees them, 6 ms for
// the 18 MB checkpoint of the 1M-event log, after everything else a
// resumed check does; now they are freed while the log is still proven.
// A file of 8 MiB or more is read into memory outside the Go heap, backed
// by huge pages where the system allows (hugeBuffer), which is never
// freed: read it once in a process.
func ReadFileToReplace(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	b, err := readAll(f, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	go dropCache(f)
	return b, nil
}

// readAll reads the whole of f, a regular file opened by Open; huge says
// a large file may be read into memory outside the Go heap, never freed
// (hugeBuffer), for a file read once in a process.
func readAll(f *os.File, huge bool) ([]byte, error) {
	// Open admits regular files only: the size sizes the buffer, so that a
	// large file (a checkpoint of millions of folded runs) is read into
	// one allocation, not grown into several.
	size := 0
	if st, err := f.Stat(); err == nil && st.Size() < 1<<40 {
		size = int(st.Size())
	}
	if b, ok := readParallel(f, size, huge); ok {
		return b, nil
	}
	b := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// parallelReadBytes is the size from which ReadFile reads a file in parts
// on every core (8 MiB): copying a file's pages out of the page cache is
// the cost of reading it, and a checkpoint of the 1M-event benchmark log
// is 18 MB, read before a resumed check can start.
const parallelReadBytes = 8 << 20

// readParallel reads the size bytes of f, a regular file, in parts at
// their offsets, one a core (up to four), when size is at least
// parallelReadBytes; ok is false when it did not (a smaller file, one
// core, a read error, or a file that is not size bytes long now), and the
// file is then read from its start as usual. huge says the bytes may be
// read into a hugeBuffer.
func readParallel(f *os.File, size int, huge bool) (b []byte, ok bool) {
	parts := min(runtime.GOMAXPROCS(0), 4)
	if size < parallelReadBytes || parts < 2 {
		return nil, false
	}
	if huge {
		b = hugeBuffer(size)
	}
	if b == nil {
		b = make([]byte, size)
	}
	var failed atomic.Bool
	var wg sync.WaitGroup
	step := (size + parts - 1) / parts
	for from := 0; from < size; from += step {
		part := b[from:min(from+step, size)]
		wg.Go(func() {
			if _, err := f.ReadAt(part, int64(from)); err != nil {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	var more [1]byte
	if n, _ := f.ReadAt(more[:], int64(size)); failed.Load() || n > 0 {
		return nil, false // shorter or longer than it was
	}
	return b, true
}

// Describe is err's text for a terminal: every file name inside an
// *fs.PathError, *os.LinkError or *NotRegularError (at any depth of those)
// goes through render.Terminal, the one escaping helper of everything
// greenlight prints, so a name holding an escape sequence prints quoted
// rather than raw (docs/contract.md). Other errors give their own
// text.
func Describe(err error) string {
	switch e := err.(type) {
	case nil:
		return ""
	case *fs.PathError:
		return e.Op + " " + render.Terminal(e.Path) + ": " + Describe(e.Err)
	case *os.LinkError:
		return e.Op + " " + render.Terminal(e.Old) + " " + render.Terminal(e.New) + ": " + Describe(e.Err)
	case *os.SyscallError:
		return e.Syscall + ": " + Describe(e.Err)
	}
	return err.Error()
}
