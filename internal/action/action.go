// Package action is greenlight's GitHub Action mode ("greenlight action"), a
// shell around the checker: it reads its inputs from INPUT_<NAME> variables,
// checks or validates the event logs the events input names, prints the
// report to the step log inside a stop-commands block, emits error
// annotations, appends the job summary to GITHUB_STEP_SUMMARY, writes step
// outputs to GITHUB_OUTPUT and returns the CLI's exit code. It uses
// github.com/sethvargo/go-githubactions v1.3.2 for every workflow command
// and file command. See docs/action.md.
package action

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/words"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Mode values of the mode input.
const (
	ModeCheck    = "check"
	ModeValidate = "validate"
)

// The values of the input-format input, as the CLI's --input-format.
const (
	formatNative      = "native"
	formatOpenLineage = "openlineage"
)

// RunnerErrorAnnotations is how many error annotations the GitHub runner
// shows for one step; it drops the rest silently.
const RunnerErrorAnnotations = 10

// DefaultMaxAnnotations is the default of the max-annotations input.
const DefaultMaxAnnotations = 10

// outputDelimiter is the fixed heredoc delimiter go-githubactions v1.3.2
// writes around every value in GITHUB_OUTPUT; a value holding it (or a line
// break) could end the value early, so such a value is refused.
const outputDelimiter = "_GitHubActionsFileCommandDelimeter_"

// Env is what action mode may use of the world besides files: the
// go-githubactions handle (its writer is the step log, its Getenv the
// environment), the wall clock (used only when the now input is empty) and
// the source of the stop-commands token.
type Env struct {
	GH    *githubactions.Action
	Now   func() time.Time
	Token func() (string, error)
}

// RandomToken returns a stop-commands token: 16 bytes from crypto/rand in
// hex. It is the only randomness in greenlight, so that log text cannot guess
// the token that turns workflow commands back on.
func RandomToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cannot make a stop-commands token: %v", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// InputNames are the inputs action mode reads, as action.yml declares them;
// each reaches the process as INPUT_<NAME> (upper case, hyphens kept), the
// name go-githubactions' GetInput looks up.
var InputNames = []string{"events", "pipeline", "stages", "mode", "stale-after-seconds", "gate", "fail-on-unhealthy", "snapshot", "max-annotations", "summary", "now", "input-format", "job-log", "reports", "max-age", "expect", "infer-stages", "log-order"}

// inputs are the action's inputs, parsed and checked.
type inputs struct {
	events          []string // patterns, one per non-empty line
	logOrder        string   // the log-order input: given or name
	mode            string
	gate            checker.Gate
	stale           int
	failOnUnhealthy bool
	snapshot        string // as given, for the snapshot output
	snapshotFile    string // the file to write: snapshot, in the module's view (GuestPath)
	maxAnnotations  int
	summary         bool
	format          string // native or openlineage
	jobLogFile      string // the job-log input, "" when not given
	pipelineFile    string // the pipeline input, "" when not given
	jobLog          []byte // its bytes
	reports         []report
	maxAge          time.Duration       // mode merge: the max-age input
	expect          render.RollupExpect // mode merge: the expect input
	opts            checker.Options
}

// Main runs action mode and returns the exit code (docs/action.md, Exit
// codes): 2 when a log is invalid or the inputs, files or runner
// environment are unusable; 1 in check mode when every log is valid, one is
// unhealthy and fail-on-unhealthy is true; 0 otherwise. It never calls os.Exit.
func Main(env Env) (code int) {
	gh := env.GH
	defer func() {
		// go-githubactions panics when it cannot write a command or file.
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "greenlight: %s\n", cli.ErrorLine(fmt.Errorf("%v", r)))
			code = cli.ExitInvalid
		}
	}()
	out, summaryFile := gh.Getenv("GITHUB_OUTPUT"), gh.Getenv("GITHUB_STEP_SUMMARY")
	if out == "" {
		gh.Errorf("%s", "greenlight action: GITHUB_OUTPUT is not set, so this is not a GitHub Actions step; outside Actions run greenlight check or greenlight validate")
		return cli.ExitInvalid
	}
	in, err := readInputs(gh, env.Now)
	if err == nil && in.summary && summaryFile == "" {
		err = errors.New("GITHUB_STEP_SUMMARY is not set, so the job summary cannot be written; set the summary input to false to go without it")
	}
	if err == nil && in.mode == ModeMerge {
		return mergeMain(env, in)
	}
	var logs []render.LogResult
	if err == nil {
		logs, err = readLogs(gh, in)
	}
	// Every document is read and judged; from here on action mode writes.
	// The lean module (docs/action.md) may hand over to the full one only
	// before this point.
	schemas.BeginOutput()
	if err != nil {
		gh.Errorf("%s", "greenlight action: "+err.Error())
		setOutputs(gh, map[string]string{"verdict": render.VerdictInvalid})
		return cli.ExitInvalid
	}
	verdict := render.OverallVerdict(logs)
	code = cli.ExitOK
	switch {
	case verdict == render.VerdictInvalid:
		code = cli.ExitInvalid
	case in.mode == ModeCheck && verdict != checker.VerdictHealthy && in.failOnUnhealthy:
		code = cli.ExitUnhealthy
	}
	token, err := env.Token()
	if err != nil {
		gh.Errorf("%s", "greenlight action: "+err.Error())
		setOutputs(gh, map[string]string{"verdict": render.VerdictInvalid})
		return cli.ExitInvalid
	}
	return writeStep(gh, in, logs, verdict, code, token)
}

