package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/greenlight-ci/greenlight/internal/action/steptest"

	"go.yaml.in/yaml/v3"
)

// The action metadata (action.yml) and the workflows are checked here with
// the rules that actionlint does not know (the inputs are the ones action
// mode and the runner script read, string defaults, actions pinned by
// commit SHA); actionlint itself lints action.yml and every workflow in
// internal/conformance, a module of its own.

// actionMeta is the part of action.yml the metadata rules look at.
type actionMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs  map[string]yaml.Node `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Main  string `yaml:"main"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionMeta {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var m actionMeta
	if err := yaml.Unmarshal(src, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// runnerInputs are the inputs only the runner script (action/run.mjs)
// reads; it passes every input on to the module as INPUT_<NAME>.
var runnerInputs = []string{"engine"}

// TestActionMetadata checks the rules of action.yml that matter for
// greenlight's JavaScript action.
func TestActionMetadata(t *testing.T) {
	m := readAction(t)
	if m.Name == "" || m.Description == "" || m.Branding.Icon == "" || m.Branding.Color == "" {
		t.Error("name, description and branding (icon, color) are required")
	}
	if m.Runs.Using != "node24" || m.Runs.Main != "action/run.mjs" {
		t.Errorf("runs is using %q, main %q; want node24, action/run.mjs", m.Runs.Using, m.Runs.Main)
	}
	if _, err := os.Stat(filepath.Join(repoRoot, m.Runs.Main)); err != nil {
		t.Errorf("runs.main: %v", err)
	}
	// Inputs: exactly the ones action mode and the runner script read, each
	// described, with a string default unless required.
	var names []string
	for name, n := range m.Inputs {
		names = append(names, name)
		var in struct {
			Description string     `yaml:"description"`
			Required    bool       `yaml:"required"`
			Default     *yaml.Node `yaml:"-"`
		}
		if err := n.Decode(&in); err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "default" {
				in.Default = n.Content[i+1]
			}
		}
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if !in.Required && (in.Default == nil || in.Default.Tag != "!!str") {
			t.Errorf("input %s is optional but its default is not a string", name)
		}
		if in.Required && in.Default != nil {
			t.Errorf("input %s is required and has a default", name)
		}
	}
	slices.Sort(names)
	want := slices.Concat(InputNames, runnerInputs)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("action.yml inputs %q, action mode and the runner script read %q", names, want)
	}
	// Outputs: exactly the ones action mode sets, each described; a
	// JavaScript action's outputs take no value.
	var outs []string
	for name, o := range m.Outputs {
		outs = append(outs, name)
		if o.Description == "" {
			t.Errorf("output %s has no description", name)
		}
		if o.Value != "" {
			t.Errorf("output %s has value %q; the step sets it", name, o.Value)
		}
	}
	slices.Sort(outs)
	if !slices.Equal(outs, steptest.AllOutputs) {
		t.Errorf("action.yml outputs %q, action mode sets %q", outs, steptest.AllOutputs)
	}
}

// TestWorkflowsPinned: every action a workflow uses is pinned by a full
// commit SHA (or is this repository's own, uses: ./).
func TestWorkflowsPinned(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("workflows %q: %v", paths, err)
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	uses := regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+)`)
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range uses.FindAllStringSubmatch(string(src), -1) {
			if m[1] != "./" && !pinned.MatchString(m[1]) {
				t.Errorf("%s uses %s, not pinned to a full commit SHA", filepath.Base(p), m[1])
			}
		}
	}
}
