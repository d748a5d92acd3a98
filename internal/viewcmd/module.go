package viewcmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	greenlight "github.com/greenlight-ci/greenlight"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/wasm/viewer"
)

// module is the viewer's js module and the wasm_exec.js of the toolchain
// that built it, and where they came from, for the commands' stderr.
type module struct {
	wasm, wasmExec []byte
	from           string
}

// errNoToolchain is findModule's error when the module must be built but
// no Go toolchain is on PATH.
var errNoToolchain = errors.New("no Go toolchain (go) on PATH to build the viewer's WebAssembly module")

// findModule returns the viewer's module: from --wasm-dir or
// $GREENLIGHT_WASM_DIR when one is given (an error names what is missing),
// else from the user cache directory (os.UserCacheDir()/greenlight/wasm/KEY,
// KEY a hash of the source and the Go version), built there on first use
// from the binary's own embedded source with the go command on PATH.
// Building prints a line on stderr (through note).
func (f *flags) findModule(note func(string)) (module, error) {
	dir := f.wasmDir
	if dir == "" {
		dir = os.Getenv("GREENLIGHT_WASM_DIR")
	}
	if dir != "" {
		m, err := readModule(dir)
		if err != nil {
			return m, fmt.Errorf("the viewer's WebAssembly module is not built (%s); build it with \"sh wasm/build.sh\" in the greenlight repository and pass --wasm-dir DIR (or set GREENLIGHT_WASM_DIR) to the directory holding %s and %s, or give neither to build it on demand",
				osfile.Describe(err), viewer.ModuleFile, viewer.WasmExecFile)
		}
		m.from = "from " + render.Terminal(dir)
		return m, nil
	}
	return cachedModule(note)
}

func readModule(dir string) (module, error) {
	wasm, err := osfile.ReadFile(filepath.Join(dir, viewer.ModuleFile))
	if err != nil {
		return module{}, err
	}
	exe, err := osfile.ReadFile(filepath.Join(dir, viewer.WasmExecFile))
	if err != nil {
		return module{}, err
	}
	return module{wasm: wasm, wasmExec: exe}, nil
}

// cachedModule reads the module built for this binary's source and the
// local toolchain from the user cache directory, building it there first
// when it is not yet.
func cachedModule(note func(string)) (module, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return module{}, errNoToolchain
	}
	// GOTOOLCHAIN=local: the module must come from the toolchain whose
	// wasm_exec.js the page gets, not from one go.mod's toolchain line
	// would fetch.
	goenv := exec.Command(gobin, "env", "GOVERSION", "GOROOT")
	goenv.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := goenv.Output()
	if err != nil {
		return module{}, fmt.Errorf("go env GOVERSION GOROOT: %v", err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		return module{}, fmt.Errorf("go env GOVERSION GOROOT printed %q", out)
	}
	goVersion, goroot := env[0], env[1]
	key, err := SourceKey(goVersion)
	if err != nil {
		return module{}, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return module{}, fmt.Errorf("no user cache directory to build the viewer's module in: %v", err)
	}
	dir := filepath.Join(cache, "greenlight", "wasm", key)
	if m, err := readModule(dir); err == nil {
		m.from = fmt.Sprintf("built with %s, cached in %s", goVersion, render.Terminal(dir))
		return m, nil
	}
	note(fmt.Sprintf("building the viewer's WebAssembly module with %s into %s (once per greenlight version and toolchain)", goVersion, render.Terminal(dir)))
	if err := buildModule(gobin, goroot, dir); err != nil {
		return module{}, err
	}
	m, err := readModule(dir)
	if err != nil {
		return m, err
	}
	m.from = fmt.Sprintf("built with %s into %s", goVersion, render.Terminal(dir))
	return m, nil
}

// SourceKey is the cache key of the module built from the embedded source
// (greenlight.Source) with Go goVersion: the first 16 hex digits of a
// SHA-256 over the Go version and every embedded file's path and bytes.
func SourceKey(goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", goVersion)
	err := fs.WalkDir(greenlight.Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := greenlight.Source.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildModule writes the embedded source (without its tests and testdata) to a
// temporary directory beside dir, builds wasm/js there with GOOS=js
// GOARCH=wasm (the flags of wasm/build.sh), copies the toolchain's wasm_exec.js beside it, and renames
// the result to dir, so that dir holds a whole module or nothing.
func buildModule(gobin, goroot, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("cannot make the cache directory: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		return fmt.Errorf("cannot make the build directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	err = fs.WalkDir(greenlight.Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := greenlight.Source.ReadFile(path)
		if err != nil {
			return err
		}
		to := filepath.Join(src, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("cannot write the source to build: %v", err)
	}
	out := filepath.Join(tmp, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(gobin, "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(out, viewer.ModuleFile), "./wasm/js") // as wasm/build.sh
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build of the viewer's module failed (%v): %s", err, render.TerminalMessage(strings.TrimSpace(lastLines(stderr.String(), 5))))
	}
	exe, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", viewer.WasmExecFile))
	if err != nil {
		if exe, err = os.ReadFile(filepath.Join(goroot, "misc", "wasm", viewer.WasmExecFile)); err != nil {
			return fmt.Errorf("the toolchain has no %s: %v", viewer.WasmExecFile, err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, viewer.WasmExecFile), exe, 0o644); err != nil {
		return err
	}
	if err := os.Rename(out, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, viewer.ModuleFile)); statErr == nil {
			return nil // another greenlight built it meanwhile
		}
		return fmt.Errorf("cannot move the built module into the cache: %v", err)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
