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
	case checker.RunOverdue:
		return "⌛"
	case checker.RunRunning:
		return "⏳"
	case StateMissed:
		return "🚫"
	case checker.RunIncomplete, checker.StagePending:
		return "⚠️"
	case checker.RunUnknown:
		return "❓"
	case checker.RunCancelled:
		return "🚫"
	case checker.StageBlocked:
		return "⛔"
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
	if RowCount(s) == 0 {
		b.WriteString("No run in the log: an empty log proves nothing.\n")
		if s.Schedule != nil {
			markdownSchedule(&b, s)
		}
		return b.String()
	}
	b.WriteString("| run | state | stages succeeded | attempts | duration | detail |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	shown := 0
	EachRow(s, func(row Row) bool {
		if o.MaxRuns > 0 && shown == o.MaxRuns {
			what := "runs"
			if missed, _ := MissedCount(s); missed > 0 {
				what = "rows"
			}
			fmt.Fprintf(&b, "\n_%d more %s not shown._\n", RowCount(s)-shown, what)
			return false
		}
		shown++
		if row.Missed != nil {
			// The summary holds only slot times greenlight formatted, no log text.
			fmt.Fprintf(&b, "| _no run_ | %s %s | | | | %s |\n", stateIcon(StateMissed), StateMissed, MissedSummary(row.Missed))
			return true
		}
		r := row.Run
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
	if s.Schedule != nil {
		markdownSchedule(&b, s)
	}
	if n := noticesMarkdown(s); n != "" {
		b.WriteString("\n" + n)
	}
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
		if rec := recoveryMarkdown(&r.Recovery); rec != "" {
			b.WriteString(rec + "\n")
		}
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

// markdownSchedule renders the schedule section: the schedule line, a table
// of the judged slots with their runs' states and the notes on late,
// duplicate and unscheduled runs.
func markdownSchedule(b *strings.Builder, s *checker.Snapshot) {
	sr := s.Schedule
	fmt.Fprintf(b, "\n### Schedule\n\n%s.\n", ScheduleLine(s, Markdown))
	if len(sr.Slots) > 0 {
		// The states of the runs that fill judged slots (at most
		// lookback_slots of them), in one pass over the runs.
		states := map[string]string{}
		for _, sl := range sr.Slots {
			if sl.RunID != nil {
				states[*sl.RunID] = ""
			}
		}
		s.EachRun(func(r *checker.RunReport) bool {
			if st, ok := states[r.RunID]; ok && st == "" {
				states[r.RunID] = r.State
			}
			return true
		})
		b.WriteString("\n| slot | due by | slot status | run | run state |\n|---|---|---|---|---|\n")
		for _, sl := range sr.Slots {
			if sl.RunID == nil {
				fmt.Fprintf(b, "| %s | %s | %s %s | | |\n", sl.ScheduledFor, sl.DueAt, stateIcon(StateMissed), StateMissed)
				continue
			}
			st := states[*sl.RunID]
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s |\n", sl.ScheduledFor, sl.DueAt, strings.ReplaceAll(sl.Status, "_", " "), Markdown(*sl.RunID), stateIcon(st), st)
		}
	}
	if notes := ScheduleNotes(s, Markdown); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
}