// readLogs expands the events input in the workspace, in the log order,
// refuses inputs that do not fit the files found (a snapshot or a job log
// beside several logs, an output that would replace an input), and checks
// every log (checkAll).
func readLogs(gh *githubactions.Action, in inputs) ([]render.LogResult, error) {
	files, err := expand(in.events, gh.Getenv("GITHUB_WORKSPACE"))
	if err == nil {
		err = logsource.Sort(files, in.logOrder)
	}
	// In check mode the files of a native log are one log (a rotated log);
	// otherwise each file is a log of its own.
	oneLog := in.mode == ModeCheck && in.format == formatNative
	if err == nil && in.snapshot != "" && (in.mode != ModeCheck || (!oneLog && len(files) != 1)) {
		err = fmt.Errorf("the snapshot input needs mode check and one event log; events matched %s", words.Count(len(files), "file"))
	}
	// No output may replace an input or another output (as check refuses).
	if err == nil {
		err = checkOutputs(in, files, "the event log file", gh.Getenv("GITHUB_WORKSPACE"))
	}
	// A job log records the attempts of one event log: beside several, each
	// would count the others' records as orphans.
	if err == nil && in.jobLogFile != "" && (in.mode != ModeCheck || (!oneLog && len(files) != 1)) {
		err = fmt.Errorf("the job-log input needs mode check and one event log; events matched %s", words.Count(len(files), "file"))
	}
	if err != nil {
		return nil, err
	}
	return checkAll(files, in)
}

// writeStep writes what the step shows for the checked logs, whose
// combined verdict is verdict and exit code code: the snapshot and reports
// files, the step log (each log's report inside a stop-commands block
// keyed by token, then the annotations), the job summary and the outputs.
// It returns the exit code, ExitInvalid when one of those files could not
// be written or an output is unsafe.
func writeStep(gh *githubactions.Action, in inputs, logs []render.LogResult, verdict string, code int, token string) int {
	// greenlight's own errors (an unwritable snapshot, an unsafe output)
	// are known before the annotations, so that they take their place in
	// the runner's ten.
	var own []string
	snapshotPath := ""
	if in.snapshot != "" && logs[0].Snapshot != nil {
		snap := logs[0].Snapshot
		err := atomicfile.WriteFunc(in.snapshotFile, func(w io.Writer) error { return render.WriteSnapshotJSON(w, snap) })
		if err != nil {
			own = append(own, viewError("write", in.snapshotFile, err.Error))
		} else {
			snapshotPath = in.snapshot
		}
	}
	own = append(own, writeReports(in, logs)...)
	outs := outputs(logs, verdict, snapshotPath)
	if err := sanitizeOutputs(outs); err != nil {
		own = append(own, err.Error())
	}
	if len(own) > 0 {
		code = cli.ExitInvalid
		outs["verdict"] = render.VerdictInvalid // exit 2 always reads as invalid
	}
	var found *finder
	if budget := annotationBudget(in.maxAnnotations, code != cli.ExitOK) - len(own); budget > 0 {
		found = &finder{mode: in.mode, gate: in.gate, keep: budget}
	}
	readRuns(logs, in.mode, found)
	printReports(gh, token, in.mode, logs)
	for _, msg := range own {
		gh.Errorf("%s", "greenlight action: "+msg)
	}
	// The job summary is rendered first, so that the last annotation can
	// say truly what it lists.
	summary, complete := "", true
	if in.summary {
		mode := render.SummaryCheck
		if in.mode == ModeValidate {
			mode = render.SummaryValidate
		}
		summary, complete = render.JobSummaryComplete(mode, logs, 0)
	}
	annotate(gh, in, logs, found, gh.Getenv("GITHUB_WORKSPACE"), complete)
	if in.summary {
		gh.AddStepSummary(summary)
	}
	setOutputs(gh, outs)
	return code
}

