package render

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
)

// stateIcon marks a run or stage state for people scanning a table.
func stateIcon(state string) string {
	switch state {
	case checker.RunSucceeded:
		return "✅"
	case checker.RunFailed:
		return "❌"
	case checker.RunStalled:
		return "⏸️"
	case checker.RunRunning:
		return "⏳"
	case checker.RunIncomplete, checker.StagePending:
		return "⚠️"
	}
	return "❔"
}

// MarkdownOptions bound a Markdown rendering. MaxRuns caps the rows of the
// runs table and the unhealthy-run details (0: no cap).
type MarkdownOptions struct {
	MaxRuns int
}

// MarkdownReport renders a snapshot as a Markdown report: the verdict headline, a
// table of runs, and the details of every unhealthy run. All log text is
// escaped with Markdown.
func MarkdownReport(s *checker.Snapshot, o MarkdownOptions) string {
	var b strings.Builder
	icon := "✅"
	if s.Verdict != checker.VerdictHealthy {
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s greenlight: %s\n\n", icon, s.Verdict)
	fmt.Fprintf(&b, "%s. Judged at %s; log %s (%d events, sha256 %s).\n\n",
		Markdown(Headline(s)), s.GeneratedAtUTC, Markdown(fileName(s.Source.Path)), s.Source.EventCount, s.Source.SHA256[:12])
	if s.RunCount == 0 {
		b.WriteString("No run in the log: an empty log proves nothing.\n")
		return b.String()
	}
	b.WriteString("| run | state | stages succeeded | attempts | duration | detail |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	shown := 0
	s.EachRun(func(r *checker.RunReport) bool {
		if o.MaxRuns > 0 && shown == o.MaxRuns {
			fmt.Fprintf(&b, "\n_%d more runs not shown._\n", s.RunCount-shown)
			return false
		}
		shown++
		ok := 0
		for _, st := range r.Stages {
			if st.State == checker.StageSucceeded {
				ok++
			}
		}
		d := Detail(r)
		detail := ""
		if r.State != checker.RunSucceeded {
			detail = Markdown(d.Summary)
			if d.HasErr {
				detail += ": " + Markdown(d.Error)
			}
		}
		fmt.Fprintf(&b, "| %s | %s %s | %d/%d | %d | %s | %s |\n",
			Markdown(r.RunID), stateIcon(r.State), r.State, ok, len(r.Stages), attemptCount(r), Duration(r.DurationSeconds), detail)
		return true
	})
	unhealthy := 0
	s.EachRun(func(r *checker.RunReport) bool {
		if r.State == checker.RunSucceeded {
			return true
		}
		if o.MaxRuns > 0 && unhealthy == o.MaxRuns {
			b.WriteString("\n_More unhealthy runs not shown._\n")
			return false
		}
		if unhealthy == 0 {
			b.WriteString("\n### Unhealthy runs\n")
		}
		unhealthy++
		fmt.Fprintf(&b, "\n#### %s run %s: %s\n\n", stateIcon(r.State), Markdown(r.RunID), r.State)
		b.WriteString("| stage | state | attempt | status | started | ended | returncode | error |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for k := range r.Stages {
			st := &r.Stages[k]
			if len(st.Attempts) == 0 {
				fmt.Fprintf(&b, "| %s | %s %s | | | | | | |\n", Markdown(StageLabel(st)), stateIcon(st.State), st.State)
				continue
			}
			for _, a := range st.Attempts {
				ended, rc, errText := "", "", ""
				if a.EndedAt != nil {
					ended = *a.EndedAt
				} else if a.SilentForSeconds != nil {
					ended = "silent " + Duration(*a.SilentForSeconds)
				}
				if a.Returncode != nil {
					rc = fmt.Sprint(*a.Returncode)
				}
				if a.Error != nil {
					errText = Markdown(*a.Error)
				}
				fmt.Fprintf(&b, "| %s | %s %s | %d | %s | %s | %s | %s | %s |\n",
					Markdown(StageLabel(st)), stateIcon(st.State), st.State, a.Attempt, a.Status, a.StartedAt, ended, rc, errText)
			}
		}
		return true
	})
	return b.String()
}

// ViolationsMarkdown renders a violations report as a Markdown table, listing
// at most max rows (0: all that the report lists).
func ViolationsMarkdown(r *checker.Report, max int) string {
	var b strings.Builder
	if r.Valid {
		b.WriteString("## ✅ greenlight: the event logs follow the contract\n\nNo violation found.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "## ⛔ greenlight: invalid event log\n\n%d contract violations: nothing in this log is evidence until they are fixed.\n\n", r.ViolationCount)
	b.WriteString("| file | line | rule | message |\n|---|---|---|---|\n")
	listed := 0
	for _, v := range r.Violations {
		if max > 0 && listed == max {
			break
		}
		listed++
		fmt.Fprintf(&b, "| %s | %d | `%s` | %s |\n", Markdown(fileName(v.File)), v.Line, v.Rule, Markdown(v.Message))
	}
	if rest := r.ViolationCount - listed; rest > 0 {
		fmt.Fprintf(&b, "\n_%d more violations not listed._\n", rest)
	}
	return b.String()
}
