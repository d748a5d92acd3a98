package render_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestLevelsAgree: the table of levels gives every state a level in each
// format, and the formats agree: a state that is annotated is an error in
// SARIF too, a SARIF error is a GitLab critical issue and a JUnit failure
// or error, and a state of no finding passes JUnit or is skipped there.
// Every state of the legend but the stage-only ones is in the table.
func TestLevelsAgree(t *testing.T) {
	levels := render.StateLevels()
	seen := map[string]bool{}
	for _, l := range levels {
		seen[l.State] = true
		if l.Annotation != "" && l.Annotation != l.SARIF {
			t.Errorf("%s: annotation %q but SARIF %q", l.State, l.Annotation, l.SARIF)
		}
		switch l.SARIF {
		case "error":
			if l.GitLab != render.GitLabSeverityError || (l.JUnit != "failure" && l.JUnit != "error") {
				t.Errorf("%s: SARIF error but GitLab %q and JUnit %q", l.State, l.GitLab, l.JUnit)
			}
		case "":
			if l.GitLab != "" || l.Annotation != "" || (l.JUnit != "" && l.JUnit != "skipped") {
				t.Errorf("%s: no SARIF finding but GitLab %q, annotation %q, JUnit %q", l.State, l.GitLab, l.Annotation, l.JUnit)
			}
		default:
			t.Errorf("%s: SARIF level %q, want error or none", l.State, l.SARIF)
		}
	}
	for _, m := range render.StateMarks() {
		if !seen[m.State] && m.State != "pending" && m.State != "blocked" && m.State != "skipped" {
			t.Errorf("state %s has a mark but no levels", m.State)
		}
	}
	if got := render.Level("stalled"); got.Annotation != "error" || got.SARIF != "error" {
		t.Errorf("a stall is annotation %q and SARIF %q, want error in both", got.Annotation, got.SARIF)
	}
}

// TestFormatsDocLevels: docs/formats.md shows the table of levels as
// render.LevelsMarkdown writes it.
func TestFormatsDocLevels(t *testing.T) {
	if doc := readFormatsDoc(t); !strings.Contains(doc, "\n"+render.LevelsMarkdown()+"\n") {
		t.Errorf("docs/formats.md lacks the table of levels; paste render.LevelsMarkdown():\n%s", render.LevelsMarkdown())
	}
}
