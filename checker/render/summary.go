package render

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// JobSummaryLimit is the size in bytes above which the GitHub runner drops a
// step's job summary entirely (1 MiB). JobSummary stays below it, by
// default with a margin of 1 KiB for the line ending the writer adds.
const JobSummaryLimit = 1 << 20

// MaxSummaryTextRunes is how many characters of one error message or
// violation message a job summary shows before it cuts the text with "…".
const MaxSummaryTextRunes = 500

// LogResult is one event log's outcome, as a job summary shows it: its name
// as the user gave it and either its snapshot (the log is valid) or its
// violations report (Snapshot nil: the log is invalid).
type LogResult struct {
	File     string
	Snapshot *checker.Snapshot
	Report   *checker.Report
	// Selected, when not nil, is a Selector with the default caps that the
	// caller offered every run of Snapshot: the job summary then takes its
	// runs table from it (MarkdownOptions.Selected) instead of reading the
	// runs again.
	Selected *Selector
}

// SummaryMode says what the job summary is about: health (check) or only the
// event contract (validate).
type SummaryMode string

// The job summary modes, named like the action's mode input.
const (
	SummaryCheck    SummaryMode = "check"
	SummaryValidate SummaryMode = "validate"
)

// JobSummary renders the GitHub job summary of one action step: in check
// mode the verdict headline, the table of runs (the default listing: the
// latest unhealthy runs and missed slots, then the latest runs, as the text
// output lists them) and the details of each listed unhealthy run of every
// log (or its violations when it is invalid), then a
// Mermaid gantt chart of the latest run's attempts; in validate mode the
// violations table of all logs. All log text is escaped (Markdown, Mermaid)
// and cut at MaxSummaryTextRunes characters. The result is at most limit
// bytes (limit <= 0 or above JobSummaryLimit - 1024 means JobSummaryLimit -
// 1024): when
// it would be larger, the tables list fewer rows and say how many they left
// out.
func JobSummary(mode SummaryMode, logs []LogResult, limit int) string {
	s, _ := JobSummaryComplete(mode, logs, limit)
	return s
}

// JobSummaryComplete is JobSummary, and reports whether the summary lists
// every row its tables list by default (the default listing of each log's
// runs, Select's, and every violation each report lists): false when it had
// to list fewer to stay under the limit.
func JobSummaryComplete(mode SummaryMode, logs []LogResult, limit int) (string, bool) {
	if limit <= 0 || limit > JobSummaryLimit-1024 {
		limit = JobSummaryLimit - 1024
	}
	clipped := make([]LogResult, len(logs))
	rows := 0
	for i, l := range logs {
		clipped[i] = clipLog(l)
		if l.Snapshot != nil {
			rows = max(rows, min(RowCount(l.Snapshot), DefaultMaxUnhealthy+DefaultLatestRuns))
		}
		if l.Report != nil {
			rows = max(rows, len(l.Report.Violations))
		}
	}
	// Halve the rows listed until the summary fits; rowCap 0 lists the
	// default rows. Each try is written into a buffer that holds at most
	// limit+1 bytes and stops writing once it is full, so that a
	// snapshot of millions of runs costs no more memory than the summary
	// itself.
	for rowCap := 0; ; {
		s, fits := jobSummary(mode, clipped, rowCap, limit)
		if fits {
			return s, rowCap == 0
		}
		switch {
		case rowCap == 0 && rows > 1:
			rowCap = rows / 2
		case rowCap > 1:
			rowCap /= 2
		default:
			return cutSummary(s, limit), false
		}
	}
}

// cappedBuilder collects at most limit+1 bytes; a write past them keeps
// what fits and fails, so that a renderer stops early.
type cappedBuilder struct {
	strings.Builder
	limit int
	full  bool
}

var errSummaryFull = errors.New("render: the job summary is over its limit")

func (c *cappedBuilder) Write(p []byte) (int, error) {
	if c.full {
		return 0, errSummaryFull
	}
	if room := c.limit + 1 - c.Len(); len(p) > room {
		c.Builder.Write(p[:room])
		c.full = true
		return room, errSummaryFull
	}
	return c.Builder.Write(p)
}

func (c *cappedBuilder) WriteString(s string) (int, error) { return c.Write([]byte(s)) }

