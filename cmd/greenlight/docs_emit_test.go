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

// emitDocBlock returns the fenced block of docs/emit.md in the given
// language that follows the heading (the first block after it).
func emitDocBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "docs/emit.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(src), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/emit.md has no heading %q", heading)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(after)
	if m == nil {
		t.Fatalf("no %s block after %q", lang, heading)
	}
	return m[1]
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

const docsPipeline = "pipeline: docs\nstages:\n  - {id: extract}\n  - {id: load}\n"

// TestEmitDocMake runs the Makefile of docs/emit.md with a load stage that
// fails once: the first make fails, the second skips extract and runs
// attempt 2 of load, and the log is healthy.
func TestEmitDocMake(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	writeFiles(t, dir, map[string]string{
		"Makefile":      emitDocBlock(t, "### Make", "make"),
		"pipeline.yaml": docsPipeline,
		"extract.sh":    "#!/bin/sh\necho extracted\n",
		"load.sh":       "#!/bin/sh\nif [ ! -e failed-once ]; then touch failed-once; echo 'disk full' >&2; exit 3; fi\necho loaded\n",
	})
	make := func() error {
		cmd := exec.Command("make", "-s")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		t.Logf("make: %v\n%s", err, out)
		return err
	}
	if err := make(); err == nil {
		t.Fatal("the first make succeeded, want load to fail")
	}
	if err := make(); err != nil {
		t.Fatalf("the second make failed: %v", err)
	}
	evs := readEvents(t, filepath.Join(dir, "logs/events.jsonl"))
	var got []string
	for _, e := range evs {
		got = append(got, e.Status)
	}
	if s := strings.Join(got, " "); s != "started succeeded started failed started succeeded" {
		t.Errorf("events %q", s)
	}
	if evs[3].Error == nil || *evs[3].Error != "disk full" || evs[4].Attempt != 2 {
		t.Errorf("load attempt 1 error %q, next attempt %d; want disk full, 2", deref(evs[3].Error), evs[4].Attempt)
	}
	snap := checkSnapshot(t, filepath.Join(dir, "logs/events.jsonl"), "extract,load", evs[5].Timestamp)
	if snap.Verdict != "healthy" {
		t.Errorf("verdict %s, want healthy", snap.Verdict)
	}
}

// TestEmitDocUnknownResolved runs the emit example of docs/emit.md on a log
// where load is running: it records the outcome as unknown, then a
// person's failed resolution, and both are appended.
func TestEmitDocUnknownResolved(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pipeline.yaml": docsPipeline,
		"events.jsonl": `{"run_id":"nightly-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:00:00Z"}
{"run_id":"nightly-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T02:10:00Z"}
{"run_id":"nightly-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:10:05Z"}
`,
	})
	cmd := exec.Command("sh", "-e", "-c", emitDocBlock(t, "## `greenlight emit`", "sh"))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	evs := readEvents(t, filepath.Join(dir, "events.jsonl"))
	if len(evs) != 5 || evs[3].Status != "unknown" || evs[4].Status != "resolved" || evs[4].Attempt != 1 {
		t.Errorf("events %q, want the unknown and resolved events of load attempt 1 appended", statuses(evs))
	}
}

// TestEmitDocTakeover runs the takeover example of docs/emit.md (the sh
// block with --stop-method) on a log whose load attempt was started by
// another owner and whose lease ran out: the failed outcome is appended
// with the owner and the proof, and check shows it as a takeover.
func TestEmitDocTakeover(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "docs/emit.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(src), -1) {
		if strings.Contains(m[1], "--stop-method") {
			block = m[1]
		}
	}
	if block == "" {
		t.Fatal("docs/emit.md has no sh block with --stop-method")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pipeline.yaml": docsPipeline,
		"events.jsonl": `{"run_id":"od-2026-01-01T03","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T03:00:00Z"}
{"run_id":"od-2026-01-01T03","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T03:10:00Z"}
{"run_id":"od-2026-01-01T03","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T03:12:00Z","owner":"local-pid://etl-b/7007","lease_expires_at":"2026-01-01T03:42:00Z"}
`,
	})
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	evs := readEvents(t, filepath.Join(dir, "events.jsonl"))
	if len(evs) != 4 || evs[3].Status != "failed" || evs[3].Attempt != 1 {
		t.Fatalf("events %q, want load attempt 1's failed outcome appended", statuses(evs))
	}
	out, err := exec.Command("greenlight", "check", filepath.Join(dir, "events.jsonl"), "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--format", "json").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := `"takeover":{"outcome":"failed","owner":"ops://ana","stop_confirmed_by":"ana","stop_evidence_ref":"INC-311: uptime and ps -o lstart=,args= -p 7007 on etl-b","stop_method":"local_pid",`; !strings.Contains(string(out), want) {
		t.Errorf("the snapshot does not show the takeover %s:\n%s", want, out)
	}
}
