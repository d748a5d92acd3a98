// Package atomicfile writes a file so that readers see the old content or the
// new, never a torn one: a temporary file in the same directory, written,
// synced, renamed over the target, and the directory synced.
//
// No temporary file is left behind (docs/contract.md): every error
// path removes it, and a process stopped by a signal calls Abandon, which
// removes the temporary files of the writes in progress and keeps any of them
// from replacing its target, before it exits.
package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/osfile"
)

// Error is a failed write: Op says which step failed ("cannot write",
// "cannot replace", ...), Path is the target. The target is left as it was.
type Error struct {
	Op   string
	Path string
	Err  error
}

// Error reads "cannot write PATH: reason", every file name in it escaped
// for a terminal (render.Terminal, through osfile.Describe).
func (e *Error) Error() string {
	return e.Op + " " + render.Terminal(e.Path) + ": " + osfile.Describe(e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// pending holds the temporary files of the writes in progress, by name,
// with their targets. Its lock is held while a temporary file is created
// and while one is renamed over its target, so that Abandon sees each write
// either before its rename (and removes its temporary file) or after it.
var pending = struct {
	sync.Mutex
	files map[string]string
}{files: map[string]string{}}

// MidWrite, when not nil, is called with the temporary file's name once
// the first bytes of the content are in it and before the rest is written.
// It is for tests that stop the process in the middle of a write.
var MidWrite func(tmp string)

// Abandon removes the temporary file of every write in progress and returns
// their targets, which keep their previous content. It never gives the lock
// back, so no write in progress can create another temporary file or
// replace its target afterwards: call it only right before the process
// exits, from the goroutine that handles SIGINT or SIGTERM.
func Abandon() []string {
	pending.Lock()
	var targets []string
	for tmp, target := range pending.files {
		os.Remove(tmp)
		targets = append(targets, target)
	}
	return targets
}

// Write replaces path with data atomically (mode 0644). On any error the
// target is left as it was and the temporary file is removed; the error (an
// *Error) says which step failed.
func Write(path string, data []byte) error {
	return writeWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, nil, nil)
}

// WriteFunc is Write for content produced by a function: fill writes the
// content to w (buffered) and its error, or a write error, leaves the target
// as it was.
func WriteFunc(path string, fill func(w io.Writer) error) error {
	return writeWith(path, fill, nil, nil)
}

// WriteFuncBefore is WriteFunc with two steps around the replacement,
// either of which may be nil. before is called once the content is
// written and synced to the temporary file and before it replaces the
// target: an error of before is returned as it is, and the target is left
// as it was, so a caller that writes two files (a snapshot and a
// checkpoint) writes the other one in before, and when either cannot be
// written neither is replaced (short of a failed rename). then is called
// once the target is replaced, and reads the content just written from its
// start (from the file itself, so a later writer of the same path does not
// change what it reads): an error of then is returned as it is, the target
// holding the new content by then.
func WriteFuncBefore(path string, fill func(w io.Writer) error, before func() error, then func(written io.Reader) error) error {
	return writeWith(path, fill, before, then)
}

func writeWith(path string, fill func(w io.Writer) error, before func() error, then func(io.Reader) error) error {
	st, err := Stage(path, fill)
	if err != nil {
		return err
	}
	defer st.Discard() // after a Commit, nothing is left to discard
	return st.Commit(before, then)
}

// Staged is content written and synced to a temporary file beside its
// target, which it has not replaced yet: Stage's first half of a write,
// so that a caller can write and sync while it still waits to know
// whether the content is to replace the target (a checkpoint, written
// while the check proves the log's old part). Commit replaces the target;
// Discard removes the temporary file. Abandon removes it too, until one of
// them has been called.
type Staged struct {
	path string
	tmp  *os.File
	done bool // Commit or Discard was called
}

// Stage writes the content fill produces (buffered) to a temporary file in
// path's directory and syncs it, for Commit to rename over path. On any
// error, an *Error saying which step failed, the temporary file is removed
// and the target left as it was (also when fill or the write panics: the
// panic goes on); a target that is a directory, a device or a FIFO is
// refused. Missing parent directories of path are created first (mode
// 0755 before the umask) and are kept whatever happens next.
func Stage(path string, fill func(w io.Writer) error) (*Staged, error) {
	return StageThen(path, fill, nil)
}

// StageThen is Stage, calling written (when not nil) once the content is
// written to the temporary file, before it is synced, or when StageThen
// fails or panics before then: a caller that waits for it knows that
// the write's copy into the page cache, which needs a core, is over,
// and the sync, which leaves the cores idle, has begun.
func StageThen(path string, fill func(w io.Writer) error, written func()) (*Staged, error) {
	signal := func() {}
	if written != nil {
		var once sync.Once
		signal = func() { once.Do(written) }
		defer signal()
	}
	fail := func(op string, err error) error { return &Error{Op: op, Path: path, Err: err} }
	// A target that is a directory, a device or a FIFO is refused: renaming
	// over it would replace, say, /dev/null for every other program.
	if st, serr := os.Lstat(path); serr == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
		return nil, fail("cannot write", &osfile.NotRegularError{Path: path, Mode: st.Mode().Type()})
	}
	dir := filepath.Dir(path)
	// Missing parent directories are created, as other CI tools create
	// their report directories (out/ of out/health.json).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fail("cannot write", err)
	}
	pending.Lock()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err == nil {
		pending.files[tmp.Name()] = path
	}
	pending.Unlock()
	if err != nil {
		return nil, fail("cannot write", err)
	}
	st := &Staged{path: path, tmp: tmp}
	defer func() {
		// A panic while the content is written (a caller may recover
		// it, as check's --state does on its writing goroutine) leaves
		// no temporary file either.
		if r := recover(); r != nil {
			st.Discard()
			panic(r)
		}
	}()
	bw := bufio.NewWriterSize(&hooked{f: tmp}, 256<<10)
	if err = fill(bw); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		st.Discard()
		return nil, fail("cannot write", err)
	}
	signal()
	if err = tmp.Sync(); err != nil {
		st.Discard()
		return nil, fail("cannot sync", err)
	}
	if err = tmp.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		st.Discard()
		return nil, fail("cannot set the mode of", err)
	}
	return st, nil
}

