//go:build unix

package osfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestOpen: a regular file (or a link to one) opens; a directory, a device
// and a FIFO (which would block a plain open) are a *NotRegularError naming
// what they are.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(reg, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"regular", reg, ""},
		{"link to regular", link, ""},
		{"directory", dir, dir + " is a directory, not a regular file"},
		{"device", "/dev/zero", "/dev/zero is a device, not a regular file"},
		{"fifo", fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"link to fifo", fifoLink, fifoLink + " is a named pipe (FIFO), not a regular file"},
		{"missing", filepath.Join(dir, "none"), "open " + filepath.Join(dir, "none") + ": no such file or directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(c.path)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
				return
			}
			if err == nil {
				f.Close()
				t.Fatal("opened")
			}
			if err.Error() != c.want {
				t.Fatalf("error %q, want %q", err, c.want)
			}
		})
	}
	if data, err := ReadFile(link); err != nil || string(data) != "x\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
}

// TestDescribe: every file name in an error prints through render.Terminal.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "a\x1b[31m", Err: syscall.ENOENT}, `open "a\x1b[31m": no such file or directory`},
		{&os.LinkError{Op: "rename", Old: "\x1bold", New: "new", Err: syscall.EACCES}, `rename "\x1bold" new: permission denied`},
		{&fs.PathError{Op: "write", Path: "/dev/stdout", Err: os.NewSyscallError("write", syscall.EPIPE)}, "write /dev/stdout: write: broken pipe"},
		{&NotRegularError{Path: "\x07bell", Mode: fs.ModeNamedPipe}, `"\abell" is a named pipe (FIFO), not a regular file`},
		{errors.New("plain"), "plain"},
	} {
		if got := Describe(c.err); got != c.want {
			t.Errorf("Describe(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestReadFileLarge: a file of parallelReadBytes or more is read in parts
// on every core, with the same bytes as one read from its start.
func TestReadFileLarge(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{parallelReadBytes - 1, parallelReadBytes, 2*parallelReadBytes + 3} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(i*7 + i>>13)
		}
		path := filepath.Join(dir, "checkpoint")
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("ReadFile of %d bytes: %d bytes, equal %v, error %v", size, len(got), bytes.Equal(got, want), err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		for _, huge := range []bool{false, true} {
			got, ok := readParallel(f, size, huge)
			if ok != (size >= parallelReadBytes) || ok && !bytes.Equal(got, want) {
				t.Fatalf("readParallel of %d bytes on two cores (huge %v): ok %v", size, huge, ok)
			}
			// A file longer than the size it was stat'ed at is read whole.
			if _, ok := readParallel(f, size-1, huge); ok {
				t.Fatalf("readParallel of %d bytes of a longer file (huge %v): ok", size-1, huge)
			}
		}
		f.Close()
	}
}

// TestReadFileToReplace: a file read to be replaced is read like any, and
// is left as it was; a path that is no regular file is refused alike.
func TestReadFileToReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint")
	want := bytes.Repeat([]byte("greenlight.state/v5\n"), 1000)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFileToReplace(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadFileToReplace: %d bytes, error %v", len(got), err)
	}
	if again, err := os.ReadFile(path); err != nil || !bytes.Equal(again, want) {
		t.Fatalf("the file after ReadFileToReplace: %d bytes, error %v", len(again), err)
	}
	var nr *NotRegularError
	if _, err := ReadFileToReplace(dir); !errors.As(err, &nr) {
		t.Fatalf("ReadFileToReplace of a directory: error %v, want a *NotRegularError", err)
	}
}
