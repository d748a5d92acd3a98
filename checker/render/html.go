package render

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// HTMLOptions bound an HTML report. MaxUnhealthy caps the unhealthy rows
// (runs and missed slots, latest first) listed with their details, MaxLatest
// the healthy runs listed after them (latest first), MaxViolations the
// violations of an invalid log, and MaxErrorRunes the characters of one
// error text; 0 takes the default (DefaultHTMLOptions). Log and LogFiles
// name the log of an invalid check, which has no snapshot to name it: Log
// as source.path would (its file, or the names given), LogFiles its files
// in reading order; with Log empty, the page names the file of the first
// violation.
type HTMLOptions struct {
	MaxUnhealthy  int
	MaxLatest     int
	MaxViolations int
	MaxErrorRunes int
	Log           string
	LogFiles      []string
}

// DefaultHTMLOptions are the bounds of "greenlight report --html": a
// report of a million runs stays a page a browser opens at once.
var DefaultHTMLOptions = HTMLOptions{MaxUnhealthy: 50, MaxLatest: 20, MaxViolations: 200, MaxErrorRunes: 2000}

//go:embed report.tmpl
var reportTemplate string

// reportPage parses the report's template on first use, not at start-up:
// every binary and module links this package, and most never write a
// report (the parse is 10 to 24 ms of the action module's start under node).
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"dur": Duration,
	}).Parse(reportTemplate))
})

// HTMLReportCSP is the report's Content-Security-Policy (a meta element):
// nothing may load or run but its one inline style element, allowed by its
// hash; no script at all, no image, frame, form or request.
const HTMLReportCSP = "default-src 'none'; style-src 'sha256-%s'; base-uri 'none'; form-action 'none'"

// WriteHTMLReport writes a standalone HTML page for one checked log: its
// verdict, the unhealthy rows (runs and missed slots) latest first with
// each run's error, recovery and stages, then the latest healthy runs, the
// schedule, the warnings and a timeline (inline SVG) of each listed
// unhealthy run and of the latest run; or, for an invalid log, its
// violations. Each list is capped (o) and says how many rows it leaves out.
// The page needs no script and no other file: it reads the same with
// JavaScript off. Its title carries the verdict and the log's name. All
// log text goes through html/template's contextual escaping. The runs are
// read in two passes (Snapshot.Runs, so a streamed snapshot stays
// streamed): one picks the listed rows by their moment, one builds them;
// memory holds only the listed rows.
func WriteHTMLReport(w io.Writer, res *checker.Result, o HTMLOptions) error {
	page := buildPage(res, withDefaults(o))
	page.CSS = template.CSS(reportCSS())
	page.CSP = HTMLReportPolicy()
	var buf bytes.Buffer
	if err := reportPage().Execute(&buf, page); err != nil {
		return err
	}
	// The template's definitions follow the page: drop the blank lines
	// they leave.
	_, err := w.Write(append(visibleBidi(bytes.TrimRight(buf.Bytes(), "\n")), '\n'))
	return err
}

// visibleBidi replaces each bidirectional formatting character in an HTML
// page (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) by its
// escape written out (\u202e), as the terminal and Markdown show them:
// html/template keeps markup from forming but passes these through, and one
// in a run id or an error would display the text around it reversed
// ("Trojan Source", CVE-2021-42574). The page's own template and style hold
// none, so every one replaced came from the log.
func visibleBidi(page []byte) []byte {
	isBidi := func(r rune) bool {
		return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	}
	if bytes.IndexFunc(page, isBidi) < 0 {
		return page
	}
	var out bytes.Buffer
	for len(page) > 0 {
		i := bytes.IndexFunc(page, isBidi)
		if i < 0 {
			out.Write(page)
			break
		}
		r, size := utf8.DecodeRune(page[i:])
		out.Write(page[:i])
		fmt.Fprintf(&out, `\u%04x`, r)
		page = page[i+size:]
	}
	return out.Bytes()
}

// withDefaults fills o's zero bounds from DefaultHTMLOptions.
func withDefaults(o HTMLOptions) HTMLOptions {
	def := DefaultHTMLOptions
	if o.MaxUnhealthy <= 0 {
		o.MaxUnhealthy = def.MaxUnhealthy
	}
	if o.MaxLatest <= 0 {
		o.MaxLatest = def.MaxLatest
	}
	if o.MaxViolations <= 0 {
		o.MaxViolations = def.MaxViolations
	}
	if o.MaxErrorRunes <= 0 {
		o.MaxErrorRunes = def.MaxErrorRunes
	}
	return o
}