// cutSummary cuts s at a line boundary so that it and a closing note fit in
// limit bytes; it is the last resort when even one row per table is too much
// (thousands of logs).
func cutSummary(s string, limit int) string {
	const note = "\n_The job summary was cut here to stay under the runner's 1 MiB limit._\n"
	end := limit - len(note)
	if end < 0 {
		return ""
	}
	if i := strings.LastIndexByte(s[:end], '\n'); i >= 0 {
		end = i + 1
	} else {
		end = 0
	}
	return s[:end] + note
}

// jobSummary renders the job summary listing at most rowCap rows a table,
// and reports whether it fits in limit bytes; when it does not, the text
// returned is its first limit+1 bytes.
func jobSummary(mode SummaryMode, logs []LogResult, rowCap, limit int) (string, bool) {
	b := &cappedBuilder{limit: limit}
	jobSummaryTo(b, mode, logs, rowCap)
	return b.String(), !b.full && b.Len() <= limit
}

func jobSummaryTo(b *cappedBuilder, mode SummaryMode, logs []LogResult, rowCap int) {
	if mode == SummaryValidate {
		all := checker.NewReport()
		events := 0
		for _, l := range logs {
			if l.Report != nil {
				all.Merge(l.Report, 0)
			}
			if l.Snapshot != nil {
				events += l.Snapshot.Source.EventCount
			}
		}
		b.WriteString(ViolationsMarkdown(all, rowCap))
		fmt.Fprintf(b, "\nChecked %s", words.Count(len(logs), "log"))
		if all.Valid {
			fmt.Fprintf(b, " (%s)", words.Count(events, "event"))
		}
		b.WriteString(": ")
		for i, l := range logs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(Markdown(fileName(l.File)))
		}
		b.WriteString(".\n")
		return
	}
	if len(logs) > 1 {
		writeLogsOverview(b, logs)
	}
	for i, l := range logs {
		if b.full {
			return
		}
		if i > 0 || len(logs) > 1 {
			b.WriteString("\n")
		}
		if l.Snapshot == nil {
			b.WriteString(ViolationsMarkdown(l.Report, rowCap))
			continue
		}
		WriteMarkdownReport(b, l.Snapshot, MarkdownOptions{MaxRuns: rowCap, MaxErrorRunes: MaxSummaryTextRunes, Selected: l.Selected})
	}
	if b.full {
		return
	}
	b.WriteString("\n" + LegendMarkdown())
	if run := LatestRun(logs); run != nil {
		b.WriteString("\n### Latest run: " + Markdown(run.Run.RunID) + "\n\n")
		b.WriteString(Gantt(run.Run, run.Now))
	}
}

