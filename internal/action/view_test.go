package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuestPath: Windows paths map to the module's view as action/run.mjs
// maps its preopens (TestRunnerEnvironment runs the script's guestPath on
// the first three).
func TestGuestPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`D:\a\repo\repo`, "/D/a/repo/repo"},
		{"c:/x", "/C/x"},
		{`rel\p`, "rel/p"},
		{`D:\a\repo\repo\logs\x.jsonl`, "/D/a/repo/repo/logs/x.jsonl"},
		{`d:\a\_temp\health.json`, "/D/a/_temp/health.json"},
		{`D:\`, "/D/"},
		{`logs\**\*.jsonl`, "logs/**/*.jsonl"},
		{"logs/x.jsonl", "logs/x.jsonl"},
		{"/already/posix", "/already/posix"},
		{`1:\not\a\drive`, "1:/not/a/drive"},
		{"", ""},
	} {
		if got := GuestPath(c.in); got != c.want {
			t.Errorf("GuestPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWindowsInputPaths: with GREENLIGHT_HOST_PATHS=windows, as the runner
// script sets it in the module on a Windows runner, the path inputs are
// Windows paths: action mode opens them in the module's view (slashes),
// while the snapshot output keeps the path as the workflow gave it.
// Without the variable a backslash is part of a POSIX file name.
func TestWindowsInputPaths(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []struct{ from, to string }{
		{"testdata/logs/retry_then_success.jsonl", "logs/x.jsonl"},
		{"testdata/logs/pipeline.yaml", "defs/pipeline.yaml"},
	} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f.from))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(ws, f.to)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(ws, f.to), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		HostPathsVar:     "windows",
		"INPUT_EVENTS":   `logs\*.jsonl`,
		"INPUT_PIPELINE": `defs\pipeline.yaml`,
		"INPUT_NOW":      "2026-01-01T12:00:00Z",
		"INPUT_SNAPSHOT": `out\health.json`,
		"INPUT_REPORTS":  `junit=out\junit.xml`,
		// Windows paths are the subject, not freshness.
		"INPUT_MAX-AGE": "none",
	}
	got := runActionIn(t, ws, env)
	if got.Exit != 0 {
		t.Fatalf("exit %d:\n%s", got.Exit, got.Stdout)
	}
	for _, f := range []string{"out/health.json", "out/junit.xml"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if want := "\nsnapshot<<_GitHubActionsFileCommandDelimeter_\nout\\health.json\n"; !strings.Contains(got.Output, want) {
		t.Errorf("snapshot output is not the input as given:\n%s", got.Output)
	}
	delete(env, HostPathsVar)
	got = runActionIn(t, ws, env)
	if want := "::error::greenlight action: cannot read the pipeline definition: open \"defs\\\\pipeline.yaml\": no such file or directory\n"; got.Exit != 2 || got.Stdout != want {
		t.Errorf("without %s: exit %d, step log %q; want exit 2, %q", HostPathsVar, got.Exit, got.Stdout, want)
	}
}
