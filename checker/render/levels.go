package render

import (
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
)

// StateLevel is how loud every CI format is about one run state (or a
// missed slot), so that no two formats disagree on a state: a state that
// fails the gate is an error in each of them.
//   - Annotation: the GitHub annotation level of the state's stage
//     ("error"), or "" when the state gets no annotation of its own (the
//     step log and job summary list the run).
//   - SARIF: the result level and the health rule's default level,
//     "error" or "" (no finding).
//   - GitLab: the Code Quality severity, "critical" or "" (no issue).
//   - JUnit: the testcase's outcome, "failure" (the pipeline did not do its
//     work), "error" (greenlight cannot prove what happened), "skipped"
//     (not judged yet) or "" (passes).
type StateLevel struct {
	State      string
	Annotation string
	SARIF      string
	GitLab     string
	JUnit      string
}

// stateLevels is the one table of levels, in the order of stateMarks.
// A stall candidate fails the gate like a failure, so it is an error
// everywhere (a SARIF warning before, while its annotation was an error).
var stateLevels = []StateLevel{
	{checker.RunSucceeded, "", "", "", ""},
	{checker.RunFailed, "error", "error", GitLabSeverityError, "failure"},
	{checker.RunUnknown, "error", "error", GitLabSeverityError, "error"},
	{checker.RunCancelled, "", "error", GitLabSeverityError, "failure"},
	{checker.RunStalled, "error", "error", GitLabSeverityError, "error"},
	{checker.RunOverdue, "", "error", GitLabSeverityError, "error"},
	{checker.RunRunning, "", "", "", "skipped"},
	{checker.RunIncomplete, "", "error", GitLabSeverityError, "failure"},
	{StateMissed, "error", "error", GitLabSeverityError, "error"},
}

// StateLevels returns the table of levels (a copy), in legend order.
func StateLevels() []StateLevel { return append([]StateLevel(nil), stateLevels...) }

// Level returns the levels of a run state or StateMissed; a state the table
// does not hold is an error in every format (fail-closed).
func Level(state string) StateLevel {
	for _, l := range stateLevels {
		if l.State == state {
			return l
		}
	}
	return StateLevel{state, "error", "error", GitLabSeverityError, "error"}
}

// LevelsMarkdown is the table of levels as docs/formats.md shows it: one
// row per state, "none" where a format says nothing of the state.
func LevelsMarkdown() string {
	var b strings.Builder
	b.WriteString("| state | annotation | SARIF level | GitLab severity | JUnit outcome |\n|---|---|---|---|---|\n")
	cell := func(s string) string {
		if s == "" {
			return "none"
		}
		return "`" + s + "`"
	}
	for _, l := range stateLevels {
		junit := "passes"
		if l.JUnit != "" {
			junit = "`<" + l.JUnit + ">`"
		}
		b.WriteString("| " + Mark(l.State).Symbol + " `" + l.State + "` | " + cell(l.Annotation) + " | " + cell(l.SARIF) + " | " + cell(l.GitLab) + " | " + junit + " |\n")
	}
	return b.String()
}
