package render

import (
	"bufio"
	"io"
)

// gitlabIssue is one issue of a GitLab Code Quality report.
type gitlabIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

// GitLab severities: an error is critical (a contract violation, an
// unhealthy run, a missed slot: Level's GitLab column), a warning is major
// (a retry past the brake without enforce).
const (
	GitLabSeverityError   = "critical"
	GitLabSeverityWarning = "major"
)

// WriteGitLab writes the logs' findings as a GitLab Code Quality report (a
// JSON array of issues, which a merge request shows inline): the same
// findings as WriteSARIF, each with its rule as check_name, the rule's
// summary before the message as description, the SARIF fingerprint, a
// severity, and the log file (relative to the repository root; "-" for
// standard input) and line (1 where no line proves it). One issue per
// line, written as the runs are visited.
func WriteGitLab(w io.Writer, logs []Log) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	err := writeFindingArray(bw, logs, "  ", func(f finding) any {
		is := gitlabIssue{CheckName: f.Rule, Fingerprint: f.fingerprint(), Severity: GitLabSeverityError}
		is.Description = f.Message
		if summary, ok := healthOrContractSummary(f.Rule); ok {
			is.Description = f.Rule + " (" + summary + "): " + f.Message
		}
		if f.Warning {
			is.Severity = GitLabSeverityWarning
		}
		is.Location.Path = f.Path
		if is.Location.Path == "" {
			is.Location.Path = "-"
		}
		is.Location.Lines.Begin = max(f.Line, 1)
		return is
	})
	if err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}
