//go:build unix

package action

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveIn: links are followed inside the workspace only, without
// looking above it, as in the wasip1 module, where nothing above a
// preopened directory can be read.
func TestResolveIn(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("a/b")
	if err := os.WriteFile(filepath.Join(root, "a/b/f.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ln("b/f.jsonl", "a/rel.jsonl")
	ln(filepath.Join(root, "a/b"), "abs")
	ln("../..", "a/up")
	ln("loop", "loop")
	ln("/dev/zero", "zero")
	for _, c := range []struct {
		name, path, want string
		inside, err      bool
	}{
		{"a plain file", "a/b/f.jsonl", "a/b/f.jsonl", true, false},
		{"a relative link", "a/rel.jsonl", "a/b/f.jsonl", true, false},
		{"an absolute link inside", "abs/f.jsonl", "a/b/f.jsonl", true, false},
		{"a link above the root", "a/up/x", "../x", false, false},
		{"an absolute link outside", "zero", "/dev/zero", false, false},
		{"dot-dot back inside", "a/b/../b/f.jsonl", "a/b/f.jsonl", true, false},
		{"a link loop", "loop", "", false, true},
		{"a missing file", "a/none", "", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, inside, err := resolveIn(root, filepath.Join(root, c.path))
			if (err != nil) != c.err || inside != c.inside {
				t.Fatalf("resolveIn = %q, inside %v, err %v; want inside %v, error %v", got, inside, err, c.inside, c.err)
			}
			want := c.want
			if !filepath.IsAbs(want) {
				want = filepath.Join(root, want)
			}
			if !c.err && got != want {
				t.Errorf("resolved to %q, want %q", got, want)
			}
		})
	}
}
