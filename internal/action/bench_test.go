package action

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"
)

// BenchmarkActionSample runs action mode in-process on the README's 27-line
// sample (its pipeline definition read and validated, the log checked, the
// step log, annotations, outputs and job summary written): everything of
// the JavaScript action's start-up but node, the module's compile and Go's
// package initialization, which bench/action.sh measures whole (budget: 300
// ms from node's start to its exit). GODEBUG=inittrace=1 shows the
// initialization, natively or in the module (docs/action.md).
func BenchmarkActionSample(b *testing.B) {
	b.Chdir(repoRoot)
	dir := b.TempDir()
	vars := map[string]string{
		"INPUT_EVENTS":        "testdata/sample/campaign_metrics.jsonl",
		"INPUT_PIPELINE":      "testdata/sample/pipeline.yaml",
		"INPUT_NOW":           "2026-11-28T06:00:00Z",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range []string{"output", "summary"} {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		gh := githubactions.New(githubactions.WithWriter(io.Discard), githubactions.WithGetenv(func(k string) string { return vars[k] }))
		if code := Main(Env{GH: gh, Now: time.Now, Token: func() (string, error) { return testToken, nil }}); code != 1 {
			b.Fatalf("exit %d, want 1 (the sample is unhealthy)", code)
		}
	}
}
