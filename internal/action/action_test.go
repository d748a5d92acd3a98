package action

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/sethvargo/go-githubactions"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/action/*.txtar")

// testToken is the stop-commands token of every test run.
const testToken = steptest.Token

// wallClock is what the action sees as the wall clock in tests that leave
// the now input empty.
var wallClock = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// repoRoot is the repository's root, where every run starts, so that paths
// in the output are the same on every machine.
var repoRoot, _ = filepath.Abs("../..")

// run is one run of the action (steptest.Step).
type run = steptest.Step

// runAction runs Main in the repository root with the given environment
// (INPUT_* and any other variable). GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// point at fresh files unless env sets them; "-" in env means unset.
func runAction(t *testing.T, env map[string]string) run {
	t.Helper()
	return runActionIn(t, repoRoot, env)
}

// runActionIn is runAction started in the directory wd.
func runActionIn(t *testing.T, wd string, env map[string]string) run {
	t.Helper()
	t.Chdir(wd)
	vars := steptest.Vars(t, env)
	var stdout bytes.Buffer
	gh := githubactions.New(githubactions.WithWriter(&stdout), githubactions.WithGetenv(func(k string) string { return vars[k] }))
	code := Main(Env{GH: gh, Now: func() time.Time { return wallClock }, Token: func() (string, error) { return testToken, nil }})
	return steptest.Read(t, vars, code, stdout.String())
}

// TestGolden runs every scenario in testdata/action/*.txtar. The archive's
// comment holds the environment, one VAR=value per line (# starts a remark;
// VAR=- unsets it); its files are the expected exit code, step log,
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, compared byte for byte. -update
// rewrites the files.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/action/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			env := steptest.ScenarioEnv(t, abs)
			got := runAction(t, env)
			files := []txtar.File{
				{Name: "exit", Data: []byte(fmt.Sprintf("%d\n", got.Exit))},
				{Name: "stdout", Data: []byte(got.Stdout)},
				{Name: "GITHUB_OUTPUT", Data: []byte(got.Output)},
				{Name: "GITHUB_STEP_SUMMARY", Data: []byte(got.Summary)},
			}
			if *update {
				ar.Files = files
				if err := os.WriteFile(abs, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(ar.Files) != len(files) {
				t.Fatalf("%s has %d files, want %d (run with -update)", path, len(ar.Files), len(files))
			}
			for i, f := range files {
				want := ar.Files[i]
				if want.Name != f.Name {
					t.Fatalf("file %d is %q, want %q", i, want.Name, f.Name)
				}
				if !bytes.Equal(want.Data, f.Data) {
					t.Errorf("%s differs\n--- got\n%s\n--- want\n%s", f.Name, f.Data, want.Data)
				}
			}
		})
	}
}

// engines are the ways this package's tests run action mode: in-process,
// the native binary's code. wasm/wasmtest runs the same tests through the
// JavaScript action (action/run.mjs and the wasip1 modules), whose engines
// compare with this one.
var engines = []steptest.Engine{
	{Name: "native", Run: runAction},
}
