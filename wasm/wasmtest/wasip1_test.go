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