// WriteHTMLReportContent writes the page's content alone (what its body
// holds), to put into another page: the interactive report shows it when
// scripts are off. Its style is HTMLReportStyle.
func WriteHTMLReportContent(w io.Writer, res *checker.Result, o HTMLOptions) error {
	var buf bytes.Buffer
	if err := reportPage().ExecuteTemplate(&buf, "content", buildPage(res, withDefaults(o))); err != nil {
		return err
	}
	_, err := w.Write(visibleBidi(buf.Bytes()))
	return err
}

// HTMLReportPolicy is HTMLReportCSP with the hash of the report's style
// sheet: the policy the page carries, for a server to send as well.
func HTMLReportPolicy() string {
	sum := sha256.Sum256([]byte(reportCSS()))
	return fmt.Sprintf(HTMLReportCSP, base64.StdEncoding.EncodeToString(sum[:]))
}

// HTMLReportStyle is the style sheet of the report's content; it holds no
// log text.
func HTMLReportStyle() string { return reportCSS() }

// HTMLReport returns WriteHTMLReport's bytes.
func HTMLReport(res *checker.Result, o HTMLOptions) []byte {
	var b bytes.Buffer
	WriteHTMLReport(&b, res, o) // a bytes.Buffer never fails; the template is tested
	return b.Bytes()
}

// reportCSS is the report's style sheet: fixed rules and one colour rule
// per state of the marks table. It holds no log text.
func reportCSS() string {
	var b strings.Builder
	b.WriteString(`body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 32px;color:#1f2328}
h1{font-size:22px;margin:12px 0 4px}h2{margin-top:28px;border-bottom:1px solid #d0d7de}
.verdict-healthy{color:#1a7f37}.verdict-unhealthy,.verdict-invalid{color:#cf222e}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #d0d7de;vertical-align:top}
code,pre,.mono{font-family:ui-monospace,monospace;font-size:12px}pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:4px 6px;margin:4px 0}
svg.icon{display:inline-block;width:1em;height:1em;vertical-align:-.15em}.note,.legend{color:#57606a}.legend span{margin-right:12px;white-space:nowrap}.run{border:1px solid #d0d7de;border-radius:6px;padding:4px 12px;margin:12px 0}
.state{font-weight:600}svg.gantt text{font:11px system-ui,sans-serif;fill:#1f2328}svg.gantt line{stroke:#d0d7de}
`)
	for _, m := range stateMarks {
		fmt.Fprintf(&b, ".s-%s{color:%s}.b-%s{fill:%s}\n", m.State, m.Colour, m.State, m.Colour)
	}
	return b.String()
}

// The page's data: every string is plain text (escaped by the template) or
// a fixed value of greenlight's.
type htmlPage struct {
	Title, Verdict, Headline string
	CSS                      template.CSS
	CSP                      string
	File, JudgedAt, SHA256   string
	Events                   string
	Legend                   []StateMark
	Invalid                  bool
	Violations               []checker.Violation
	ViolationsMore           string
	Unhealthy                []htmlRow
	UnhealthyMore            string
	Latest                   []htmlRow
	LatestMore               string
	NoRuns                   bool
	Details                  []htmlRun
	LatestRun                *htmlRun
	Schedule                 *htmlSchedule
	Notices                  []string
}

// htmlRow is one row of a runs table: a run, or a missed slot (Run nil).
type htmlRow struct {
	Mark        StateMark
	Anchor      string // the run's section id, "" when it has none
	RunID       string
	FirstEvent  string
	Duration    string
	Stages      string
	Detail      string
	MissedLabel string
}

// htmlRun is one run's details section.
type htmlRun struct {
	Anchor, RunID, State string
	Listed               string // for the latest run: its section among the unhealthy, if listed
	Mark                 StateMark
	Detail, Error        string
	HasError             bool
	Action, ActionIDs    string
	Steps                []string
	Actions              []htmlAction // a run's actions when it has more than one
	Attempts             []htmlAttempt
	Gantt                htmlGantt
}

type htmlAttempt struct {
	Stage                      string
	Mark                       StateMark
	Attempt                    string
	Status, Started, Ended, RC string
	Error                      string
}

