//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeRunSection runs the command block of the README's section on
// greenlight run and emit with the greenlight under test on PATH, in an
// empty directory, and compares what it prints with the block the README
// shows after it; only the pipeline's duration may differ.
func TestReadmeRunSection(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(src), "\n## Write the evidence: `greenlight run` and `greenlight emit`\n")
	if !ok {
		t.Fatal("README.md has no section on greenlight run and emit")
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```\n\nprints[^\n]*\n\n```\n(.*?)```").FindAllStringSubmatch(sec, -1)
	if len(m) != 1 || strings.Count(sec, "```sh") != 1 {
		t.Fatalf("the section has %d sh blocks followed by what they print, want 1 and no other sh block", len(m))
	}
	cmd := exec.Command("sh", "-e", "-c", m[0][1])
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, out)
	}
	duration := regexp.MustCompile(`(?m)(attempts, )[0-9.]+(µs|ms|s)$`)
	got := duration.ReplaceAllString(string(out), "${1}DURATION")
	want := duration.ReplaceAllString(m[0][2], "${1}DURATION")
	if got != want {
		t.Errorf("the README's commands print\n%s\nthe README shows\n%s", out, m[0][2])
	}
}