// writeLogsOverview writes the combined verdict and one table row per log,
// for a summary of several logs.
func writeLogsOverview(b io.Writer, logs []LogResult) {
	verdict := OverallVerdict(logs)
	icon := "✅"
	if verdict != checker.VerdictHealthy {
		icon = "❌"
	}
	fmt.Fprintf(b, "# %s greenlight: %s (%s)\n\nEach log is judged on its own; the verdict is healthy only when every log is valid and healthy.\n\n", icon, verdict, words.Count(len(logs), "log"))
	io.WriteString(b, "| log | verdict | runs |\n|---|---|---|\n")
	for _, l := range logs {
		if l.Snapshot == nil {
			fmt.Fprintf(b, "| %s | ⛔ invalid: %s | |\n", Markdown(fileName(l.File)), words.Count(l.Report.ViolationCount, "violation"))
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", Markdown(fileName(l.File)), l.Snapshot.Verdict, countsLine(l.Snapshot.StateCounts))
	}
}

// VerdictInvalid is the combined verdict when any log breaks the event
// contract.
const VerdictInvalid = "invalid"

// OverallVerdict combines the verdicts of several logs, each judged on its
// own: invalid when any log is invalid, else healthy only when every log is
// healthy (and there is at least one), else unhealthy.
func OverallVerdict(logs []LogResult) string {
	if len(logs) == 0 {
		return checker.VerdictUnhealthy
	}
	verdict := checker.VerdictHealthy
	for _, l := range logs {
		switch {
		case l.Snapshot == nil:
			return VerdictInvalid
		case l.Snapshot.Verdict != checker.VerdictHealthy:
			verdict = checker.VerdictUnhealthy
		}
	}
	return verdict
}

// LatestRunRef is the latest run across several logs, with the log it is in
// and the moment that log was judged at.
type LatestRunRef struct {
	File string
	Run  *checker.RunReport
	Now  time.Time // the snapshot's generated_at_utc (GeneratedAt)
}

// LatestRun finds the run whose first event is latest across the valid logs
// (each log's own latest run competes; ties go to the later log), or nil
// when no valid log has a run.
func LatestRun(logs []LogResult) *LatestRunRef {
	var best *LatestRunRef
	var bestAt time.Time
	for _, l := range logs {
		if l.Snapshot == nil {
			continue
		}
		r := Latest(l.Snapshot)
		if r == nil {
			continue
		}
		if best == nil || !r.FirstEvent.Before(bestAt) {
			best, bestAt = &LatestRunRef{File: l.File, Run: r, Now: l.Snapshot.GeneratedAt}, r.FirstEvent
		}
	}
	return best
}

// mermaidTime is the date layout of the gantt chart (Mermaid's dateFormat
// YYYY-MM-DD HH:mm:ss), in UTC.
const mermaidTime = "2006-01-02 15:04:05"

// Gantt renders a run's stage attempts as a Mermaid gantt chart in a fenced
// code block, times in UTC: one section per stage that has attempts, one bar
// per attempt from its start to its end (to now, the snapshot's
// generated_at_utc, while it is in progress). Succeeded bars are done,
// failed bars (and only they) critical, running bars active; a stall
// candidate, an unknown or a cancelled attempt is a plain bar, its label
// saying which. The axis labels show seconds, minutes or dates as the
// run's span calls for (AxisFormat). Every label is escaped with Mermaid;
// task ids are computed, never taken from the log.
func Gantt(r *checker.RunReport, now time.Time) string {
	var b strings.Builder
	b.WriteString("```mermaid\ngantt\n")
	fmt.Fprintf(&b, "    title Run %s: %s (UTC)\n", Mermaid(r.RunID), r.State)
	from, to := RunSpan(r, now)
	fmt.Fprintf(&b, "    dateFormat YYYY-MM-DD HH:mm:ss\n    axisFormat %s\n    todayMarker off\n", AxisFormat(to.Sub(from)).Mermaid)
	for i := range r.Stages {
		st := &r.Stages[i]
		if len(st.Attempts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "    section %s\n", Mermaid(StageLabel(st)))
		for _, a := range st.Attempts {
			start, stop := AttemptSpan(&a, now)
			tag := ""
			switch {
			case a.Status == checker.StageSucceeded:
				tag = "done, "
			case Mark(a.Status).Failure:
				tag = "crit, "
			case a.Status == checker.StageRunning:
				tag = "active, "
			}
			label := a.Status
			if a.Status == checker.StageStalled {
				label = "stall candidate"
			}
			fmt.Fprintf(&b, "    attempt %d %s :%ss%da%d, %s, %s\n",
				a.Attempt, label, tag, i+1, a.Attempt, start.UTC().Format(mermaidTime), stop.UTC().Format(mermaidTime))
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// Mermaid makes untrusted text inert as a label in a Mermaid diagram: it
// keeps letters, digits, spaces and - _ . ( ) / + and replaces every other
// character (among them : ; # % { } < > ` " and line breaks, which could end
// a label, start a directive or comment, or close the code fence) with _.
// Text longer than 80 characters is cut with "…".
func Mermaid(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 80 {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ':
			b.WriteRune(r)
		case strings.ContainsRune("-_.()/+", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// clip cuts s after max characters, marking the cut with "…".
func clip(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// clipLog returns a copy of l whose violation messages are cut at
// MaxSummaryTextRunes; l is not modified. The snapshot's error texts are
// cut as they are rendered (MarkdownOptions.MaxErrorRunes), run by run.
func clipLog(l LogResult) LogResult {
	out := LogResult{File: l.File}
	if l.Report != nil {
		r := *l.Report
		r.Violations = make([]checker.Violation, len(l.Report.Violations))
		for i, v := range l.Report.Violations {
			v.Message = clip(v.Message, MaxSummaryTextRunes)
			r.Violations[i] = v
		}
		out.Report = &r
	}
	out.Snapshot, out.Selected = l.Snapshot, l.Selected
	return out
}

// Clip cuts s after max characters, marking the cut with "…"; shorter text
// is returned as it is.
func Clip(s string, max int) string { return clip(s, max) }