type htmlSchedule struct {
	Line  string
	Slots []htmlSlot
	Notes []string
}

type htmlSlot struct {
	ScheduledFor, DueAt, Status, RunID string
	Mark                               StateMark
}

// htmlGantt is a run's timeline as SVG geometry (pixels).
type htmlGantt struct {
	Width, Height int
	Title         string
	Lanes         []htmlLane
	Ticks         []htmlTick
	AxisY         int
}

type htmlLane struct {
	Label      string
	Y, TextY   int
	LineY      int
	Pending    bool
	Bars       []htmlBar
	LabelWidth int
}

type htmlBar struct {
	X, Width, Y, Height string
	Class, Title        string
}

type htmlTick struct {
	X     string
	Label string
}

// buildPage gathers what the HTML report shows of res: an invalid log's
// violations, or the snapshot's verdict, listed rows, run details, latest
// run, schedule and notices.
func buildPage(res *checker.Result, o HTMLOptions) *htmlPage {
	p := &htmlPage{Legend: stateMarks}
	if res.Snapshot == nil {
		invalidPage(p, res.Report, o)
		return p
	}
	s := res.Snapshot
	now := s.GeneratedAt
	p.Verdict, p.Headline = string(s.Verdict), Headline(s)
	p.File, p.JudgedAt, p.SHA256 = fileName(s.Source.Path), s.GeneratedAtUTC, s.Source.SHA256
	p.Events = words.Count(s.Source.EventCount, "event")
	log := baseName(p.File)
	if n := len(s.Source.Files); n > 1 {
		// source.path joins the names given: its base name would be the
		// last file's alone.
		log = baseName(s.Source.Files[0].Path) + " and " + words.Count(n-1, "more file")
	}
	p.Title = fmt.Sprintf("greenlight: %s: %s", s.Verdict, log)
	p.NoRuns = RowCount(s) == 0

	bad, good, details, nBad, nGood := pickRows(s, o)
	p.Unhealthy, p.Latest = bad, good
	if IsStale(s) {
		// The run-less stale finding (docs/contract.md, Freshness) comes
		// first among the unhealthy rows, as in the text and Markdown.
		mark := Mark(StateMissed)
		mark.Word, mark.Meaning = StateStale, "no success within the freshness expectation"
		p.Unhealthy = append([]htmlRow{{Mark: mark, MissedLabel: NoRun, Detail: StaleSummary(s, Terminal)}}, p.Unhealthy...)
	}
	if rest := nBad - len(bad); rest > 0 {
		p.UnhealthyMore = words.Count(rest, "more unhealthy row") + " not listed here: older ones (greenlight check --format json lists every run)."
	}
	if rest := nGood - len(good); rest > 0 {
		p.LatestMore = words.Count(rest, "more succeeded run") + " not listed here: older ones."
	}
	for _, d := range details {
		if d != nil {
			p.Details = append(p.Details, *d)
		}
	}
	if lr := Latest(s); lr != nil {
		d := runDetails(&s.Source, clipErrors(lr, o.MaxErrorRunes), now, "latest-run")
		for _, u := range p.Details {
			if u.Anchor == runAnchor(lr) {
				d.Listed = u.Anchor
			}
		}
		p.LatestRun = &d
	}
	if s.Schedule != nil {
		p.Schedule = htmlScheduleOf(s)
	}
	for _, w := range s.Warnings {
		p.Notices = append(p.Notices, fmt.Sprintf("warning: %s line %d: %s: %s", fileName(w.File), w.Line, w.Rule, w.Message))
	}
	if rc := s.Reconciliation; rc != nil {
		for _, inc := range rc.Inconsistencies {
			p.Notices = append(p.Notices, fmt.Sprintf("inconsistency: %s: %s", inc.Code, inc.Message))
		}
	}
	p.Notices = append(p.Notices, requestNotices(s)...) // requests.go
	return p
}

