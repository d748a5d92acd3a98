package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWriteReplaces: the target gets the new bytes, mode 0644, and no
// temporary file is left beside it.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "health.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "new" || st.Mode().Perm() != 0o644 || len(entries) != 1 {
		t.Fatalf("content %q, mode %v, %d entries", got, st.Mode().Perm(), len(entries))
	}
}

// TestWriteFuncFailureLeavesTarget: when the content cannot be produced,
// the target keeps its bytes and the temporary file is removed.
func TestWriteFuncFailureLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "health.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFunc(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	got, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "old" || len(entries) != 1 {
		t.Fatalf("content %q, %d entries after a failed write", got, len(entries))
	}
}

// TestWriteMissingDir: missing parent directories are created; a parent
// that cannot be a directory (a file is there) is an error naming the
// path, and nothing is left.
func TestWriteMissingDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "deeper", "health.json")
	if err := Write(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "x" {
		t.Fatalf("read %q, %v", got, err)
	}
	if runtime.GOOS == "windows" {
		return // the system's words differ
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(filepath.Join(file, "health.json"), []byte("x"))
	if want := "cannot write " + file + "/health.json: mkdir " + file + ": not a directory"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestWriteFuncThen: WriteFuncBefore's then reads exactly the bytes just
// written, after the target holds them; an error of then is returned as
// it is.
func TestWriteFuncThen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "health.json")
	var seen []byte
	err := WriteFuncBefore(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "the snapshot\n")
		return err
	}, nil, func(r io.Reader) error {
		onDisk, _ := os.ReadFile(path)
		if string(onDisk) != "the snapshot\n" {
			t.Errorf("then ran before the target was replaced: %q", onDisk)
		}
		var err error
		seen, err = io.ReadAll(r)
		return err
	})
	if err != nil || string(seen) != "the snapshot\n" {
		t.Fatalf("then read %q, %v", seen, err)
	}
	boom := errors.New("stdout closed")
	if err := WriteFuncBefore(path, func(w io.Writer) error { return nil }, nil, func(io.Reader) error { return boom }); err != boom {
		t.Fatalf("err = %v, want then's own error", err)
	}
}

// TestWriteRefusesSpecialTarget: renaming over a device or a directory
// would replace it, so such a target is an error that names it, and no
// temporary file is made.
func TestWriteRefusesSpecialTarget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{dir, "cannot write " + dir + ": " + dir + " is a directory, not a regular file"},
		{"/dev/null", "cannot write /dev/null: /dev/null is a device, not a regular file"},
	} {
		if err := Write(c.path, []byte("x")); err == nil || err.Error() != c.want {
			t.Errorf("Write(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d entries left", len(entries))
	}
}

// TestErrorEscapesNames: the error names the target, and the temporary
// file in the OS's error, through render.Terminal.
func TestErrorEscapesNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no\x1b[2Jdir")
	if err := os.WriteFile(dir, nil, 0o644); err != nil { // not a directory
		t.Fatal(err)
	}
	err := Write(filepath.Join(dir, "health.json"), []byte("x"))
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.HasPrefix(err.Error(), `cannot write "`) {
		t.Fatalf("err = %q", err)
	}
}

// TestWriteFuncBefore: before runs once the content is in the temporary
// file, before the target is replaced; its error is returned as it is and
// leaves the target as it was, without a temporary file.
func TestWriteFuncBefore(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		before  error
		want    string
		wantErr error
	}{
		{"before succeeds", nil, "new", nil},
		{"before fails", boom, "old", boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "health.json")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			seen := ""
			err := WriteFuncBefore(path, func(w io.Writer) error {
				_, err := w.Write([]byte("new"))
				return err
			}, func() error {
				got, _ := os.ReadFile(path)
				seen = string(got)
				return tc.before
			}, nil)
			if err != tc.wantErr {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, _ := os.ReadFile(path)
			entries, _ := os.ReadDir(dir)
			if seen != "old" || string(got) != tc.want || len(entries) != 1 {
				t.Fatalf("target %q during before, %q after, %d entries; want old, %s, 1", seen, got, len(entries), tc.want)
			}
		})
	}
}
