package render

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
)

// RecoveryIDs lists the identifiers of a run's recovery to copy, as
// "run r-1, stage 2, attempt 3, attempt_id a-7, owner local-pid://h/1",
// leaving out those that are null. Log text in it is NOT escaped.
func RecoveryIDs(rec *checker.Recovery) string {
	parts := []string{"run " + rec.RunID}
	if rec.Stage != nil {
		parts = append(parts, "stage "+rec.Stage.String())
	}
	if rec.Attempt != nil {
		parts = append(parts, fmt.Sprintf("attempt %d", *rec.Attempt))
	}
	if rec.AttemptID != nil {
		parts = append(parts, "attempt_id "+*rec.AttemptID)
	}
	if rec.Owner != nil {
		parts = append(parts, "owner "+*rec.Owner)
	}
	return strings.Join(parts, ", ")
}

// writeRecovery appends to b the recovery of one run that calls for one:
// the action and the identifiers, then the numbered steps, under a
// "recovery:" header when header is set (the first such run). It reports
// whether the run calls for one. Every piece of log text is escaped.
func writeRecovery(b *strings.Builder, r *checker.RunReport, header bool) bool {
	rec := &r.Recovery
	if rec.Action == checker.ActionNone && len(rec.Steps) == 0 {
		return false
	}
	if header {
		b.WriteString("recovery:\n")
	}
	fmt.Fprintf(b, "  %s (%s)\n", rec.Action, Terminal(RecoveryIDs(rec)))
	for i, step := range rec.Steps {
		fmt.Fprintf(b, "    %d. %s\n", i+1, TerminalMessage(step))
	}
	return true
}

// noticesText renders the snapshot's warnings and job-log inconsistencies,
// one per line, escaped.
func noticesText(s *checker.Snapshot) string {
	var b strings.Builder
	if line := WindowLine(s); line != "" {
		b.WriteString(line + "\n")
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s:%d: %s: %s\n", Terminal(fileName(w.File)), w.Line, w.Rule, TerminalMessage(w.Message))
	}
	if rc := s.Reconciliation; rc != nil {
		for _, inc := range rc.Inconsistencies {
			fmt.Fprintf(&b, "inconsistency: %s: %s\n", inc.Code, TerminalMessage(inc.Message))
		}
	}
	return b.String()
}

// recoveryMarkdown renders a run's recovery as a Markdown paragraph and an
// ordered list; all log text escaped.
func recoveryMarkdown(rec *checker.Recovery) string {
	if rec.Action == checker.ActionNone && len(rec.Steps) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Recovery: `%s`** (%s)\n\n", rec.Action, Markdown(RecoveryIDs(rec)))
	for i, s := range rec.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, Markdown(s))
	}
	return b.String()
}

// noticesMarkdown renders warnings and job-log inconsistencies as a Markdown
// list, or nothing.
func noticesMarkdown(s *checker.Snapshot) string {
	var items []string
	for _, w := range s.Warnings {
		items = append(items, fmt.Sprintf("- ⚠️ `%s` %s line %d: %s", w.Rule, Markdown(fileName(w.File)), w.Line, Markdown(w.Message)))
	}
	if rc := s.Reconciliation; rc != nil {
		for _, inc := range rc.Inconsistencies {
			items = append(items, fmt.Sprintf("- ❗ `%s`: %s", inc.Code, Markdown(inc.Message)))
		}
	}
	window := ""
	if line := WindowLine(s); line != "" {
		window = "_" + Markdown(line) + "._\n"
	}
	if len(items) == 0 {
		return window
	}
	if window != "" {
		window += "\n"
	}
	return window + "### Warnings and inconsistencies\n\n" + strings.Join(items, "\n") + "\n"
}
