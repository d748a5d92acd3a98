package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// preCommitHook is an entry of .pre-commit-hooks.yaml, the fields the
// pre-commit framework reads to run it.
type preCommitHook struct {
	ID       string   `yaml:"id"`
	Name     string   `yaml:"name"`
	Entry    string   `yaml:"entry"`
	Language string   `yaml:"language"`
	Files    string   `yaml:"files"`
	Types    []string `yaml:"types"`
}

// TestPreCommitHook runs the greenlight-validate hook the way pre-commit
// does: in a temporary git repository, on the staged files that match the
// hook's files pattern, as ENTRY ARGS... FILES..., with the args a user
// puts in .pre-commit-config.yaml. A staged log that breaks the contract
// fails the commit (exit 2, with its violations); valid logs pass; files
// the pattern does not match are never given to greenlight.
func TestPreCommitHook(t *testing.T) {
	src, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(src, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || hooks[0].ID != "greenlight-validate" || hooks[0].Language != "golang" || hooks[0].Files != `\.jsonl$` {
		t.Fatalf("hooks: %+v", hooks)
	}
	hook := hooks[0]
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("GREENLIGHT_REQUIRE_TOOLS") == "1" {
			t.Fatal("git is not on PATH")
		}
		t.Skip("SKIPPED: git is not on PATH")
	}
	repo := t.TempDir()
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write := func(name, text string) {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(git, "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write("logs/good.jsonl", `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n")
	write("logs/bad.jsonl", `{"run_id":"r-2","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`+"\n")
	write("notes.txt", "not a log\n")
	write("unstaged.jsonl", "not staged, not checked\n")
	args := []string{"--stages", "1,2"} // the user's args: in .pre-commit-config.yaml
	files := regexp.MustCompile(hook.Files)
	commit := func(paths ...string) (string, error) {
		if out, err := run(git, append([]string{"add"}, paths...)...); err != nil {
			t.Fatalf("git add: %v\n%s", err, out)
		}
		staged, err := run(git, "diff", "--cached", "--name-only", "--diff-filter=ACMR")
		if err != nil {
			t.Fatal(err)
		}
		var matched []string
		for _, f := range strings.Fields(staged) {
			if files.MatchString(f) {
				matched = append(matched, f)
			}
		}
		entry := strings.Fields(hook.Entry)
		return run(entry[0], append(append(entry[1:], args...), matched...)...)
	}
	out, err := commit("logs/good.jsonl", "notes.txt")
	if err != nil || out != "greenlight: 1 file follows the event contract (1 event)\n" {
		t.Errorf("a valid staged log: %v\n%s", err, out)
	}
	out, err = commit("logs/bad.jsonl")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("a staged log that breaks the contract: %v, want exit 2", err)
	}
	want := "logs/bad.jsonl:1: unknown_stage: stage 3 is not declared by the pipeline definition (declared: 1, 2)\ngreenlight: 1 of 2 files invalid, 1 contract violation\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}
