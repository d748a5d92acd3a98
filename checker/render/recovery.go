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
	if len(rec.Actions) < 2 {
		writeRecoveryAction(b, "", rec)
		return true
	}
	for i := range rec.Actions {
		one := actionAt(rec, i)
		writeRecoveryAction(b, fmt.Sprintf("%d of %d: ", rec.Actions[i].Order, len(rec.Actions)), &one)
	}
	return true
}

// writeRecoveryAction appends one action of a run's recovery, its number
// (as "2 of 3: ", or nothing for a run's only action), the action and the
// identifiers, then the numbered steps; log text escaped.
func writeRecoveryAction(b *strings.Builder, number string, rec *checker.Recovery) {
	fmt.Fprintf(b, "  %s%s (%s)\n", number, rec.Action, Terminal(RecoveryIDs(rec)))
	for i, step := range rec.Steps {
		fmt.Fprintf(b, "    %d. %s\n", i+1, TerminalMessage(step))
	}
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
	b.WriteString(requestsText(s)) // requests.go
	return b.String()
}

// recoveryMarkdown renders a run's recovery as a Markdown paragraph and an
// ordered list; all log text escaped.
func recoveryMarkdown(rec *checker.Recovery) string {
	if rec.Action == checker.ActionNone && len(rec.Steps) == 0 {
		return ""
	}
	var b strings.Builder
	if len(rec.Actions) < 2 {
		fmt.Fprintf(&b, "**Recovery: `%s`** (%s)\n\n", rec.Action, Markdown(RecoveryIDs(rec)))
		for i, s := range rec.Steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, Markdown(s))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "**Recovery: %d actions, in the runbook's order**\n\n", len(rec.Actions))
	for i := range rec.Actions {
		one := actionAt(rec, i)
		fmt.Fprintf(&b, "%d. `%s` (%s)\n", rec.Actions[i].Order, one.Action, Markdown(RecoveryIDs(&one)))
		for k, s := range one.Steps {
			fmt.Fprintf(&b, "   %d. %s\n", k+1, Markdown(s))
		}
	}
	return b.String()
}

// htmlAction is one numbered action of a run's recovery in the HTML
// report; its texts are escaped by the template.
type htmlAction struct {
	Order       int
	Action, IDs string
	Steps       []string
}

// htmlActions copies a run's actions for the HTML report when it has more
// than one (a run's only action shows as Action, ActionIDs and Steps).
func htmlActions(rec *checker.Recovery) []htmlAction {
	if len(rec.Actions) < 2 {
		return nil
	}
	out := make([]htmlAction, len(rec.Actions))
	for i := range rec.Actions {
		one := actionAt(rec, i)
		out[i] = htmlAction{Order: rec.Actions[i].Order, Action: string(one.Action), IDs: RecoveryIDs(&one), Steps: append([]string(nil), one.Steps...)}
	}
	return out
}

// junitRecovery writes a run's recovery into a JUnit failure's body: each
// action and its numbered steps (the body is escaped as a whole).
func junitRecovery(body *strings.Builder, rec *checker.Recovery) {
	if len(rec.Actions) < 2 {
		fmt.Fprintf(body, "recovery: %s\n", rec.Action)
		for i, step := range rec.Steps {
			fmt.Fprintf(body, "  %d. %s\n", i+1, step)
		}
		return
	}
	for i := range rec.Actions {
		one := actionAt(rec, i)
		fmt.Fprintf(body, "recovery %d of %d: %s (%s)\n", rec.Actions[i].Order, len(rec.Actions), one.Action, RecoveryIDs(&one))
		for k, step := range one.Steps {
			fmt.Fprintf(body, "  %d. %s\n", k+1, step)
		}
	}
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
	requests := requestsMarkdown(s) // requests.go
	if requests != "" {
		requests = "\n" + requests
	}
	if len(items) == 0 {
		return window + requests
	}
	if window != "" {
		window += "\n"
	}
	return window + "### Warnings and inconsistencies\n\n" + strings.Join(items, "\n") + "\n" + requests
}

// actionAt returns action i of rec.Actions as a Recovery of its own (the
// run's id, the action's identifiers and steps, no Actions), so that each
// action is shown as a run's one action is.
func actionAt(rec *checker.Recovery, i int) checker.Recovery {
	a := &rec.Actions[i]
	return checker.Recovery{Action: a.Action, RunID: rec.RunID, Stage: a.Stage, Attempt: a.Attempt, AttemptID: a.AttemptID, Owner: a.Owner, Steps: a.Steps}
}
