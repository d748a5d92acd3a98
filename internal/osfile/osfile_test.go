//go:build unix

package osfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// TestReadFileLarge: a file larger than one read is read whole, with the
// same bytes.
func TestReadFileLarge(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 1 << 20, 8<<20 + 3} {
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
	}
}