// invalidPage fills p, the page of an invalid log: its headline and
// title, and the violations listed (at most o.MaxViolations, their messages
// clipped).
func invalidPage(p *htmlPage, rep *checker.Report, o HTMLOptions) {
	p.Invalid, p.Verdict = true, VerdictInvalid
	p.Headline = InvalidHeadline(rep)
	file := "-"
	if o.Log != "" {
		file = o.Log
	} else if len(rep.Violations) > 0 {
		file = rep.Violations[0].File
	}
	p.File = fileName(file)
	log := baseName(p.File)
	if n := len(o.LogFiles); n > 1 {
		log = baseName(o.LogFiles[0]) + " and " + words.Count(n-1, "more file")
	}
	p.Title = fmt.Sprintf("greenlight: invalid: %s", log)
	for i, v := range rep.Violations {
		if i == o.MaxViolations {
			break
		}
		v.Message = clip(v.Message, o.MaxErrorRunes)
		p.Violations = append(p.Violations, v)
	}
	if rest := rep.ViolationCount - len(p.Violations); rest > 0 {
		p.ViolationsMore = words.Count(rest, "more violation") + " not listed (greenlight check --format json lists up to --max-violations)."
	}
}

// pickRows builds the rows the page lists: the rows come latest first
// (EachRow), so the first o.MaxUnhealthy unhealthy rows (bad, with the
// details of their runs) and the first o.MaxLatest succeeded runs (good)
// are the ones listed, and only their rows and details are built. nBad and
// nGood count every unhealthy row and succeeded run.
func pickRows(s *checker.Snapshot, o HTMLOptions) (bad, good []htmlRow, details []*htmlRun, nBad, nGood int) {
	now := s.GeneratedAt
	EachRow(s, func(row Row) bool {
		switch {
		case row.Missed != nil:
			nBad++
			if len(bad) < o.MaxUnhealthy {
				m := row.Missed
				bad = append(bad, htmlRow{Mark: Mark(StateMissed), MissedLabel: NoRun, Detail: MissedSummary(m), FirstEvent: m.ScheduledFor})
				details = append(details, nil)
			}
		case row.Run.State == checker.RunSucceeded:
			nGood++
			if len(good) < o.MaxLatest {
				good = append(good, runRow(&s.Source, clipErrors(row.Run, o.MaxErrorRunes), now))
			}
		default:
			nBad++
			if len(bad) < o.MaxUnhealthy {
				r := clipErrors(row.Run, o.MaxErrorRunes)
				hr := runRow(&s.Source, r, now)
				bad = append(bad, hr)
				d := runDetails(&s.Source, r, now, hr.Anchor)
				details = append(details, &d)
			}
		}
		return true
	})
	return bad, good, details, nBad, nGood
}

// runAnchor is the id of a run's section: computed from its first line,
// which is unique to it, never from the run id (log text).
func runAnchor(r *checker.RunReport) string { return fmt.Sprintf("run-L%d", r.FirstLine) }

func runRow(src *checker.Source, r *checker.RunReport, now time.Time) htmlRow {
	ok := 0
	for _, st := range r.Stages {
		if st.State == checker.StageSucceeded {
			ok++
		}
	}
	row := htmlRow{Mark: Mark(string(r.State)), RunID: r.RunID, FirstEvent: r.FirstEventAt, Duration: Duration(RunSeconds(r, now)),
		Stages: fmt.Sprintf("%d/%d", ok, len(r.Stages))}
	if r.State != checker.RunSucceeded {
		d := Detail(src, r)
		row.Detail = d.Summary
		row.Anchor = runAnchor(r)
	}
	return row
}

// runDetails copies what a run's section shows out of r (whose storage
// Snapshot.Runs reuses).
func runDetails(src *checker.Source, r *checker.RunReport, now time.Time, anchor string) htmlRun {
	d := Detail(src, r)
	h := htmlRun{Anchor: anchor, RunID: r.RunID, State: string(r.State), Mark: Mark(string(r.State)), Detail: d.Summary, Error: d.Error, HasError: d.HasErr}
	if rec := &r.Recovery; rec.Action != checker.ActionNone || len(rec.Steps) > 0 {
		h.Action, h.ActionIDs = string(rec.Action), RecoveryIDs(rec)
		h.Steps = append([]string(nil), rec.Steps...)
		h.Actions = htmlActions(rec)
	}
	for k := range r.Stages {
		st := &r.Stages[k]
		label := StageLabel(st)
		if len(st.Attempts) == 0 {
			h.Attempts = append(h.Attempts, htmlAttempt{Stage: label, Mark: Mark(string(st.State))})
			continue
		}
		for _, a := range st.Attempts {
			ha := htmlAttempt{Stage: label, Mark: Mark(string(st.State)), Attempt: fmt.Sprint(a.Attempt), Status: a.Status, Started: a.StartedAt}
			if a.EndedAt != nil {
				ha.Ended = *a.EndedAt
			} else if a.SilentForSeconds != nil {
				ha.Ended = "silent " + Duration(*a.SilentForSeconds)
			}
			if a.Returncode != nil {
				ha.RC = fmt.Sprint(*a.Returncode)
			}
			if a.Error != nil {
				ha.Error = *a.Error
			} else if a.Reason != nil {
				ha.Error = *a.Reason
			}
			h.Attempts = append(h.Attempts, ha)
		}
	}
	h.Gantt = ganttSVG(r, now)
	return h
}

