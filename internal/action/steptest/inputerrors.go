package steptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// InputError is one case of the action's input errors, from
// testdata/action/input_errors.json: the environment to run with (the
// table's base inputs with the case's set over them) and the one error line
// the step log must hold.
type InputError struct {
	Name string
	Env  map[string]string
	// Want is the error line after "::error::greenlight action: "; its
	// start only, when WantEnd is set.
	Want string
	// WantEnd, when set, is the line's end by kind of engine ("native",
	// "wasm"): the middle names a path of the machine, and the OS's words
	// for an error differ between Go on the host and the wasip1 module.
	WantEnd map[string]string
	// ReachesFileSystem marks a case the released layout (the lean module
	// first) runs too; the full module and in-process run every case.
	ReachesFileSystem bool
}

// InputErrors reads the table of input errors from
// testdata/action/input_errors.json below root, the repository.
func InputErrors(t *testing.T, root string) []InputError {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata/action/input_errors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Comment string
		Base    map[string]string
		Cases   []struct {
			Name              string
			Set               map[string]string
			Want              string
			WantEnd           map[string]string `json:"want_end"`
			ReachesFileSystem bool              `json:"reaches_file_system"`
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&table); err != nil {
		t.Fatalf("testdata/action/input_errors.json: %v", err)
	}
	var out []InputError
	for _, c := range table.Cases {
		env := map[string]string{}
		for k, v := range table.Base {
			env[k] = v
		}
		for k, v := range c.Set {
			env[k] = v
		}
		if c.Name == "" || c.Want == "" || (c.WantEnd != nil && (c.WantEnd["native"] == "" || c.WantEnd["wasm"] == "" || len(c.WantEnd) != 2)) {
			t.Fatalf("testdata/action/input_errors.json: case %q needs a name, want, and want_end for native and wasm or none", c.Name)
		}
		out = append(out, InputError{Name: c.Name, Env: env, Want: c.Want, WantEnd: c.WantEnd, ReachesFileSystem: c.ReachesFileSystem})
	}
	if len(out) == 0 {
		t.Fatal("testdata/action/input_errors.json has no cases")
	}
	return out
}

// Check checks the step of the case run with the engine of that name (its
// kind is the name up to the first "-": wasm-full is a wasm engine): exit
// 2, one step-log line that is the case's error, the verdict output
// invalid, and no job summary.
func (c InputError) Check(t *testing.T, engine string, got Step) {
	t.Helper()
	if got.Exit != 2 {
		t.Errorf("exit %d, want 2", got.Exit)
	}
	line, ok := strings.CutSuffix(got.Stdout, "\n")
	line, ok2 := strings.CutPrefix(line, "::error::greenlight action: ")
	kind, _, _ := strings.Cut(engine, "-")
	switch {
	case !ok || !ok2 || strings.Contains(line, "\n"):
		t.Errorf("step log %q, want one line ::error::greenlight action: %s", got.Stdout, c.Want)
	case c.WantEnd == nil && line != c.Want:
		t.Errorf("error %q, want %q", line, c.Want)
	case c.WantEnd != nil && (!strings.HasPrefix(line, c.Want) || !strings.HasSuffix(line, c.WantEnd[kind]) || c.WantEnd[kind] == ""):
		t.Errorf("error %q, want %q ... %q (engine %s)", line, c.Want, c.WantEnd[kind], engine)
	}
	if got.Output != "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n_GitHubActionsFileCommandDelimeter_\n" {
		t.Errorf("GITHUB_OUTPUT %q, want only verdict invalid", got.Output)
	}
	if got.Summary != "" {
		t.Errorf("job summary written: %q", got.Summary)
	}
}

// ScenarioEnv reads the environment of a testdata/action scenario from the
// archive's comment: one VAR=value per line (# starts a remark; \n in a
// value is a line break; VAR=- unsets it).
func ScenarioEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(ar.Comment))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("comment line %q is not VAR=value", line)
		}
		env[k] = strings.ReplaceAll(v, `\n`, "\n")
	}
	return env
}
