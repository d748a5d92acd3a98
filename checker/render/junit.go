package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// junitOutcome is the JUnit outcome of a testcase for a run state or a
// missed slot, from the table of levels (Level): a failed, cancelled or
// incomplete run is a failure (the pipeline did not do its work); a
// stalled, unknown or overdue run and a missed slot are errors (greenlight
// cannot prove what happened); a running run is skipped (not judged yet);
// a succeeded run passes ("").
func junitOutcome(state string) string { return Level(state).JUnit }

// JUnitHostname is the hostname attribute every testsuite carries: the
// schema requires one, and greenlight judges a log, not a host.
const JUnitHostname = "greenlight"

// WriteJUnit writes the logs as one JUnit XML document (the Apache Ant
// format of ../shared/schemas/JUnit.xsd that Jenkins, GitLab, Azure
// Pipelines, CircleCI, Buildkite and the GitHub test-report actions read):
// a <testsuites> element with one <testsuite> per log, named for its
// pipeline. Each suite starts with a "verdict" testcase that fails unless
// the log is healthy, so a log without runs is not green; then one testcase
// per run (classname the pipeline, name the run id, time its duration) and
// per missed slot, or, for an invalid log, one error testcase per contract
// violation named FILE:LINE RULE. A ContractOnly log (greenlight validate)
// has a "contract" testcase instead of the verdict, failing only when the
// log breaks the contract, and no run testcases. Runs are written one at a time, so a
// streamed snapshot stays streamed (a first pass sums the suite's time).
// It returns the first write error.
func WriteJUnit(w io.Writer, logs []Log) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n")
	for i := range logs {
		writeJUnitSuite(bw, i, &logs[i])
	}
	bw.WriteString("</testsuites>\n")
	return bw.Flush()
}

// junitCounts are a suite's attributes.
type junitCounts struct {
	tests, failures, errors, skipped int
	time                             float64
}

// writeJUnitSuite writes the testsuite of one log: its counts and
// properties, the verdict testcase, a testcase per violation (an invalid
// log) or per run, missed slot, folded state and staleness, and the text
// summary as its system-out.
func writeJUnitSuite(bw *bufio.Writer, id int, l *Log) {
	name := XML(l.Pipeline)
	h := junitHeadOf(l)
	c, timestamp, props := h.counts, h.timestamp, h.props
	verdict, verdictType, verdictMsg := h.verdict, h.verdictType, h.verdictMsg
	fmt.Fprintf(bw, "  <testsuite name=\"%s\" package=\"%s\" id=\"%d\" timestamp=\"%s\" hostname=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\">\n",
		name, name, id, junitTimestamp(timestamp), JUnitHostname, c.tests, c.failures, c.errors, c.skipped, seconds(c.time))
	bw.WriteString("    <properties>\n")
	for _, p := range props {
		fmt.Fprintf(bw, "      <property name=\"%s\" value=\"%s\"/>\n", p[0], XML(p[1]))
	}
	bw.WriteString("    </properties>\n")
	// The verdict testcase; greenlight validate judges the contract only.
	verdictName := "verdict"
	if l.ContractOnly {
		verdictName = "contract"
	}
	fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"0.000\"", name, verdictName)
	if verdict == "" {
		bw.WriteString("/>\n")
	} else {
		fmt.Fprintf(bw, ">\n      <%s type=\"%s\" message=\"%s\">%s</%s>\n    </testcase>\n", verdict, XML(verdictType), XML(verdictMsg), XMLText(verdictMsg), verdict)
	}
	out := writeJUnitCases(bw, l, name)
	fmt.Fprintf(bw, "    <system-out>%s</system-out>\n    <system-err></system-err>\n  </testsuite>\n", XMLText(out))
}