// readInputs reads and checks every input; errors name the input.
func readInputs(gh *githubactions.Action, now func() time.Time) (inputs, error) {
	if gh.GetInput("mode") == ModeMerge {
		return readMergeInputs(gh, now)
	}
	var in inputs
	file := hostPaths(gh)
	for _, line := range strings.Split(gh.GetInput("events"), "\n") {
		if p := strings.TrimSpace(line); p != "" {
			in.events = append(in.events, file(p))
		}
	}
	if len(in.events) == 0 {
		return in, errors.New("the events input is required: a path or glob of JSON Lines event logs")
	}
	in.mode = orDefault(gh.GetInput("mode"), ModeCheck)
	if in.mode != ModeCheck && in.mode != ModeValidate {
		return in, fmt.Errorf("mode %q: use check, validate or merge", in.mode)
	}
	in.logOrder = orDefault(gh.GetInput("log-order"), logsource.OrderGiven)
	if in.logOrder != logsource.OrderGiven && in.logOrder != logsource.OrderName {
		return in, fmt.Errorf("log-order %q: use given or name", in.logOrder)
	}
	gate := orDefault(gh.GetInput("gate"), string(checker.GateAll))
	if gate != string(checker.GateAll) && gate != string(checker.GateLatest) {
		return in, fmt.Errorf("gate %q: use all or latest", gate)
	}
	in.gate = checker.Gate(gate)
	err := in.readLimits(gh)
	if err != nil {
		return in, err
	}
	in.snapshot = gh.GetInput("snapshot")
	if strings.ContainsAny(in.snapshot, "\r\n") {
		return in, errors.New("the snapshot input must be one path on one line")
	}
	in.snapshotFile = file(in.snapshot)
	if in.reports, err = parseReports(gh.GetInput("reports")); err != nil {
		return in, err
	}
	for i := range in.reports {
		in.reports[i].path = file(in.reports[i].path)
	}
	in.format = orDefault(gh.GetInput("input-format"), formatNative)
	if in.format != formatNative && in.format != formatOpenLineage {
		return in, fmt.Errorf("input-format %q: use native or openlineage", in.format)
	}
	// The check mode's fail-on-unhealthy gates, so it needs a freshness
	// expectation as greenlight gate does (max-age, max_age or a schedule).
	req := checker.Request{Knob: input, Gate: string(in.gate), InputFormat: in.format, MaxAge: gh.GetInput("max-age"),
		Gating: in.mode == ModeCheck && in.failOnUnhealthy}
	if req.InferStages, err = boolInput(gh, "infer-stages", false); err != nil {
		return in, err
	}
	if in.stale != 0 {
		req.StaleAfterSeconds = &in.stale
	}
	in.pipelineFile = file(gh.GetInput("pipeline"))
	if in.opts, err = definitionOptions(req, in.pipelineFile, gh.GetInput("stages")); err != nil {
		return in, err
	}
	if err := in.readJobLog(gh, file(gh.GetInput("job-log"))); err != nil {
		return in, err
	}
	if s := gh.GetInput("now"); s != "" {
		if in.opts.Now, err = checker.ParseTime(s); err != nil {
			return in, fmt.Errorf("now %q: %v", s, err)
		}
	} else {
		in.opts.Now = now().UTC()
	}
	in.opts.ToolVersion = cli.ToolVersion()
	return in, nil
}

