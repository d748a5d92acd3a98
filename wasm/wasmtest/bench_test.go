package wasmtest

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/greenlight-ci/greenlight/internal/cli"
)

// BenchmarkWASIvsNative checks the log named by GREENLIGHT_BENCH_LOG (a
// two-stage log, e.g. genlog.py --events 1000000 --seed 1) with the wasip1
// module under wazero (compiled engine, module compiled once) and with the
// native CLI in-process, and reports both times and their ratio; the target
// is at most 4x. bench/run.sh runs it.
func BenchmarkWASIvsNative(b *testing.B) {
	logPath := os.Getenv("GREENLIGHT_BENCH_LOG")
	if logPath == "" {
		b.Skip("set GREENLIGHT_BENCH_LOG to a log to compare")
	}
	abs, err := filepath.Abs(logPath)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"check", "/data/" + filepath.Base(abs), "--stages", "1,2", "--now", "2026-12-01T00:00:00Z", "--format", "json"}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	bin, err := os.ReadFile(buildModule(b, "wasip1", "./wasm/wasip1"))
	if err != nil {
		b.Fatal(err)
	}
	compiled, err := r.CompileModule(ctx, bin)
	if err != nil {
		b.Fatal(err)
	}
	var wasm, native time.Duration
	for b.Loop() {
		start := time.Now()
		cfg := wazero.NewModuleConfig().WithName("").WithArgs(append([]string{"greenlight"}, args...)...).
			WithStdout(io.Discard).WithStderr(io.Discard).WithSysWalltime().WithSysNanotime().
			WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount(filepath.Dir(abs), "/data"))
		mod, err := r.InstantiateModule(ctx, compiled, cfg)
		var exit *sys.ExitError
		if err != nil && !errors.As(err, &exit) {
			b.Fatal(err)
		}
		if mod != nil {
			mod.Close(ctx)
		}
		wasm += time.Since(start)
		start = time.Now()
		nativeArgs := append([]string{}, args...)
		nativeArgs[1] = abs
		cli.Main(nativeArgs, cli.Env{Stdin: nil, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now})
		native += time.Since(start)
	}
	b.ReportMetric(wasm.Seconds()/float64(b.N), "wasm-s/op")
	b.ReportMetric(native.Seconds()/float64(b.N), "native-s/op")
	b.ReportMetric(float64(wasm)/float64(native), "wasm/native")
}