// junitHead is what a testsuite's element and verdict testcase say: its
// counts, timestamp and properties, and the verdict testcase's element
// ("failure", "error", or "" when it passed), type and message.
type junitHead struct {
	counts                           junitCounts
	timestamp                        string
	props                            [][2]string
	verdict, verdictType, verdictMsg string
}

// junitHeadOf counts the testcases of log l's suite and gathers its
// properties and verdict.
func junitHeadOf(l *Log) junitHead {
	var c junitCounts
	timestamp := l.JudgedAt
	var props [][2]string
	addProp := func(k, v string) { props = append(props, [2]string{k, v}) }
	addProp("greenlight.pipeline", l.Pipeline)
	if l.Path != "" {
		addProp("greenlight.log", l.Path)
	}
	var verdict, verdictType, verdictMsg string
	res := l.Result
	switch {
	case l.Problem != "":
		verdict, verdictType, verdictMsg = "error", "unusable", l.Problem
	case l.ContractOnly || res.Snapshot == nil || !res.Report.Valid:
		n := res.Report.ViolationCount
		if n > 0 {
			verdict, verdictType = "error", "invalid"
			verdictMsg = fmt.Sprintf("invalid: %s; nothing in this log is evidence", words.Count(n, "contract violation"))
		}
		listed := len(res.Report.Violations)
		c.tests, c.errors = listed, listed
		if res.Report.OmittedCount > 0 {
			c.tests++
			c.errors++
		}
	default:
		s := res.Snapshot
		timestamp = s.GeneratedAtUTC
		addProp("greenlight.verdict", string(s.Verdict))
		addProp("greenlight.gate", string(s.Options.Gate))
		addProp("greenlight.sha256", s.Source.SHA256)
		addProp("greenlight.run_count", strconv.Itoa(s.RunCount))
		if s.LatestRunID != nil {
			addProp("greenlight.latest_run_id", *s.LatestRunID)
		}
		if s.Verdict != checker.VerdictHealthy {
			verdict, verdictType, verdictMsg = "failure", string(s.Verdict), Headline(s)
		}
		if IsStale(s) { // the stale testcase, a failure
			c.tests++
			c.failures++
		}
		forEachRun(s, func(row Row) bool {
			c.tests++
			state := StateMissed
			if row.Run != nil {
				state = string(row.Run.State)
				c.time += row.Run.DurationSeconds
			}
			switch junitOutcome(state) {
			case "failure":
				c.failures++
			case "error":
				c.errors++
			case "skipped":
				c.skipped++
			}
			return true
		})
	}
	c.tests++ // the verdict testcase
	switch verdict {
	case "failure":
		c.failures++
	case "error":
		c.errors++
	}
	return junitHead{c, timestamp, props, verdict, verdictType, verdictMsg}
}