// readLimits reads the inputs stale-after-seconds, fail-on-unhealthy,
// summary and max-annotations into in.
func (in *inputs) readLimits(gh *githubactions.Action) error {
	var err error
	if s := gh.GetInput("stale-after-seconds"); s != "" {
		if in.stale, err = strconv.Atoi(s); err != nil || in.stale < 1 || in.stale > limits.StaleAfterSeconds {
			return fmt.Errorf("stale-after-seconds %q: use a whole number of seconds from 1 to %d", s, limits.StaleAfterSeconds)
		}
	}
	if in.failOnUnhealthy, err = boolInput(gh, "fail-on-unhealthy", true); err != nil {
		return err
	}
	if in.summary, err = boolInput(gh, "summary", true); err != nil {
		return err
	}
	in.maxAnnotations = DefaultMaxAnnotations
	if s := gh.GetInput("max-annotations"); s != "" {
		if in.maxAnnotations, err = strconv.Atoi(s); err != nil || in.maxAnnotations < 0 || in.maxAnnotations > RunnerErrorAnnotations {
			return fmt.Errorf("max-annotations %q: use a whole number from 0 to %d (the runner shows no more)", s, RunnerErrorAnnotations)
		}
	}
	return nil
}

// readJobLog reads the job log at path (the job-log input in the module's
// view; "" when not given) into in: one path on one line, input-format
// native, a file inside the workspace.
func (in *inputs) readJobLog(gh *githubactions.Action, path string) error {
	if in.jobLogFile = path; in.jobLogFile != "" {
		switch {
		case strings.ContainsAny(in.jobLogFile, "\r\n"):
			return errors.New("the job-log input must be one path on one line")
		case in.format != formatNative:
			return errors.New("the job-log input applies to input-format native only: OpenLineage attempts carry no attempt_id to match job-log records with")
		}
		root, err := workspaceRoot(gh.Getenv("GITHUB_WORKSPACE"))
		if err == nil {
			err = inWorkspace(root, in.jobLogFile, "a job log")
		}
		if err != nil {
			return fmt.Errorf("job-log %q: %v", in.jobLogFile, err)
		}
		if in.jobLog, err = osfile.ReadFile(in.jobLogFile); err != nil {
			return fmt.Errorf("cannot read the job log: %s", osfile.Describe(err))
		}
	}
	return nil
}

