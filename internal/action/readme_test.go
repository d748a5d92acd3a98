package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// readmeSection returns the "Use it in GitHub Actions" section of README.md.
func readmeSection(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(src), "\n## Use it in GitHub Actions\n")
	if !ok {
		t.Fatal(`README.md has no "Use it in GitHub Actions" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	return sec
}

// TestReadmeJobSummary: the job summary quoted in docs/action.md (the
// README links it) is the one the action writes for the bundled sample
// (testdata/action/unhealthy_sample.txtar).
func TestReadmeJobSummary(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<!-- job-summary:begin (\S+) -->\n(.*?)<!-- job-summary:end -->`).FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatal("no job-summary block in docs/action.md")
	}
	ar, err := txtar.ParseFile(filepath.Join(repoRoot, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, f := range ar.Files {
		if f.Name == "GITHUB_STEP_SUMMARY" {
			want = string(f.Data)
		}
	}
	var quoted strings.Builder
	for _, line := range strings.SplitAfter(want, "\n") {
		switch {
		case line == "":
		case line == "\n":
			quoted.WriteString(">\n")
		default:
			quoted.WriteString("> " + line)
		}
	}
	if m[2] != quoted.String() {
		t.Errorf("docs/action.md's job summary differs from %s; quote its GITHUB_STEP_SUMMARY again:\n%s", m[1], quoted.String())
	}
}

// TestReadmeAnnotations: the annotations quoted in the README are the ones
// the action emits for the bundled sample, in its order: the error and
// warning lines of the scenario's step log.
func TestReadmeAnnotations(t *testing.T) {
	sec := readmeSection(t)
	m := regexp.MustCompile("(?s)<!-- annotations:begin (\\S+) -->\n```\n(.*?)```\n<!-- annotations:end -->").FindStringSubmatch(sec)
	if m == nil {
		t.Fatal("no annotations block in the README section")
	}
	ar, err := txtar.ParseFile(filepath.Join(repoRoot, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, f := range ar.Files {
		if f.Name != "stdout" {
			continue
		}
		for _, line := range strings.SplitAfter(string(f.Data), "\n") {
			if strings.HasPrefix(line, "::error ") || strings.HasPrefix(line, "::warning ") {
				want.WriteString(line)
			}
		}
	}
	if want.Len() == 0 {
		t.Fatalf("%s has no annotations in its stdout", m[1])
	}
	if m[2] != want.String() {
		t.Errorf("README's annotations differ from %s; quote them again:\n%s", m[1], want.String())
	}
}
