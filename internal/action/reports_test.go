package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReports writes every CI format through the reports input for the
// bundled sample: the files are the goldens of checker/render, and the
// step's exit code, outputs and summary are as without the input.
func TestReports(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for _, f := range []struct{ format, golden string }{
		{"junit", "sample.junit.xml"}, {"sarif", "sample.sarif.json"}, {"gitlab", "sample.gitlab.json"},
	} {
		lines = append(lines, f.format+"="+filepath.Join(dir, f.golden))
	}
	lines = append(lines, " openmetrics = "+filepath.Join(dir, "sample.om"))
	env := map[string]string{
		"INPUT_EVENTS":   "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE": "testdata/sample/pipeline.yaml",
		"INPUT_NOW":      "2026-11-28T06:00:00Z",
	}
	plain := runAction(t, env)
	env["INPUT_REPORTS"] = strings.Join(lines, "\n") + "\n"
	got := runAction(t, env)
	if got.Exit != 1 || got.Exit != plain.Exit || got.Output != plain.Output || got.Summary != plain.Summary {
		t.Errorf("with reports: exit %d, outputs and summary differ: %v", got.Exit, got.Output != plain.Output || got.Summary != plain.Summary)
	}
	for _, name := range []string{"sample.junit.xml", "sample.sarif.json", "sample.gitlab.json"} {
		want, err := os.ReadFile(filepath.Join(repoRoot, "checker/render/testdata/formats", name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(have) != string(want) {
			t.Errorf("%s differs from checker/render's golden:\n%s", name, have)
		}
	}
	om, err := os.ReadFile(filepath.Join(dir, "sample.om"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(om), "greenlight_runs{pipeline=\"campaign_metrics\",state=\"failed\"} 1\n") || !strings.HasSuffix(string(om), "\n# EOF\n") {
		t.Errorf("the OpenMetrics report:\n%s", om)
	}
}

// TestReportsInput refuses a reports input that is not FORMAT=PATH lines.
func TestReportsInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"junit", `reports line "junit": write FORMAT=PATH, FORMAT one of junit, sarif, gitlab, openmetrics`},
		{"xml=a.xml", `reports line "xml=a.xml": write FORMAT=PATH, FORMAT one of junit, sarif, gitlab, openmetrics`},
		{"junit=\njunit=a", `reports line "junit=": write FORMAT=PATH, FORMAT one of junit, sarif, gitlab, openmetrics`},
		{"junit=a\njunit=b", "reports: junit is given twice"},
	} {
		got := runAction(t, map[string]string{"INPUT_EVENTS": "testdata/sample/campaign_metrics.jsonl", "INPUT_STAGES": "1,2", "INPUT_REPORTS": c.in})
		if got.Exit != 2 || !strings.Contains(got.Stdout, "::error::greenlight action: "+c.want+"\n") {
			t.Errorf("reports %q: exit %d, step log:\n%s", c.in, got.Exit, got.Stdout)
		}
	}
}
