package checker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImporterModules builds the module graph of a program that imports
// greenlight's library packages (checker, checker/openlineage,
// checker/render, schemas) and shows what it needs: the modules whose
// packages it compiles are exactly the five below, and its module graph
// holds none of the tools that only greenlight's tests use, nor what they
// require. Those live in the test modules wasm/wasmtest (chromedp, wazero)
// and internal/conformance (actionlint), whose go.mod files the go command
// never reads for an importer. Two test-only modules are still required by
// greenlight's own go.mod, so they are in the graph, though an importer
// compiles nothing of them: rogpeppe/go-internal (testscript runs the CLI
// in package main's tests) and prometheus/common (checker/render's tests
// parse the OpenMetrics output with it).
func TestImporterModules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/importer\n\ngo 1.26.0\n\nrequire github.com/greenlight-ci/greenlight v0.0.0\n\nreplace github.com/greenlight-ci/greenlight => "+root+"\n")
	write("main.go", `package main

import (
	_ "github.com/greenlight-ci/greenlight/checker"
	_ "github.com/greenlight-ci/greenlight/checker/openlineage"
	_ "github.com/greenlight-ci/greenlight/checker/render"
	_ "github.com/greenlight-ci/greenlight/schemas"
)

func main() {}
`)
	// go mod tidy resolves the test dependencies of greenlight's
	// dependencies too (a program's tidy go.sum covers them), which a
	// module cache filled by building greenlight lacks: the go command
	// fetches them through the environment's GOPROXY, as it would for any
	// importer, and needs no network when the cache has them. GOFLAGS
	// keeps the caller's flags (-modcacherw for a module cache that is
	// removed afterwards, as in .ci/run's check with an empty cache).
	env := append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, msg)
		}
		return string(out)
	}
	run(dir, "mod", "tidy")

	// The library leaves the zone database (time/tzdata, 450 kB) to the
	// program: greenlight's binaries import it.
	if pkgs := strings.Fields(run(dir, "list", "-deps", "-test=false", ".")); slices.Contains(pkgs, "time/tzdata") {
		t.Error("an importer compiles time/tzdata")
	}
	// The modules whose packages the program compiles.
	var built []string
	for _, m := range strings.Fields(run(dir, "list", "-deps", "-test=false", "-f", "{{with .Module}}{{.Path}}{{end}}", ".")) {
		if m != "example.com/importer" && m != "github.com/greenlight-ci/greenlight" && !slices.Contains(built, m) {
			built = append(built, m)
		}
	}
	slices.Sort(built)
	want := []string{
		"github.com/go-json-experiment/json",
		"github.com/robfig/cron/v3",
		"github.com/santhosh-tekuri/jsonschema/v5",
		"go.yaml.in/yaml/v3",
		"golang.org/x/text",
	}
	if !slices.Equal(built, want) {
		t.Errorf("an importer compiles packages of %q, want %q", built, want)
	}

	// The module graph: the tools that only greenlight's tests use are
	// nowhere in it, nor is any module that only they require.
	graph := map[string]bool{}
	for _, edge := range strings.Split(strings.TrimSpace(run(dir, "mod", "graph")), "\n") {
		_, to, _ := strings.Cut(edge, " ")
		to, _, _ = strings.Cut(to, "@")
		graph[to] = true
	}
	tools := []string{
		"github.com/chromedp/chromedp", "github.com/chromedp/cdproto",
		"github.com/tetratelabs/wazero",
		"github.com/rhysd/actionlint", "github.com/fatih/color", "github.com/mattn/go-shellwords", "go.yaml.in/yaml/v4",
	}
	for _, m := range tools {
		if graph[m] {
			t.Errorf("%s, which only greenlight's tests use, is in the module graph of an importer", m)
		}
	}
	var mods []string
	for m := range graph {
		mods = append(mods, m)
	}
	slices.Sort(mods)
	t.Logf("an importer's module graph: %s", strings.Join(mods, " "))
}
