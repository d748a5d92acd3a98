package wasmtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// wasi is the wasip1 module compiled once for the whole test binary.
var wasi struct {
	once     sync.Once
	err      error
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
}

func wasiModule(t *testing.T) (wazero.Runtime, wazero.CompiledModule) {
	t.Helper()
	path := buildModule(t, "wasip1", "./wasm/wasip1")
	wasi.once.Do(func() {
		ctx := context.Background()
		cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(workDir, "wazero-cache"))
		if err != nil {
			wasi.err = err
			return
		}
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		wasi_snapshot_preview1.MustInstantiate(ctx, r)
		bin, err := os.ReadFile(path)
		if err != nil {
			wasi.err = err
			return
		}
		wasi.compiled, wasi.err = r.CompileModule(ctx, bin)
		wasi.runtime = r
	})
	if wasi.err != nil {
		t.Fatal(wasi.err)
	}
	return wasi.runtime, wasi.compiled
}

// runWASI runs the module with the repository mounted at /repo, the shared
// folder beside it at /shared, and the working directory set to this
// package's, so the invocation's relative paths name the same files as for
// the native run.
func runWASI(t *testing.T, inv invocation) outcome {
	t.Helper()
	r, compiled := wasiModule(t)
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	fsConfig := wazero.NewFSConfig().WithReadOnlyDirMount(abs, "/repo")
	if _, err := os.Stat(filepath.Join(abs, "..", "shared")); err == nil {
		fsConfig = fsConfig.WithReadOnlyDirMount(filepath.Join(abs, "..", "shared"), "/shared")
	}
	for _, d := range inv.dirs {
		fsConfig = fsConfig.WithDirMount(d, d)
	}
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithArgs(append([]string{"greenlight"}, inv.args...)...).
		WithEnv("PWD", "/repo/wasm/wasmtest").
		WithStdout(&stdout).WithStderr(&stderr).
		WithSysWalltime().WithSysNanotime().
		WithFSConfig(fsConfig)
	if inv.stdin != "" {
		f, err := os.Open(inv.stdin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg = cfg.WithStdin(f)
	}
	code := 0
	mod, err := r.InstantiateModule(context.Background(), compiled, cfg)
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit):
		code = int(exit.ExitCode())
	case err != nil:
		t.Fatalf("running the wasip1 module: %v", err)
	default:
		mod.Close(context.Background())
	}
	return outcome{code, stdout.Bytes(), stderr.Bytes()}
}

// TestWASIMatchesNative: on every log under testdata/, the wasip1 module
// prints the same stdout and stderr bytes and exits with the same code as
// the native CLI.
func TestWASIMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a WebAssembly module; skipped with -short")
	}
	codes := map[int]int{}
	for _, inv := range corpus(t) {
		t.Run(inv.name, func(t *testing.T) {
			want := native(t, inv)
			got := runWASI(t, inv)
			codes[want.code]++
			if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || !bytes.Equal(got.stderr, want.stderr) {
				t.Fatalf("wasip1 differs from native\n--- wasip1:\n%s\n--- native:\n%s", got, want)
			}
		})
	}
	// The corpus must exercise every exit code, or the comparison proves less
	// than it claims.
	for _, c := range []int{0, 1, 2} {
		if codes[c] == 0 {
			t.Errorf("no invocation exited %d; exit codes seen: %v", c, codes)
		}
	}
}

// TestWASIUsageError: a bad command line is exit 2 with the CLI's message in
// the module as natively.
func TestWASIUsageError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a WebAssembly module; skipped with -short")
	}
	inv := invocation{name: "no stages", args: []string{"check", root + "/testdata/sample/campaign_metrics.jsonl"}}
	want, got := native(t, inv), runWASI(t, inv)
	if want.code != 2 || got.code != 2 || !bytes.Equal(got.stderr, want.stderr) {
		t.Fatalf("wasip1:\n%s\nnative:\n%s", got, want)
	}
}

// TestWASICheckpointAcrossBuilds: a checkpoint written by the native CLI
// resumes in the wasip1 module, and the module's checkpoint resumes
// natively, each with a full check's bytes: the hash states of both builds
// are crypto/sha256's.
func TestWASICheckpointAcrossBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a WebAssembly module; skipped with -short")
	}
	sample, err := os.ReadFile(root + "/testdata/sample/campaign_metrics.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(sample, []byte("\n"))
	dir := t.TempDir()
	logPath, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "gate.state")
	check := func(extra ...string) []string {
		return append([]string{"check", logPath, "--pipeline", root + "/testdata/sample/pipeline.yaml", "--now", "2026-11-28T06:00:00Z", "--format", "json"}, extra...)
	}
	// The log grows in three parts: native writes the first checkpoint,
	// the module resumes from it, and native resumes from the module's.
	parts := [][]byte{bytes.Join(lines[:10], nil), bytes.Join(lines[10:19], nil), bytes.Join(lines[19:], nil)}
	for i, part := range parts {
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(part); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		inv := invocation{name: "resume", args: check("--state", state), dirs: []string{dir}}
		var got outcome
		if i == 1 {
			got = runWASI(t, inv)
		} else {
			got = native(t, inv)
		}
		want := native(t, invocation{name: "full", args: check()})
		if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || len(got.stderr) != 0 {
			t.Fatalf("part %d, checked from the checkpoint (%s):\n%s\n--- a full native check:\n%s", i+1, map[bool]string{true: "wasip1", false: "native"}[i == 1], got, want)
		}
	}
}
