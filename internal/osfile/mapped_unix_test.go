//go:build unix

package osfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// A resumed check's proof hashes a mapped file from memory.
var _ checker.SectionWriter = (*Mapped)(nil)

// TestMappedWriteSection: the sections of a mapped file are its bytes,
// also past the end of the mapping once the file grew, and short where
// the file ends; a file truncated under its mapping is an error that says
// so, not a crash (SIGBUS recovered).
func TestMappedWriteSection(t *testing.T) {
	page := os.Getpagesize()
	text := bytes.Repeat([]byte("0123456789abcdef"), 4*page/16) // four pages
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := NewMapped(f)
	defer m.Close()
	section := func(off, n int64) (string, int64, error) {
		var b bytes.Buffer
		got, err := m.WriteSection(&b, off, n)
		return b.String(), got, err
	}
	for _, tc := range []struct {
		off, n int64
		want   string
	}{
		{0, int64(len(text)), string(text)},
		{5, 10, string(text[5:15])},
		{int64(len(text)) - 3, 10, string(text[len(text)-3:])},
		{int64(len(text)), 10, ""},
		{int64(len(text)) + 7, 10, ""},
	} {
		got, n, err := section(tc.off, tc.n)
		if got != tc.want || n != int64(len(tc.want)) || err != nil {
			t.Fatalf("WriteSection(%d, %d) = %q, %d, %v; want %q, %d, nil", tc.off, tc.n, got, n, err, tc.want, len(tc.want))
		}
	}
	// The file grows after it was mapped: the rest is read.
	more := []byte("{}\n")
	g, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(more); err != nil {
		t.Fatal(err)
	}
	g.Close()
	whole := append(bytes.Clone(text), more...)
	if got, n, err := section(int64(len(text))-2, 5); got != string(whole[len(text)-2:]) || n != 5 || err != nil {
		t.Fatalf("across the mapping's end: %q, %d, %v", got, n, err)
	}
	// Truncated in place under the mapping: the pages past the end fault.
	if err := os.Truncate(path, int64(page)); err != nil {
		t.Fatal(err)
	}
	// (What w was given before the fault is not to be used.)
	_, n, err := section(int64(2*page), int64(page))
	if !errors.Is(err, errShrank) || n != 0 {
		t.Fatalf("truncated under the mapping: %d bytes, %v; want the error %q", n, err, errShrank)
	}
	if err.Error() != "the file shrank while it was being read (truncated in place)" {
		t.Fatalf("error %q", err)
	}
	// The first page is still there.
	if got, _, err := section(0, 16); got != "0123456789abcdef" || err != nil {
		t.Fatalf("the first page after the truncation: %q, %v", got, err)
	}
}
