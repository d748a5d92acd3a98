package render_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func readFormatsDoc(t *testing.T) string { return readDoc(t, "formats.md") }

func readDoc(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(root + "docs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestFormatsDocAlertRules runs promtool check rules on the alert rules of
// docs/formats.md, so the documented alert loads in Prometheus.
func TestFormatsDocAlertRules(t *testing.T) {
	promtool := requireTool(t, "promtool", "prometheus")
	m := regexp.MustCompile("(?s)<!-- alert-rules:begin -->\n```yaml\n(.*?)```\n<!-- alert-rules:end -->").FindStringSubmatch(readFormatsDoc(t))
	if m == nil {
		t.Fatal("docs/formats.md has no alert-rules block")
	}
	out, err := exec.Command(promtool, "check", "rules", writeTemp(t, "rules.yml", []byte(m[1]))).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("SUCCESS: 2 rules found")) {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}

// TestFormatsDocExamples checks that every YAML example of docs/formats.md
// and docs/merge.md parses, that three of them are GitHub workflows, and
// that each command line in them names a format greenlight accepts.
// actionlint lints those workflows in internal/conformance, a module of
// its own.
func TestFormatsDocExamples(t *testing.T) {
	doc := readFormatsDoc(t) + readDoc(t, "merge.md")
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(doc, -1)
	workflows := 0
	for i, b := range blocks {
		var v any
		if err := yaml.Unmarshal([]byte(b[1]), &v); err != nil {
			t.Errorf("yaml block %d does not parse: %v", i+1, err)
			continue
		}
		if strings.Contains(b[1], "\njobs:\n") {
			workflows++
		}
	}
	if workflows != 3 {
		t.Errorf("%d GitHub workflows in docs/formats.md and docs/merge.md, want 3 (JUnit report, SARIF upload, matrix roll-up)", workflows)
	}
	for _, m := range regexp.MustCompile(`--format ([a-z]+)`).FindAllStringSubmatch(doc, -1) {
		switch m[1] {
		case "junit", "sarif", "gitlab", "openmetrics", "markdown", "json":
		default:
			t.Errorf("the docs use --format %s", m[1])
		}
	}
}
