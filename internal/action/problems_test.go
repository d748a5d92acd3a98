package action

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// problems runs a finder through action mode's one pass over the runs
// (readRuns) and returns its result.
func problems(logs []render.LogResult, mode string, gate checker.Gate, keep int) (top []annotation, total, unlisted int) {
	f := &finder{mode: mode, gate: gate, keep: keep}
	readRuns(logs, mode, f)
	return f.result()
}

// TestProblemsKeepsTheFirst: problems holds only the annotations it can
// emit (docs/action.md), and they are the first of the
// whole ranking, for every budget: failed and unknown stages before stalled
// ones, latest run first, on a streamed snapshot.
func TestProblemsKeepsTheFirst(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	day := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	for i := range 12 {
		at := day.AddDate(0, 0, i)
		fmt.Fprintf(&b, `{"run_id":"r-%02d","stage":1,"attempt":1,"status":"started","timestamp_utc":"%s"}`+"\n", i, at.Format(time.RFC3339))
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"run_id":"r-%02d","stage":1,"attempt":1,"status":"failed","timestamp_utc":"%s","error":"e%d"}`+"\n", i, at.Add(time.Minute).Format(time.RFC3339), i)
		case 1:
			fmt.Fprintf(&b, `{"run_id":"r-%02d","stage":1,"attempt":1,"status":"unknown","timestamp_utc":"%s","reason":"gone"}`+"\n", i, at.Add(time.Minute).Format(time.RFC3339))
		} // case 2 stays started: stalled by now
	}
	res, err := checker.Check(strings.NewReader(b.String()), checker.Options{Definition: def, Now: day.AddDate(0, 1, 0), File: "x.jsonl"})
	if err != nil || res.Snapshot == nil {
		t.Fatal(err, res.Report.Violations)
	}
	logs := []render.LogResult{{File: "x.jsonl", Snapshot: res.Snapshot, Report: res.Report}}
	all, total, _ := problems(logs, ModeCheck, checker.GateAll, 1000)
	if total != 12 || len(all) != 12 {
		t.Fatalf("%d annotations of %d, want 12", len(all), total)
	}
	if !strings.HasSuffix(all[0].title, "in run r-10") || !strings.Contains(all[len(all)-1].title, "stalled in run r-02") {
		t.Errorf("ranking: first %q, last %q", all[0].title, all[len(all)-1].title)
	}
	for keep := 1; keep <= 12; keep++ {
		top, n, _ := problems(logs, ModeCheck, checker.GateAll, keep)
		if n != total || !slices.Equal(top, all[:keep]) {
			t.Errorf("keep %d: %d of %d, not the first of the ranking", keep, len(top), n)
		}
	}
}

// TestStepLogPieces: the step log written in pieces of whole lines is the
// text Infof prints when given it whole, for text over several pieces, with
// and without a last line break, and with empty lines.
func TestStepLogPieces(t *testing.T) {
	var text strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&text, "  run-%05d  succeeded  2 stages\n", i)
		if i%5000 == 0 {
			text.WriteString("\n")
		}
	}
	for _, s := range []string{text.String(), text.String() + "tail without a line break", "one line\n"} {
		var whole, pieces strings.Builder
		githubactions.New(githubactions.WithWriter(&whole)).Infof("%s", strings.TrimSuffix(s, "\n"))
		b := &stepLog{gh: githubactions.New(githubactions.WithWriter(&pieces))}
		for rest := s; rest != ""; {
			n := min(len(rest), 1000)
			io.WriteString(b, rest[:n])
			rest = rest[n:]
		}
		b.flush()
		if pieces.String() != whole.String() {
			t.Errorf("%d bytes: pieces differ from one Infof (%d vs %d bytes)", len(s), pieces.Len(), whole.Len())
		}
	}
}
