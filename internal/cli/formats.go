package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// CIFormats are the --format values the CI renderers write
// (docs/formats.md): JUnit XML, SARIF 2.1.0, GitLab Code Quality and
// OpenMetrics text.
var CIFormats = []string{"junit", "sarif", "gitlab", "openmetrics"}

// IsCIFormat reports whether format is one of CIFormats.
func IsCIFormat(format string) bool { return slices.Contains(CIFormats, format) }

// WriteCIFormat writes logs to w in one of CIFormats. checkSeconds are the
// wall-clock durations of the logs' checks (OpenMetrics only; nil for
// none).
func WriteCIFormat(w io.Writer, format string, logs []render.Log, checkSeconds []float64) error {
	switch format {
	case "junit":
		return render.WriteJUnit(w, logs)
	case "sarif":
		return render.WriteSARIF(w, logs)
	case "gitlab":
		return render.WriteGitLab(w, logs)
	case "openmetrics":
		return render.WriteOpenMetrics(w, logs, render.OpenMetricsOptions{CheckSeconds: checkSeconds})
	}
	return fmt.Errorf("unknown format %q", format)
}

// FormatLog describes a checked log for the CI formats: the pipeline's
// name (the definition's, else the file's base name) and the log's path
// relative to the repository root, taken as the working directory (CI
// runs greenlight from the checkout's root).
//
// A log of several files (files > 1) is named by name, and each finding
// points at its own file.
func FormatLog(name string, files int, opts checker.Options, res *checker.Result) render.Log {
	def := ""
	if opts.Definition != nil {
		def = opts.Definition.Pipeline
	}
	if def == "" && res != nil && res.Snapshot != nil && res.Snapshot.Options.Pipeline != nil {
		def = *res.Snapshot.Options.Pipeline
	}
	l := render.Log{Pipeline: render.PipelineName(def, name), Path: RepoPath(name), JudgedAt: opts.Now.UTC().Format(time.RFC3339), Result: res}
	if files > 1 {
		l.FilePath = RepoPath
	}
	return l
}

// RepoPath is a log's name as the CI formats show it: "" for standard
// input, else slash-separated and, when it is absolute and inside the
// working directory, relative to it.
func RepoPath(name string) string {
	if name == "-" || name == "" {
		return ""
	}
	if filepath.IsAbs(name) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, name); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				name = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(name))
}