// The timeline's geometry, in pixels.
const (
	ganttLabel = 200
	ganttWidth = 600
	ganttLane  = 22
	ganttTop   = 6
)

// ganttSVG lays out a run's timeline: a lane per expected stage, a bar per
// attempt (coloured by its status; an attempt in progress runs to now), and
// the axis ticks AxisTicks picks for the run's span.
func ganttSVG(r *checker.RunReport, now time.Time) htmlGantt {
	from, to := RunSpan(r, now)
	span := to.Sub(from)
	if span < time.Second {
		span = time.Second
	}
	x := func(t time.Time) float64 { return ganttLabel + float64(t.Sub(from))/float64(span)*ganttWidth }
	g := htmlGantt{Width: ganttLabel + ganttWidth + 40, Title: "timeline of run " + r.RunID}
	for i := range r.Stages {
		st := &r.Stages[i]
		y := ganttTop + i*ganttLane
		lane := htmlLane{Label: StageLabel(st), Y: y, TextY: y + 15, LineY: y + ganttLane - 2, Pending: len(st.Attempts) == 0, LabelWidth: ganttLabel + 4}
		for _, a := range st.Attempts {
			s, e := AttemptSpan(&a, now)
			w := x(e) - x(s)
			if w < 2 {
				w = 2
			}
			end := a.EndedAt
			endText := "now (" + now.UTC().Format(time.RFC3339) + ")"
			if end != nil {
				endText = *end
			}
			status := a.Status
			if status == checker.StageStalled {
				status = "stalled (a stall candidate, not proof)"
			}
			lane.Bars = append(lane.Bars, htmlBar{X: fmt.Sprintf("%.1f", x(s)), Width: fmt.Sprintf("%.1f", w), Y: fmt.Sprint(y + 4), Height: fmt.Sprint(ganttLane - 9),
				Class: "b-" + Mark(a.Status).State, Title: fmt.Sprintf("%s attempt %d: %s, %s to %s", StageLabel(st), a.Attempt, status, a.StartedAt, endText)})
		}
		g.Lanes = append(g.Lanes, lane)
	}
	g.AxisY = ganttTop + ganttLane*len(r.Stages) + 14
	g.Height = g.AxisY + 6
	for _, tk := range AxisTicks(from, from.Add(span)) {
		g.Ticks = append(g.Ticks, htmlTick{X: fmt.Sprintf("%.1f", x(tk.At)), Label: tk.Label})
	}
	return g
}

func htmlScheduleOf(s *checker.Snapshot) *htmlSchedule {
	sr := s.Schedule
	h := &htmlSchedule{Line: ScheduleLine(s, func(t string) string { return t }), Notes: ScheduleNotes(s, func(t string) string { return t })}
	states := map[string]string{}
	for _, sl := range sr.Slots {
		if sl.RunID != nil {
			states[*sl.RunID] = ""
		}
	}
	if len(states) > 0 {
		for r := range s.Runs() {
			if st, ok := states[r.RunID]; ok && st == "" {
				states[r.RunID] = string(r.State)
			}
		}
	}
	// Latest slot first, as the runs are listed.
	for i := len(sr.Slots) - 1; i >= 0; i-- {
		sl := sr.Slots[i]
		row := htmlSlot{ScheduledFor: sl.ScheduledFor, DueAt: sl.DueAt, Status: strings.ReplaceAll(sl.Status, "_", " "), Mark: Mark(StateMissed)}
		if sl.RunID != nil {
			row.RunID = *sl.RunID
			row.Mark = Mark(states[*sl.RunID])
		}
		h.Slots = append(h.Slots, row)
	}
	return h
}

// baseName is the last element of a slash- or backslash-separated path.
func baseName(f string) string {
	if i := strings.LastIndexAny(f, "/\\"); i >= 0 && i < len(f)-1 {
		return f[i+1:]
	}
	return f
}