// hostPaths returns how path inputs map to the files action mode opens:
// unchanged, or, in the wasip1 module on a Windows runner (HostPathsVar),
// through GuestPath.
func hostPaths(gh *githubactions.Action) func(string) string {
	if gh.Getenv(HostPathsVar) == "windows" {
		return GuestPath
	}
	return func(p string) string { return p }
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// input is the action's input for a checker.Request field in the checker's
// messages (Request.Knob): "stages" for Stages, "max-age" for MaxAge,
// "job-log" for JobLogFile, as action.yml names them.
func input(field string) string { return words.Knob(field, "", '-') }

// boolInput reads a true/false input the way the Actions toolkit's
// getBooleanInput does (true, True, TRUE, false, False, FALSE).
func boolInput(gh *githubactions.Action, name string, def bool) (bool, error) {
	switch v := gh.GetInput(name); v {
	case "":
		return def, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	default:
		return false, fmt.Errorf("%s %q: use true or false", name, v)
	}
}

// definitionOptions builds the check's options through checker.Request, as
// the CLI and the js module do: req holds the inputs read so far, and the
// pipeline definition file (the pipeline input) or the stages input is added
// to it. The checks before it word the errors for the action's inputs.
func definitionOptions(req checker.Request, pipeline, stages string) (checker.Options, error) {
	var o checker.Options
	switch {
	case req.InputFormat == formatOpenLineage && stages != "":
		return o, errors.New("the stages input declares native stage ids; with input-format openlineage give no definition (the stages come from the log) or a pipeline file whose stage names are the jobs")
	case pipeline != "" && stages != "":
		return o, errors.New("give either the pipeline input or the stages input, not both")
	case pipeline == "" && stages == "" && req.InputFormat != formatOpenLineage:
		// Without a definition, an OpenLineage log's expected stages come
		// from the log; a native log has none.
		return o, errors.New("no stages declared: set the pipeline input to a pipeline definition file, or the stages input (e.g. 1,2) for a linear pipeline; greenlight never guesses the stages")
	}
	req.PipelineName, req.Stages = pipeline, stages
	if pipeline != "" {
		data, err := osfile.ReadFile(pipeline)
		if err != nil {
			return o, fmt.Errorf("%s", viewError("read", pipeline, func() string {
				return "cannot read the pipeline definition: " + osfile.Describe(err)
			}))
		}
		req.Pipeline = data
	}
	return req.Options()
}

// expand turns the events patterns into a sorted list of files without
// duplicates. A pattern with no glob characters names one file, which must
// exist; a glob (with ** for any depth) must match at least one file. A
// directory the pattern matches is not a file and is passed over, and **
// does not descend into a symbolic link; every other match must be a
// regular file inside the workspace (inWorkspace).
func expand(patterns []string, workspace string) ([]string, error) {
	root, err := workspaceRoot(workspace)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var files []string
	for _, p := range patterns {
		matches, err := doublestar.FilepathGlob(p, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors(), doublestar.WithNoFollow())
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("events %q: %v", p, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("events %q matches no file; fail-closed: no log is not a healthy log", p)
		}
		sort.Strings(matches)
		for _, m := range matches {
			if err := inWorkspace(root, m, "an event log"); err != nil {
				return nil, fmt.Errorf("events %q: %v", p, err)
			}
			if !seen[m] {
				seen[m] = true
				files = append(files, m)
			}
		}
	}
	return files, nil
}

// checkAll checks the files: in check mode with the native format as one
// log, read in the order given (a rotated log, see docs/action.md), else
// each file as its own log; in the input format, with the job log when
// one is given. Each file is read through internal/logsource, so gzip and
// zstd files are decompressed.
func checkAll(files []string, in inputs) ([]render.LogResult, error) {
	groups := make([][]string, 0, len(files))
	if in.mode == ModeCheck && in.format == formatNative {
		groups = append(groups, files)
	} else {
		for _, name := range files {
			groups = append(groups, []string{name})
		}
	}
	logs := make([]render.LogResult, 0, len(groups))
	for _, group := range groups {
		names := make([]string, len(group))
		for i, name := range group {
			names[i] = filepath.ToSlash(name)
		}
		opened, err := logsource.Open(group, nil, osfile.Open, func(err error) error {
			return fmt.Errorf("cannot read the event log: %s", osfile.Describe(err))
		})
		if err != nil {
			return nil, err
		}
		o := in.opts
		o.File = names[0]
		if len(names) > 1 {
			o.File = strings.Join(in.events, " ")
		}
		if in.jobLogFile != "" {
			o.JobLog, o.JobLogFile = bytes.NewReader(in.jobLog), filepath.ToSlash(in.jobLogFile)
		}
		logFiles := logsource.Logs(opened)
		for i := range logFiles {
			logFiles[i].Path = filepath.ToSlash(logFiles[i].Path)
		}
		var res *checker.Result
		if in.format == formatOpenLineage {
			res, err = openlineage.Check(logFiles[0].R, o)
		} else {
			// The host hashes the log where it can (hostSHA256).
			res, err = checker.CheckFiles(logFiles, o, checker.Reading{NewSHA256: hostSHA256()})
		}
		logsource.CloseAll(opened)
		if err != nil {
			return nil, err
		}
		logs = append(logs, render.LogResult{File: o.File, Snapshot: res.Snapshot, Report: res.Report})
	}
	return logs, nil
}

// readRuns reads the runs of every log once for everything action mode
// writes of them: in check mode each valid log gets the Selector of its
// default listing (l.Selected: the rows of the step log's report and of
// the job summary's runs table), and f, when not nil, the annotations of
// every run (f.startLog). Each run report is built once, where three
// passes over the runs built it three times: on the 1M-event log under
// node those passes were over half of the module's CPU time.
func readRuns(logs []render.LogResult, mode string, f *finder) {
	for i := range logs {
		l := &logs[i]
		var each func(*checker.RunReport)
		if f != nil {
			each = f.startLog(*l)
		}
		if mode == ModeCheck && l.Snapshot != nil {
			l.Selected = render.NewSelector(l.Snapshot, render.ListOptions{})
		}
		if l.Selected == nil && each == nil {
			continue
		}
		for r := range l.Snapshot.Runs() {
			if l.Selected != nil {
				l.Selected.Offer(r)
			}
			if each != nil {
				each(r)
			}
		}
	}
}

// printReports prints each log's text report to the step log between
// ::stop-commands::TOKEN and ::TOKEN::, so that no text from a log can run a
// workflow command. The reports are written line by line as they are
// rendered (render.WriteText), never held whole.
func printReports(gh *githubactions.Action, token, mode string, logs []render.LogResult) {
	gh.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	b := &stepLog{gh: gh}
	for _, l := range logs {
		fmt.Fprintf(b, "== %s %s\n", mode, render.Terminal(l.File))
		if l.Snapshot == nil {
			io.WriteString(b, render.ViolationsText(l.Report))
			fmt.Fprintf(b, "greenlight: invalid: %s; nothing in this log is evidence\n", words.Count(l.Report.ViolationCount, "contract violation"))
			continue
		}
		if mode == ModeValidate {
			fmt.Fprintf(b, "greenlight: follows the event contract (%s)\n", words.Count(l.Snapshot.Source.EventCount, "event"))
			continue
		}
		// A stepLog never fails; gh panics if it cannot write.
		if l.Selected != nil {
			render.WriteTextListing(b, l.Snapshot, l.Selected.Listing(render.ListOptions{}))
		} else {
			render.WriteText(b, l.Snapshot)
		}
	}
	b.flush()
	gh.IssueCommand(&githubactions.Command{Name: token})
}

// stepLog writes text to the step log with gh.Infof in pieces of whole
// lines of about stepLogChunk bytes (Infof ends each with a line break,
// so the pieces join up to the same text), holding at most one piece and
// one line.
type stepLog struct {
	gh  *githubactions.Action
	buf []byte
}

const stepLogChunk = 64 << 10

func (s *stepLog) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	if len(s.buf) >= stepLogChunk {
		if i := bytes.LastIndexByte(s.buf, '\n'); i >= 0 {
			s.gh.Infof("%s", s.buf[:i])
			s.buf = s.buf[:copy(s.buf, s.buf[i+1:])]
		}
	}
	return len(p), nil
}

