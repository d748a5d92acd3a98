package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// NamedFile is a file a command reads or writes, with the words its
// messages name it by: "the event log file", "the pipeline definition",
// "--snapshot", "the junit report".
type NamedFile struct {
	What, Path string
}

// DistinctOutputs refuses (a usage error, exit 2) an output that names one
// of the inputs or another output: writing it would replace the event log,
// the job log or the definition with a snapshot or a report, or one output
// with another. Both shells call it before anything is read or written
// (the CLI's check and report, the action's snapshot and reports;
// docs/contract.md, "Outputs never replace inputs"). Two paths name one
// file when they resolve, through every symbolic link (also of a parent
// directory, and of a target that does not exist yet), to one path, or
// when both exist and are one file (a hard link). Empty paths and "-"
// (standard input or output) are skipped.
func DistinctOutputs(inputs, outputs []NamedFile) error {
	for i, out := range outputs {
		if skipped(out.Path) {
			continue
		}
		for _, other := range outputs[:i] {
			if !skipped(other.Path) && SameFile(out.Path, other.Path) {
				return usageError{fmt.Sprintf("%s and %s name the same file, %s: each would overwrite the other", other.What, out.What, render.Terminal(out.Path))}
			}
		}
		for _, in := range inputs {
			if !skipped(in.Path) && SameFile(out.Path, in.Path) {
				return usageError{fmt.Sprintf("%s %s is also %s (%s): writing it would replace it", out.What, render.Terminal(out.Path), in.What, render.Terminal(in.Path))}
			}
		}
	}
	return nil
}

func skipped(path string) bool { return path == "" || path == "-" }

// SameFile tells whether the paths a and b name one file: they resolve to
// one path (ResolvePath), or both exist and are one file (os.SameFile: a
// hard link, or a path the resolution could not follow).
func SameFile(a, b string) bool {
	if ResolvePath(a) == ResolvePath(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// maxLinks bounds the symbolic links ResolvePath follows, as the kernel's
// ELOOP does.
const maxLinks = 255

// ResolvePath is path made absolute and clean, with every symbolic link
// along it followed, also where the file (or some of its parent
// directories) does not exist yet: the longest part that exists is
// resolved, a dangling link's target is followed, and the rest is joined
// as given. A part that cannot be read (a directory above the WASI
// module's preopened one) stays as given.
func ResolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	rest := ""
	for links := 0; ; {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return filepath.Join(r, rest)
		}
		if st, err := os.Lstat(abs); err == nil && st.Mode()&os.ModeSymlink != 0 && links < maxLinks {
			// A dangling link: its target is where a write would go.
			if target, err := os.Readlink(abs); err == nil {
				links++
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(abs), target)
				}
				abs = filepath.Clean(target)
				continue
			}
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(abs, rest)
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}
