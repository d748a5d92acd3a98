package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// repoRoot is the repository's root: actionlint's project, so that a
// workflow's uses: ./ reads action.yml.
var repoRoot, _ = filepath.Abs("../..")

// lint lints one workflow, named as if it were the file
// .github/workflows/name, with actionlint v1.7.12 on the repository, and
// returns its findings as "kind: message".
func lint(t *testing.T, name string, src []byte) []string {
	t.Helper()
	proj, err := actionlint.NewProject(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	l, err := actionlint.NewLinter(&bytes.Buffer{}, &actionlint.LinterOptions{WorkingDir: repoRoot, Color: actionlint.ColorOptionKindNever})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(filepath.Join(repoRoot, ".github", "workflows", name), src, proj)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range errs {
		out = append(out, e.Kind+": "+e.Message)
	}
	return out
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// yamlBlocks returns the fenced yaml blocks of a Markdown text.
func yamlBlocks(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// published matches a use of a greenlight release: @v1, @v1.2.3.
// published matches a workflow's use of greenlight's action at a release
// tag, a commit SHA, or main (which the README shows until the first
// release is tagged: docs/release.md).
var published = regexp.MustCompile(`uses: greenlight-ci/greenlight@(v[0-9.]+|[0-9a-f]{40}|main)\b`)

// local replaces the published action with this checkout (uses: ./), so
// that the inputs a documented workflow passes are checked against
// action.yml; a workflow that does not use the published action fails.
func local(t *testing.T, where, wf string) []byte {
	t.Helper()
	out := published.ReplaceAllString(wf, "uses: ./")
	if out == wf {
		t.Errorf("%s does not use greenlight-ci/greenlight at a release tag, a commit SHA or main", where)
	}
	return []byte(out)
}

// TestWorkflows lints every workflow of .github/workflows; one that uses
// the action with uses: ./ makes actionlint read action.yml too and check
// its metadata and the inputs passed.
func TestWorkflows(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows under .github/workflows: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		for _, m := range lint(t, name, []byte(readFile(t, filepath.Join(".github", "workflows", name)))) {
			t.Errorf("%s: %s", name, m)
		}
	}
}

// TestCatchesMistakes: a workflow that misspells the required events input,
// passes an input the action does not have and reads an output it does not
// set must fail the lint, so the lints above cannot pass vacuously.
func TestCatchesMistakes(t *testing.T) {
	bad := `on: push
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
      - id: gl
        uses: ./
        with:
          event: logs/*.jsonl
          fail-on-unhealty: 'false'
      - run: echo "${{ steps.gl.outputs.verdikt }}"
`
	got := strings.Join(lint(t, "bad.yml", []byte(bad)), "\n")
	for _, want := range []string{
		`missing input "events" which is required by action "greenlight pipeline health gate"`,
		`input "event" is not defined in action "greenlight pipeline health gate"`,
		`input "fail-on-unhealty" is not defined in action "greenlight pipeline health gate"`,
		`property "verdikt" is not defined`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("actionlint did not report %q; it reported:\n%s", want, got)
		}
	}
}

// TestReadmeWorkflows lints the example workflow of the README's "Use it
// in GitHub Actions" section (gating a deploy) against this checkout's
// action.yml.
func TestReadmeWorkflows(t *testing.T) {
	_, sec, ok := strings.Cut(readFile(t, "README.md"), "\n## Use it in GitHub Actions\n")
	if !ok {
		t.Fatal(`README.md has no "Use it in GitHub Actions" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	blocks := yamlBlocks(sec)
	if len(blocks) != 1 {
		t.Fatalf("%d yaml blocks in the section, want 1 (gating a deploy)", len(blocks))
	}
	for i, b := range blocks {
		for _, m := range lint(t, "readme.yml", local(t, "README workflow", b)) {
			t.Errorf("README workflow %d: %s", i+1, m)
		}
		// actionlint knows the inputs, not their rules: the snapshot input
		// needs exactly one event log, so a glob in events can fail the step.
		if ev := regexp.MustCompile(`(?m)^\s+events:\s*(.*)$`).FindStringSubmatch(b); ev != nil && strings.Contains(b, "snapshot:") && strings.ContainsAny(ev[1], "*?[{|") {
			t.Errorf("README workflow %d gives the snapshot input with events %q; action mode writes a snapshot of exactly one event log", i+1, ev[1])
		}
	}
}

// TestDocsWorkflows lints the GitHub workflows of docs/formats.md and
// docs/merge.md (a JUnit report, a SARIF upload, a matrix roll-up), the one
// of docs/emit.md and the matrix roll-up of docs/action.md, with the
// published action replaced by this checkout.
func TestDocsWorkflows(t *testing.T) {
	n := 0
	for _, b := range yamlBlocks(readFile(t, "docs/formats.md") + readFile(t, "docs/merge.md")) {
		if !strings.Contains(b, "\njobs:\n") {
			continue
		}
		n++
		src := []byte(published.ReplaceAllString(b, "uses: ./"))
		for _, m := range lint(t, "formats.yml", src) {
			t.Errorf("workflow %d of docs/formats.md and docs/merge.md: %s", n, m)
		}
	}
	if n != 3 {
		t.Errorf("%d GitHub workflows in docs/formats.md and docs/merge.md, want 3 (JUnit report, SARIF upload, matrix roll-up)", n)
	}
	_, after, ok := strings.Cut(readFile(t, "docs/emit.md"), "\n### GitHub Actions\n")
	if !ok || len(yamlBlocks(after)) == 0 {
		t.Fatal(`docs/emit.md has no yaml block after "### GitHub Actions"`)
	}
	for _, m := range lint(t, "emit-doc.yml", local(t, "the docs/emit.md workflow", yamlBlocks(after)[0])) {
		t.Errorf("docs/emit.md workflow: %s", m)
	}
	_, block, ok := strings.Cut(readFile(t, "docs/action.md"), "<!-- merge-workflow:begin -->\n```yaml\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- merge-workflow:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/action.md has no merge-workflow block")
	}
	wf := local(t, "the docs/action.md merge workflow", block)
	if n := bytes.Count(wf, []byte("uses: ./")); n != 2 {
		t.Fatalf("the docs/action.md merge workflow uses the action %d times, want 2", n)
	}
	for _, m := range lint(t, "merge.yml", wf) {
		t.Errorf("docs/action.md merge workflow: %s", m)
	}
}
