package wasmtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

// root is the repository, relative to this package's directory.
const root = "../.."

// shared is the team's shared folder next to the repository. Its
// samples/openlineage holds real OpenLineage captures and its
// cases/openlineage the cases of docs/openlineage.md (as for
// checker/openlineage's tests).
const shared = root + "/../shared"

// workDir holds what the tests build (modules, copies of the viewer); it
// lives as long as the test binary.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "greenlight-wasmtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildMu  sync.Mutex
	builds   = map[string]string{}
	buildErr = map[string]error{}
)

// buildModule builds the wasm package pkg (e.g. "./wasm/js") for goos once
// per test binary and returns the module's path.
func buildModule(t testing.TB, goos, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	key := goos + " " + pkg
	if p, ok := builds[key]; ok {
		return p
	}
	if err, ok := buildErr[key]; ok {
		t.Fatal(err)
	}
	out := filepath.Join(workDir, goos+".wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		buildErr[key] = fmt.Errorf("GOOS=%s GOARCH=wasm go build %s: %v\n%s", goos, pkg, err, msg)
		t.Fatal(buildErr[key])
	}
	builds[key] = out
	return out
}

// invocation is one greenlight command line over the corpus; the paths are
// relative to this package's directory.
type invocation struct {
	name  string
	args  []string
	stdin string // a file fed as standard input, or ""
	// dirs are host directories the module may also write, each mounted at
	// its own path (a checkpoint names the log by its path).
	dirs []string
}

// corpus lists, for every log under testdata/ (the golden corpus, valid,
// unhealthy and invalid, and the README sample), a check in json and in
// text, and one through standard input with --fail-on-unhealthy.
func corpus(t *testing.T) []invocation {
	t.Helper()
	logs, err := filepath.Glob(root + "/testdata/logs/*.jsonl")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs under testdata/logs: %v", err)
	}
	type set struct {
		log, pipeline, now string
		extra              []string
	}
	var sets []set
	for _, l := range logs {
		sets = append(sets, set{l, root + "/testdata/logs/pipeline.yaml", "2026-01-01T12:00:00Z", nil})
	}
	sets = append(sets, set{root + "/testdata/sample/campaign_metrics.jsonl", root + "/testdata/sample/pipeline.yaml", "2026-11-28T06:00:00Z", nil})
	// The recovery model's log, alone and with its job log.
	recovery := root + "/testdata/recovery/"
	sets = append(sets,
		set{recovery + "orders_daily.jsonl", recovery + "pipeline.yaml", "2026-01-01T12:00:00Z", nil},
		set{recovery + "orders_daily.jsonl", recovery + "pipeline.yaml", "2026-01-01T12:00:00Z", []string{"--job-log", recovery + "orders_daily.joblog.jsonl"}})
	// Compressed logs (gzip, zstd, a truncated gzip stream): every target
	// reads them decompressed, with the same bytes out.
	for _, c := range []string{"retry_then_success.jsonl.gz", "stalled.jsonl.zst", "cut.jsonl.gz"} {
		sets = append(sets, set{root + "/testdata/compressed/" + c, root + "/testdata/logs/pipeline.yaml", "2026-01-01T12:00:00Z", nil})
	}
	var out []invocation
	// A rotated log, the older day gzip-compressed: two files as one log.
	rotated := root + "/testdata/action/rotated/"
	for _, format := range []string{"json", "text"} {
		out = append(out, invocation{
			name: "rotated/" + format,
			args: []string{"check", rotated + "events-2026-01-01.jsonl.gz", rotated + "events-2026-01-02.jsonl", "--stages", "1,2", "--now", "2026-01-03T00:00:00Z", "--format", format},
		})
	}
	for _, s := range sets {
		base := filepath.Base(s.log)
		if len(s.extra) > 0 {
			base += "+" + strings.TrimLeft(s.extra[0], "-")
		}
		for _, format := range []string{"json", "text"} {
			out = append(out, invocation{
				name: base + "/" + format,
				args: append([]string{"check", s.log, "--pipeline", s.pipeline, "--now", s.now, "--format", format}, s.extra...),
			})
		}
		out = append(out, invocation{
			name:  base + "/stdin",
			args:  append([]string{"check", "-", "--pipeline", s.pipeline, "--now", s.now, "--format", "json", "--fail-on-unhealthy", "--max-age", "none"}, s.extra...),
			stdin: s.log,
		})
	}
	return out
}

// outcome is what a greenlight run shows the world.
type outcome struct {
	code           int
	stdout, stderr []byte
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
}

// native runs the CLI in-process: the reference every build is held to.
func native(t *testing.T, inv invocation) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr, Now: time.Now}
	if inv.stdin != "" {
		data, err := os.ReadFile(inv.stdin)
		if err != nil {
			t.Fatal(err)
		}
		env.Stdin = bytes.NewReader(data)
	}
	code := cli.Main(inv.args, env)
	return outcome{code, stdout.Bytes(), stderr.Bytes()}
}