// Discard removes the staged temporary file, unless Commit or Discard was
// called before; the target keeps its content.
func (st *Staged) Discard() {
	if st == nil || st.done {
		return
	}
	st.done = true
	st.tmp.Close()
	os.Remove(st.tmp.Name())
	pending.Lock()
	delete(pending.files, st.tmp.Name())
	pending.Unlock()
}

// Commit replaces the target with the staged content (mode 0644), with two
// steps around the replacement, either of which may be nil: before, called
// before the target is replaced, and then, called once it is, with the
// content just written to read from its start (see WriteFuncBefore). An
// error of before is returned as it is, and the target is left as it was;
// a failed rename is an *Error. The temporary file is gone when Commit
// returns, renamed or removed. Commit after Commit or Discard is an error.
func (st *Staged) Commit(before func() error, then func(io.Reader) error) (err error) {
	fail := func(op string, err error) error { return &Error{Op: op, Path: st.path, Err: err} }
	if st.done {
		return fail("cannot replace", os.ErrClosed)
	}
	tmp, path := st.tmp, st.path
	renamed := false
	defer func() {
		st.done = true
		tmp.Close() // a second Close after the one below is harmless
		if !renamed {
			os.Remove(tmp.Name())
		}
		pending.Lock()
		delete(pending.files, tmp.Name())
		pending.Unlock()
	}()
	// then reads the open file after the rename, except on Windows, which
	// renames no open file.
	keepOpen := then != nil && runtime.GOOS != "windows"
	if !keepOpen {
		if err = tmp.Close(); err != nil {
			return fail("cannot write", err)
		}
	}
	if before != nil {
		if err = before(); err != nil {
			return err
		}
	}
	pending.Lock()
	err = os.Rename(tmp.Name(), path)
	renamed = err == nil
	if renamed {
		// Replaced: a signal from now on must not report the target as
		// left as it was (Abandon).
		delete(pending.files, tmp.Name())
	}
	pending.Unlock()
	if err != nil {
		return fail("cannot replace", err)
	}
	if runtime.GOOS != "windows" {
		if d, derr := os.Open(filepath.Dir(path)); derr == nil {
			// A directory sync makes the rename durable; some file systems
			// refuse it, which does not undo the rename.
			_ = d.Sync()
			d.Close()
		}
	}
	if then == nil {
		return nil
	}
	if !keepOpen {
		r, err := os.Open(path)
		if err != nil {
			return err
		}
		defer r.Close()
		return then(r)
	}
	if _, err = tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return then(tmp)
}

// hooked is the temporary file as the buffer writes it, calling MidWrite
// after its first write.
type hooked struct {
	f      *os.File
	called bool
}

func (h *hooked) Write(p []byte) (int, error) {
	n, err := h.f.Write(p)
	if !h.called && MidWrite != nil {
		h.called = true
		MidWrite(h.f.Name())
	}
	return n, err
}
