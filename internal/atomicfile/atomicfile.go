// Package atomicfile writes a file so that readers see the old content or the
// new, never a torn one: a temporary file in the same directory, written,
// synced, renamed over the target, and the directory synced.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// Write replaces path with data atomically (mode 0644). On any error the
// target is left as it was and the temporary file is removed; the error says
// which step failed.
func Write(path string, data []byte) error {
	return writeWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeWith(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err = fill(bw); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("cannot set the mode of %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot replace %s: %w", path, err)
	}
	if runtime.GOOS != "windows" {
		if d, derr := os.Open(dir); derr == nil {
			// A directory sync makes the rename durable; some file systems
			// refuse it, which does not undo the rename.
			_ = d.Sync()
			d.Close()
		}
	}
	return nil
}

// WriteFunc is Write for content produced by a function: fill writes the
// content to w (buffered) and its error, or a write error, leaves the target
// as it was.
func WriteFunc(path string, fill func(w io.Writer) error) error {
	return writeWith(path, fill)
}
