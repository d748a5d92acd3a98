package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return strings.Join(n, " ")
}

// TestStage: staged content waits in a temporary file beside the target,
// which keeps its bytes until Commit renames it over them; Discard removes
// it instead, and neither leaves a temporary file behind.
func TestStage(t *testing.T) {
	fill := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	for _, tc := range []struct {
		name         string
		commit       bool
		want, second string
	}{
		{"commit", true, "new", "cannot replace checkpoint: file already closed"},
		{"discard", false, "old", "cannot replace checkpoint: file already closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "checkpoint")
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := Stage(path, fill)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if n := names(t, dir); string(got) != "old" || !strings.HasPrefix(n, ".checkpoint.tmp-") || !strings.HasSuffix(n, " checkpoint") {
				t.Fatalf("staged: the target holds %q and the directory %q; want old, and the temporary file beside it", got, n)
			}
			if tc.commit {
				err = st.Commit(nil, nil)
			} else {
				st.Discard()
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ = os.ReadFile(path)
			if n := names(t, dir); string(got) != tc.want || n != "checkpoint" {
				t.Fatalf("the target holds %q and the directory %q; want %q and the target alone", got, n, tc.want)
			}
			st.Discard() // a no-op now
			c := strings.NewReplacer(dir+string(filepath.Separator), "")
			if err := st.Commit(nil, nil); err == nil || c.Replace(err.Error()) != tc.second {
				t.Fatalf("a second Commit: %v, want %q", err, tc.second)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Fatalf("after a second Commit the target holds %q", got)
			}
		})
	}
}

// TestStagedInProgress: a staged write is in progress until Commit or
// Discard, so Abandon removes its temporary file and names its target.
func TestStagedInProgress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint")
	st, err := Stage(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
	if err != nil {
		t.Fatal(err)
	}
	pending.Lock()
	var targets []string
	for tmp, target := range pending.files {
		if tmp == st.tmp.Name() {
			targets = append(targets, target)
		}
	}
	pending.Unlock()
	if len(targets) != 1 || targets[0] != path {
		t.Fatalf("the staged write's targets in progress: %q, want %q", targets, path)
	}
	st.Discard()
	pending.Lock()
	_, left := pending.files[st.tmp.Name()]
	pending.Unlock()
	if left || names(t, dir) != "" {
		t.Fatalf("after Discard: still in progress %v, directory %q", left, names(t, dir))
	}
}

// TestRenamedIsNotPending: once Commit has renamed the temporary file over
// its target, the write is no longer one Abandon would report as left as
// it was (the target holds the new content): it leaves the pending writes
// under the lock the rename holds, not later.
func TestRenamedIsNotPending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint")
	st, err := Stage(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
	if err != nil {
		t.Fatal(err)
	}
	pendingTargets := func() []string {
		pending.Lock()
		defer pending.Unlock()
		var targets []string
		for _, target := range pending.files {
			targets = append(targets, target)
		}
		return targets
	}
	if got := pendingTargets(); len(got) != 1 || got[0] != path {
		t.Fatalf("staged: pending %q, want %q", got, path)
	}
	err = st.Commit(nil, func(written io.Reader) error {
		if got := pendingTargets(); len(got) != 0 {
			t.Errorf("renamed: pending %q, want none", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("the target holds %q", got)
	}
}

// TestStageThenWritten: StageThen calls written exactly once, after the
// temporary file holds every byte fill wrote (it is synced after), and
// also when the write fails or fill panics, so that a caller waiting for
// it never waits forever.
func TestStageThenWritten(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fill    func(w io.Writer) error
		wantErr string
	}{
		{"written", func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat("x", 300<<10)); return err }, ""},
		{"fill fails", func(io.Writer) error { return io.ErrShortWrite }, "cannot write checkpoint: short write"},
		{"fill panics", func(io.Writer) error { panic("boom") }, "panic: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "checkpoint")
			calls := 0
			var seen int64 = -1
			written := func() {
				calls++
				entries, _ := filepath.Glob(filepath.Join(dir, ".checkpoint.tmp-*"))
				if len(entries) == 1 {
					if st, err := os.Stat(entries[0]); err == nil {
						seen = st.Size()
					}
				}
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				var st *Staged
				st, err = StageThen(path, tc.fill, written)
				if err == nil {
					st.Discard()
				}
			}()
			c := strings.NewReplacer(dir+string(filepath.Separator), "")
			got := ""
			if err != nil {
				got = c.Replace(err.Error())
			}
			if got != tc.wantErr {
				t.Fatalf("StageThen: error %q, want %q", got, tc.wantErr)
			}
			if calls != 1 {
				t.Fatalf("written called %d times, want once", calls)
			}
			if tc.wantErr == "" && seen != 300<<10 {
				t.Fatalf("when written was called the temporary file held %d bytes, want %d", seen, 300<<10)
			}
			if n := names(t, dir); n != "" {
				t.Fatalf("the directory holds %q, want nothing", n)
			}
		})
	}
}
