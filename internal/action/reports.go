package action

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/osfile"
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

// checkOutputs refuses a snapshot input or a report path that names one of
// the files the action reads (files, each named as what; the job log; the
// pipeline definition) or another output, through cli.DistinctOutputs, the
// check the CLI makes: docs/action.md promises the action never changes the
// event logs or the definition. It also refuses an output whose missing
// parent directories, which the write creates (atomicfile), would be made
// outside the workspace.
func checkOutputs(in inputs, files []string, what, workspace string) error {
	inputs := []cli.NamedFile{{What: "the job log", Path: in.jobLogFile}, {What: "the pipeline definition", Path: in.pipelineFile}}
	for _, f := range files {
		inputs = append(inputs, cli.NamedFile{What: what, Path: f})
	}
	outputs := []cli.NamedFile{{What: "the snapshot input", Path: in.snapshotFile}}
	for _, r := range in.reports {
		outputs = append(outputs, cli.NamedFile{What: "the " + r.format + " report", Path: r.path})
	}
	if err := cli.DistinctOutputs(inputs, outputs); err != nil {
		return err
	}
	for _, out := range outputs {
		if out.Path == "" {
			continue
		}
		if err := parentsInWorkspace(workspace, out.What, out.Path); err != nil {
			return err
		}
	}
	return nil
}

// parentsInWorkspace refuses an output (what, at path) whose parent
// directory is missing and would be created outside the workspace: the
// action creates directories only inside GITHUB_WORKSPACE.
func parentsInWorkspace(workspace, what, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("cannot resolve %s %s: %s", what, render.Terminal(path), osfile.Describe(err))
	}
	dir := filepath.Dir(abs)
	existing := dir
	for {
		if _, err := os.Stat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	if existing == dir {
		return nil // nothing to create
	}
	if outside, _ := outsideView(path); outside {
		// The wasip1 module cannot see whether a directory outside its
		// preopened ones exists, nor create one there: the write refuses
		// the path with viewError's message (outside what the module sees,
		// which directories it sees, what to do), not a claim that the
		// directory does not exist.
		return nil
	}
	root, err := workspaceRoot(workspace)
	if err != nil {
		return err
	}
	if _, inside, err := resolveIn(root, existing); err != nil || !inside {
		return fmt.Errorf("%s %s: its directory %s does not exist, and the action creates directories only inside the workspace %s",
			what, render.Terminal(path), render.Terminal(filepath.Dir(path)), render.Terminal(root))
	}
	return nil
}
