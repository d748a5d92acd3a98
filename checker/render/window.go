package render

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// WindowLine says what a check with a window (docs/window.md) left out of
// the runs it lists: "window 7d (from 2026-01-01T00:00:00Z): 2 older runs
// folded (1 succeeded, 1 failed), counted above, not listed"; "" without a
// window. It holds no log text.
func WindowLine(s *checker.Snapshot) string {
	w := s.Window
	if w == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("window " + w.Window)
	if w.Cutoff != nil {
		b.WriteString(" (from " + *w.Cutoff + ")")
	}
	b.WriteString(": ")
	if w.FoldedRunCount == 0 {
		b.WriteString("no run folded")
		return b.String()
	}
	fmt.Fprintf(&b, "%s folded", words.Count(w.FoldedRunCount, "older run"))
	var parts []string
	for _, f := range foldedByState(w) {
		if f.runs > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", f.runs, f.state))
		}
	}
	b.WriteString(" (" + strings.Join(parts, ", ") + "), counted above, not listed")
	return b.String()
}

// foldedRuns is how many of a window's folded runs are in one state.
type foldedRuns struct {
	state string
	runs  int
}

// foldedByState lists the folded runs of w by state, every state a folded
// run can be in (it has ended), succeeded first: the one place that reads
// the fields of FoldedStateCounts.
func foldedByState(w *checker.WindowReport) [4]foldedRuns {
	c := w.FoldedStateCounts
	return [4]foldedRuns{{checker.RunSucceeded, c.Succeeded}, {checker.RunFailed, c.Failed}, {checker.RunCancelled, c.Cancelled}, {checker.RunIncomplete, c.Incomplete}}
}
