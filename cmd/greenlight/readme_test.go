//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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
	// The freshness line names the wall-clock time the run ended.
	ended := regexp.MustCompile(`(?m)(ended )[0-9TZ:.-]+, [0-9a-zµ.]+ ago`)
	got := ended.ReplaceAllString(duration.ReplaceAllString(string(out), "${1}DURATION"), "${1}TIME, AGE ago")
	want := ended.ReplaceAllString(duration.ReplaceAllString(m[0][2], "${1}DURATION"), "${1}TIME, AGE ago")
	if got != want {
		t.Errorf("the README's commands print\n%s\nthe README shows\n%s", out, m[0][2])
	}
}

// readmeOutsideRunSection is README.md without its run and emit section
// (TestReadmeRunSection runs that one on its own).
func readmeOutsideRunSection(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if i := strings.Index(text, "\n## Write the evidence: `greenlight run` and `greenlight emit`\n"); i >= 0 {
		rest := text[i+1:]
		if j := strings.Index(rest, "\n## "); j >= 0 {
			text = text[:i] + rest[j:]
		}
	}
	return text
}

// TestReadmeOutputs runs, in the repository root with the greenlight under
// test on PATH, every README command block that is followed by what it
// prints ("prints" runs the whole block, "The first prints" its first
// line), outside the run and emit section (TestReadmeRunSection runs that
// one in an empty directory), and compares the output byte for byte.
// "go run ./cmd/greenlight" stands for greenlight; a block that reads
// ../shared is skipped without it.
func TestReadmeOutputs(t *testing.T) {
	text := readmeOutsideRunSection(t)
	shown := regexp.MustCompile("(?s)^\n\n(The first prints|prints)[^\n]*\n\n```\n(.*?)```")
	var blocks [][]string // the commands, how they are introduced, the output
	for _, loc := range regexp.MustCompile("```sh\n([^`]*)```").FindAllStringSubmatchIndex(text, -1) {
		if m := shown.FindStringSubmatch(text[loc[1]:]); m != nil {
			blocks = append(blocks, []string{"", text[loc[2]:loc[3]], m[1], m[2]})
		}
	}
	if len(blocks) < 3 {
		t.Fatalf("%d README command blocks with their output, want the sample, OpenLineage and recovery ones at least", len(blocks))
	}
	for _, b := range blocks {
		script := b[1]
		if b[2] == "The first prints" {
			script, _, _ = strings.Cut(script, "\n")
		}
		script = strings.ReplaceAll(script, "go run ./cmd/greenlight ", "greenlight ")
		t.Run(strings.Fields(script)[1]+"_"+filepath.Base(strings.Fields(script)[2]), func(t *testing.T) {
			if strings.Contains(script, "../shared/") {
				if _, err := os.Stat(filepath.Join(repoRoot, "../shared")); err != nil {
					t.Skip("../shared is not there")
				}
			}
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = repoRoot
			out, _ := cmd.Output() // an unhealthy sample is exit 0 for check; the output is what counts
			if string(out) != b[3] {
				t.Errorf("README command\n%s\nprints\n%s\nbut the README shows\n%s", script, out, b[3])
			}
		})
	}
}

// TestReadmeCommandsRun runs each line of the README's other command
// blocks (those without shown output, outside the run and emit section)
// with the greenlight under test on PATH, in a directory holding the files
// they name (a healthy two-stage events.jsonl, its pipeline.yaml, logs/,
// snapshots/ and the expected pipelines.txt), and asserts exit 0: every command the README shows parses
// and works as written. The browser block (it builds the modules and
// serves until stopped) is left to the wasm tests.
func TestReadmeCommandsRun(t *testing.T) {
	text := readmeOutsideRunSection(t)
	dir := t.TempDir()
	// The run ended an hour ago by the wall clock the commands judge at,
	// so that the definition's max_age finds it fresh.
	at := func(min int) string {
		return time.Now().UTC().Add(time.Duration(min-64) * time.Minute).Format(time.RFC3339)
	}
	events := fmt.Sprintf(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"%s"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"%s"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"%s"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"%s"}
`, at(0), at(1), at(2), at(3))
	for name, data := range map[string]string{
		"events.jsonl":  events,
		"logs/a.jsonl":  events,
		"pipeline.yaml": "max_age: 26h\nstages: [{id: 1}, {id: 2, depends_on: [1]}]\n",
		"pipelines.txt": "# merge --expect-file: the pipeline of snapshots/a.json\nevents\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := exec.Command("sh", "-c", "mkdir snapshots && greenlight check events.jsonl --stages 1,2 --snapshot snapshots/a.json >/dev/null")
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("writing a snapshot: %v\n%s", err, out)
	}
	shown := regexp.MustCompile(`^\n\n(The first prints|prints)`)
	ran := 0
	for _, loc := range regexp.MustCompile("```sh\n([^`]*)```").FindAllStringSubmatchIndex(text, -1) {
		block := text[loc[2]:loc[3]]
		if shown.MatchString(text[loc[1]:]) || strings.Contains(block, "wasm/build.sh") {
			continue // TestReadmeOutputs; the browser
		}
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			line, _, _ = strings.Cut(line, "  #") // the README's comments
			line = strings.ReplaceAll(strings.TrimSpace(line), "go run ./cmd/greenlight ", "greenlight ")
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("README command %q: %v\n%s", line, err, out)
			}
			ran++
		}
	}
	if ran < 8 {
		t.Errorf("ran %d README command lines, want the check, gate, validate, merge, schema and format examples", ran)
	}
}

// TestDocsShownOutputs runs every block of docs/*.md that opens with a
// command line ("$ go run ./cmd/greenlight ..." or "$ greenlight ...") and
// shows what it prints after it, in the repository root with the
// greenlight under test on PATH, and compares the output byte for byte:
// a reference page never shows an order or a wording the product no
// longer prints.
func TestDocsShownOutputs(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```\n\\$ ((?:go run \\./cmd/)?greenlight [^\n]*)\n(.*?)```")
	n := 0
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(src), -1) {
			n++
			script := strings.Replace(m[1], "go run ./cmd/greenlight ", "greenlight ", 1)
			t.Run(filepath.Base(page)+"_"+strings.Fields(script)[1], func(t *testing.T) {
				cmd := exec.Command("sh", "-c", script)
				cmd.Dir = repoRoot
				out, _ := cmd.Output() // check exits 0 on an unhealthy log; the output is what counts
				if string(out) != m[2] {
					t.Errorf("%s: %s\nprints\n%s\nbut the page shows\n%s", filepath.Base(page), script, out, m[2])
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no docs page shows a command with its output; docs/schedule.md's example should")
	}
}