// flush writes what is left, its last line break dropped (Infof adds it).
func (s *stepLog) flush() {
	if len(s.buf) > 0 {
		s.gh.Infof("%s", bytes.TrimSuffix(s.buf, []byte("\n")))
		s.buf = s.buf[:0]
	}
}

// outputs computes the step outputs: only values greenlight computed, and a
// run id and state that the event contract keeps free of control characters.
func outputs(logs []render.LogResult, verdict, snapshot string) map[string]string {
	runs, failed, stalled, requests, violations := 0, 0, 0, 0, 0
	for _, l := range logs {
		violations += l.Report.ViolationCount
		if l.Snapshot != nil {
			runs += l.Snapshot.RunCount
			failed += l.Snapshot.StateCounts.Failed
			stalled += l.Snapshot.StateCounts.Stalled
			requests += unhealthyRequests(l.Snapshot)
		}
	}
	latestID, latestState := "", ""
	if r := render.LatestRun(logs); r != nil {
		latestID, latestState = r.Run.RunID, string(r.Run.State)
	}
	return map[string]string{
		"verdict":            verdict,
		"run-count":          strconv.Itoa(runs),
		"failed-runs":        strconv.Itoa(failed),
		"stalled-runs":       strconv.Itoa(stalled),
		"unhealthy-requests": strconv.Itoa(requests),
		"latest-run-id":      latestID,
		"latest-run-state":   latestState,
		"snapshot":           snapshot,
		"violations":         strconv.Itoa(violations),
	}
}

// unhealthyRequests counts s's stale and unclaimed requests
// (docs/recovery.md, Claimed requests): the unhealthy-requests output.
func unhealthyRequests(s *checker.Snapshot) int {
	if s.Requests == nil {
		return 0
	}
	return s.Requests.Counts.Unhealthy()
}

// sanitizeOutputs empties every value that holds a line break or the
// library's delimiter, which could end the value early and forge another
// output, turns the verdict invalid (fail-closed) and names them in the
// error.
func sanitizeOutputs(outs map[string]string) error {
	var bad []string
	for k, v := range outs {
		if strings.ContainsAny(v, "\r\n") || strings.Contains(v, outputDelimiter) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	for _, k := range bad {
		outs[k] = ""
	}
	outs["verdict"] = render.VerdictInvalid
	return fmt.Errorf("output %s written empty and verdict invalid: the value would break the GITHUB_OUTPUT file format", strings.Join(bad, ", "))
}

// setOutputs writes the outputs, which sanitizeOutputs has checked, in name
// order.
func setOutputs(gh *githubactions.Action, outs map[string]string) {
	names := make([]string, 0, len(outs))
	for k := range outs {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		gh.SetOutput(k, outs[k])
	}
}
