package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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

// TestWriteMissingDir: a directory that does not exist is an error naming
// the path, and nothing is created.
func TestWriteMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "health.json")
	err := Write(path, []byte("x"))
	if err == nil {
		t.Fatal("no error")
	}
	if _, statErr := os.Stat(filepath.Dir(path)); !os.IsNotExist(statErr) {
		t.Fatal("the directory was created")
	}
}