// writeJUnitCases writes the testcases of log l's suite after the verdict:
// one per listed violation of an invalid log, else the staleness, the
// folded states and one per run or missed slot. It returns the suite's
// system-out text.
func writeJUnitCases(bw *bufio.Writer, l *Log, name string) string {
	res := l.Result
	var out strings.Builder
	switch {
	case l.Problem != "":
	case l.ContractOnly || res.Snapshot == nil || !res.Report.Valid:
		if res.Report.Valid {
			out.WriteString("greenlight: the log follows the event contract\n")
		}
		for _, v := range res.Report.Violations {
			fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"0.000\">\n      <error type=\"%s\" message=\"%s\">%s</error>\n    </testcase>\n",
				name, XML(fmt.Sprintf("%s:%d %s", fileName(v.File), v.Line, v.Rule)), XML(string(v.Rule)), XML(v.Message), XMLText(fmt.Sprintf("%s:%d: %s: %s", fileName(v.File), v.Line, v.Rule, v.Message)))
		}
		if n := res.Report.OmittedCount; n > 0 {
			msg := words.Count(n, "more violation") + " not listed (raise --max-violations to list them)"
			fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"0.000\">\n      <error type=\"%s\" message=\"%s\">%s</error>\n    </testcase>\n",
				name, HealthOmittedViolations, HealthOmittedViolations, msg, msg)
		}
	default:
		s := res.Snapshot
		fmt.Fprintf(&out, "greenlight: %s\n", Headline(s))
		if line := ScheduleLine(s, func(t string) string { return t }); line != "" {
			fmt.Fprintf(&out, "schedule: %s\n", line)
			for _, n := range ScheduleNotes(s, func(t string) string { return t }) {
				fmt.Fprintf(&out, "  %s\n", n)
			}
		}
		if line := FreshnessLine(s, func(t string) string { return t }); line != "" {
			fmt.Fprintf(&out, "freshness: %s\n", line)
		}
		for _, v := range s.Warnings {
			fmt.Fprintf(&out, "warning: %s:%d: %s: %s\n", fileName(v.File), v.Line, v.Rule, v.Message)
		}
		if IsStale(s) {
			msg := "stale: " + StaleSummary(s, func(t string) string { return t })
			fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"0.000\">\n      <failure type=\"%s\" message=\"%s\">%s</failure>\n    </testcase>\n",
				name, HealthStale, HealthStale, XML(msg), XMLText(msg))
		}
		forEachRun(s, func(row Row) bool {
			writeJUnitCase(bw, &s.Source, name, row)
			return true
		})
	}
	return out.String()
}

// writeJUnitCase writes the testcase of one run or missed slot.
func writeJUnitCase(bw *bufio.Writer, src *checker.Source, suite string, row Row) {
	if m := row.Missed; m != nil {
		msg := "missed: " + MissedSummary(m)
		fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"0.000\">\n      <error type=\"%s\" message=\"%s\">%s</error>\n    </testcase>\n",
			suite, XML("missed slot "+m.ScheduledFor), StateMissed, XML(msg), XMLText(msg))
		return
	}
	r := row.Run
	fmt.Fprintf(bw, "    <testcase classname=\"%s\" name=\"%s\" time=\"%s\"", suite, XML(r.RunID), seconds(r.DurationSeconds))
	outcome := junitOutcome(string(r.State))
	if outcome == "" {
		bw.WriteString("/>\n")
		return
	}
	d := Detail(src, r)
	msg := d.Summary
	if d.HasErr {
		msg += ": " + d.Error
	}
	var body strings.Builder
	fmt.Fprintf(&body, "run %s %s: %s\n", r.RunID, r.State, msg)
	if p := RunProblem(r); p.Stage != nil {
		a := p.Attempt
		fmt.Fprintf(&body, "%s, attempt %d, status %s, %s", StageLabel(p.Stage), a.Attempt, a.Status, src.LineText(a.Line))
		if a.Returncode != nil {
			fmt.Fprintf(&body, ", returncode %d", *a.Returncode)
		}
		body.WriteString("\n")
		if a.Error != nil {
			fmt.Fprintf(&body, "error: %s\n", *a.Error)
		}
	}
	if rec := &r.Recovery; rec.Action != "" && len(rec.Steps) > 0 {
		junitRecovery(&body, rec)
	}
	if outcome == "skipped" {
		fmt.Fprintf(bw, ">\n      <skipped message=\"%s\">%s</skipped>\n    </testcase>\n", XML(msg), XMLText(body.String()))
		return
	}
	fmt.Fprintf(bw, ">\n      <%s type=\"%s\" message=\"%s\">%s</%s>\n    </testcase>\n", outcome, r.State, XML(msg), XMLText(body.String()), outcome)
}

// junitTimestamp writes an RFC 3339 UTC time as the schema's timestamp
// (ISO 8601 without a zone, UTC); the Unix epoch when there is none (an
// unusable snapshot may have no judged time).
func junitTimestamp(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

// seconds formats a duration in seconds with millisecond precision.
func seconds(v float64) string {
	return strconv.FormatFloat(v, 'f', 3, 64)
}
