package action

import (
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
)

// report is one line of the reports input: a CI format (docs/formats.md)
// and the file to write it to.
type report struct {
	format, path string
}

// parseReports reads the reports input: one FORMAT=PATH per non-empty
// line, FORMAT one of cli.CIFormats, each format at most once.
func parseReports(text string) ([]report, error) {
	var out []report
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		format, path, ok := strings.Cut(line, "=")
		format, path = strings.TrimSpace(format), strings.TrimSpace(path)
		if !ok || path == "" || !cli.IsCIFormat(format) {
			return nil, fmt.Errorf("reports line %q: write FORMAT=PATH, FORMAT one of %s", line, strings.Join(cli.CIFormats, ", "))
		}
		if seen[format] {
			return nil, fmt.Errorf("reports: %s is given twice", format)
		}
		seen[format] = true
		out = append(out, report{format, path})
	}
	return out, nil
}

// writeReports writes every report of the reports input atomically, in
// check mode for health, in validate mode for the contract only, and
// returns the errors.
func writeReports(in inputs, logs []render.LogResult) []string {
	if len(in.reports) == 0 {
		return nil
	}
	formatLogs := make([]render.Log, len(logs))
	for i, l := range logs {
		formatLogs[i] = cli.FormatLog(l.File, fileCount(l), in.opts, &checker.Result{Snapshot: l.Snapshot, Report: l.Report})
		formatLogs[i].ContractOnly = in.mode == ModeValidate
	}
	return writeReportLogs(in, formatLogs)
}

// writeReportLogs writes every report of the reports input for logs
// atomically and returns the errors.
func writeReportLogs(in inputs, formatLogs []render.Log) []string {
	var errs []string
	for _, r := range in.reports {
		err := atomicfile.WriteFunc(r.path, func(w io.Writer) error { return cli.WriteCIFormat(w, r.format, formatLogs, nil) })
		if err != nil {
			errs = append(errs, fmt.Sprintf("cannot write the %s report: %s", r.format, viewError("write", r.path, err.Error)))
		}
	}
	return errs
}

// fileCount is how many files a log was read from: its snapshot's, or for
// an invalid log 2 when a violation names a file other than the log (then
// findings must name their own files).
func fileCount(l render.LogResult) int {
	if l.Snapshot != nil {
		return max(1, len(l.Snapshot.Source.Files))
	}
	for _, v := range l.Report.Violations {
		if v.File != l.File {
			return 2
		}
	}
	return 1
}
