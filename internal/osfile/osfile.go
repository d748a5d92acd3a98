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
	return readAll(f)
}

// readAll reads the whole of f, a regular file opened by Open, into one
// allocation of the size it has (a checkpoint of millions of folded runs
// is read without growing a buffer several times).
func readAll(f *os.File) ([]byte, error) {
	size := 0
	if st, err := f.Stat(); err == nil && st.Size() < 1<<40 {
		size = int(st.Size())
	}
	b := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
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
