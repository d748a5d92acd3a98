package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The action metadata (action.yml) is checked here with the rules that
// actionlint does not know (every input mapped into env:, no ${{ inputs. }}
// in a script, string defaults, pinned actions); actionlint itself lints it
// and every workflow in internal/conformance, a module of its own.

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
		Using string           `yaml:"using"`
		Steps []map[string]any `yaml:"steps"`
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

// TestActionMetadata checks the rules of action.yml that matter for a
// composite action greenlight's way.
func TestActionMetadata(t *testing.T) {
	m := readAction(t)
	if m.Name == "" || m.Description == "" || m.Branding.Icon == "" || m.Branding.Color == "" {
		t.Error("name, description and branding (icon, color) are required")
	}
	if m.Runs.Using != "composite" {
		t.Errorf("runs.using is %q, want composite", m.Runs.Using)
	}
	// Inputs: exactly the ones action mode reads, each described, with a
	// string default unless required.
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
	want := slices.Clone(InputNames)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("action.yml inputs %q, action mode reads %q", names, want)
	}
	// Outputs: exactly the ones action mode sets, each the step's output.
	var outs []string
	for name, o := range m.Outputs {
		outs = append(outs, name)
		if o.Description == "" {
			t.Errorf("output %s has no description", name)
		}
		if o.Value != "${{ steps.greenlight.outputs."+name+" }}" {
			t.Errorf("output %s has value %q", name, o.Value)
		}
	}
	slices.Sort(outs)
	if !slices.Equal(outs, allOutputs) {
		t.Errorf("action.yml outputs %q, action mode sets %q", outs, allOutputs)
	}
	// Steps: bash everywhere, pinned actions, no input pasted into a script,
	// and every input mapped into the env: of the step that runs greenlight.
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)
	var run map[string]any
	for i, s := range m.Runs.Steps {
		if uses, ok := s["uses"].(string); ok && !pinned.MatchString(uses) {
			t.Errorf("step %d uses %q, not pinned to a full commit SHA", i, uses)
		}
		script, ok := s["run"].(string)
		if !ok {
			continue
		}
		if s["shell"] != "bash" {
			t.Errorf("step %d runs a script with shell %v, want bash", i, s["shell"])
		}
		if strings.Contains(strings.ReplaceAll(script, " ", ""), "${{") {
			t.Errorf("step %d pastes an expression into its script: %q", i, script)
		}
		if s["id"] == "greenlight" {
			run = s
		}
	}
	if run == nil {
		t.Fatal("no run step with id greenlight")
	}
	env, _ := run["env"].(map[string]any)
	for _, name := range InputNames {
		key := "INPUT_" + strings.ToUpper(name)
		if env[key] != "${{ inputs."+name+" }}" {
			t.Errorf("env %s of the greenlight step is %v, want ${{ inputs.%s }}", key, env[key], name)
		}
	}
	for key := range env {
		if strings.HasPrefix(key, "INPUT_") && !slices.Contains(InputNames, strings.ToLower(strings.TrimPrefix(key, "INPUT_"))) {
			t.Errorf("env %s maps no input", key)
		}
	}
}
