package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/osfile"
)

// workspaceRoot is the workspace directory, absolute: GITHUB_WORKSPACE, or
// the working directory when it is not set (a step starts there), with the
// symbolic links in its own path resolved where they can be read. Inside
// the wasip1 module the directories above a preopened one cannot be read
// at all, so there the path stays as given; the files below it are
// resolved by resolveIn all the same.
func workspaceRoot(workspace string) (string, error) {
	if workspace == "" {
		workspace = "."
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("cannot resolve GITHUB_WORKSPACE: %s", osfile.Describe(err))
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		return resolved, nil
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return "", fmt.Errorf("cannot resolve GITHUB_WORKSPACE: %s", osfile.Describe(err))
	}
	return abs, nil
}

// inWorkspace refuses a file the action reads (an events match or the job
// log; kind names it in the message, "an event log") that resolves, through
// any symbolic link, to a place outside root, or to anything but a regular
// file (a FIFO, a device such as /dev/zero, a directory): a committed
// symbolic link must not make the action read /etc/passwd into
// annotations, or read without end (docs/action.md, "Files the action
// reads").
func inWorkspace(root, name, kind string) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %s", render.Terminal(name), osfile.Describe(err))
	}
	resolved, inside, err := resolveIn(root, abs)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %s", render.Terminal(name), osfile.Describe(err))
	}
	what := render.Terminal(name)
	if resolved != abs {
		what += " (which resolves to " + render.Terminal(resolved) + ")"
	}
	if !inside {
		return fmt.Errorf("%s is outside the workspace %s; the action reads only files inside GITHUB_WORKSPACE", what, render.Terminal(root))
	}
	st, err := os.Stat(resolved)
	if err != nil {
		return fmt.Errorf("cannot read %s: %s", what, osfile.Describe(err))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s; %s must be a regular file", what, osfile.Kind(st.Mode().Type()), kind)
	}
	return nil
}

// maxLinks bounds the symbolic links resolveIn follows for one path, as
// the kernel's ELOOP does.
const maxLinks = 255

// resolveIn follows the symbolic links of abs, an absolute clean path, the
// way the kernel would, but never looks at a directory above root: once
// the path leaves root (an absolute link target elsewhere, or ".." at
// root) it stops and reports inside false, with the path as resolved so
// far. It returns the resolved path, whether it lies inside root, and the
// error of a component that cannot be read (a broken link). Unlike
// filepath.EvalSymlinks it needs no access above root, which the wasip1
// module does not have.
func resolveIn(root, abs string) (resolved string, inside bool, err error) {
	rest, ok := below(root, abs)
	if !ok {
		return abs, false, nil
	}
	cur, links := root, 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if cur == root {
				return filepath.Join(append([]string{filepath.Dir(root)}, rest...)...), false, nil
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if err != nil {
			return next, false, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return next, false, fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return next, false, err
		}
		if filepath.IsAbs(target) {
			target = filepath.Join(append([]string{filepath.Clean(target)}, rest...)...)
			r, ok := below(root, target)
			if !ok {
				return target, false, nil
			}
			cur, rest = root, r
			continue
		}
		rest = append(split(target), rest...)
	}
	return cur, true, nil
}

// below returns the components of path under root, and false when path is
// not root or below it.
func below(root, path string) ([]string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, false
	}
	if rel == "." {
		return nil, true
	}
	return split(rel), true
}

// split cuts a relative path into its components.
func split(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}
