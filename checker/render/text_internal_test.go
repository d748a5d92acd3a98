package render

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestSecondPass: when the recovery blocks (text) or unhealthy-run details
// (Markdown) of a listing of every run (ListOptions.All) are more than the
// writer keeps, it writes them from a second
// pass over the runs, and the bytes are the same (here the bundled sample,
// with nothing kept).
func TestSecondPass(t *testing.T) {
	log, err := os.ReadFile("../../testdata/sample/campaign_metrics.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	pipeline, err := os.ReadFile("../../testdata/sample/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def, err := checker.ParseDefinition(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(string(log)), checker.Options{Definition: def, Now: time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)})
	if err != nil || res.Snapshot == nil {
		t.Fatal(err, res.Report.Violations)
	}
	var all strings.Builder
	if err := WriteTextOptions(&all, res.Snapshot, TextOptions{List: ListOptions{All: true}}); err != nil {
		t.Fatal(err)
	}
	want := all.String()
	if !strings.Contains(want, "recovery:\n  confirm_stopped") || !strings.Contains(want, "\n  rerun (run") {
		t.Fatalf("the sample has no recovery block:\n%s", want)
	}
	var b strings.Builder
	if err := writeText(&b, res.Snapshot, 0, false); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("second pass:\n%s\nwant:\n%s", b.String(), want)
	}
	wantMD := MarkdownReport(res.Snapshot, MarkdownOptions{List: ListOptions{All: true}})
	if !strings.Contains(wantMD, "### Unhealthy runs") {
		t.Fatalf("the sample has no unhealthy run:\n%s", wantMD)
	}
	b.Reset()
	if err := writeMarkdownReport(&b, res.Snapshot, MarkdownOptions{List: ListOptions{All: true}}, 0); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantMD {
		t.Errorf("second pass:\n%s\nwant:\n%s", b.String(), wantMD)
	}
}

// TestWriteRecoveryEscapesInPlace: a recovery step is a message
// (docs/contract.md, "Messages"): a control character or bidi override
// from the log becomes its escape in place, and the step is not quoted
// whole for a quote it holds; the identifiers, which are values, are
// quoted when they need it.
func TestWriteRecoveryEscapesInPlace(t *testing.T) {
	r := &checker.RunReport{Recovery: checker.Recovery{
		Action: checker.ActionRerun,
		RunID:  "r\x1b]0;x",
		Steps:  []string{"Attempt 1 of stage 2 in run r\x1b]0;x (line 2 of \"ev\u202e.jsonl\") failed."},
	}}
	var b strings.Builder
	if !writeRecovery(&b, r, true) {
		t.Fatal("no recovery written")
	}
	want := "recovery:\n" +
		"  rerun (\"run r\\x1b]0;x\")\n" +
		"    1. Attempt 1 of stage 2 in run r\\x1b]0;x (line 2 of \"ev\\u202e.jsonl\") failed.\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
