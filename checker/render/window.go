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
	for _, p := range []struct {
		n    int
		word string
	}{{w.FoldedStateCounts.Succeeded, checker.RunSucceeded}, {w.FoldedStateCounts.Failed, checker.RunFailed},
		{w.FoldedStateCounts.Cancelled, checker.RunCancelled}, {w.FoldedStateCounts.Incomplete, checker.RunIncomplete}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	b.WriteString(" (" + strings.Join(parts, ", ") + "), counted above, not listed")
	return b.String()
}
