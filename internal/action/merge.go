package action

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/schemas"
)

// ModeMerge rolls up the snapshots of other jobs (a CI matrix) as
// greenlight merge does (docs/merge.md).
const ModeMerge = "merge"

// readMergeInputs reads the inputs of mode merge: events, which then names
// the snapshot files (paths or globs, one per line), max-age, and the
// inputs every mode shares (now, fail-on-unhealthy, summary, reports). The
// other event-log inputs do not apply.
func readMergeInputs(gh *githubactions.Action, now func() time.Time) (inputs, error) {
	in := inputs{mode: ModeMerge}
	file := hostPaths(gh)
	for _, line := range strings.Split(gh.GetInput("events"), "\n") {
		if p := strings.TrimSpace(line); p != "" {
			in.events = append(in.events, file(p))
		}
	}
	if len(in.events) == 0 {
		return in, errors.New("mode merge needs the events input: paths or globs of the snapshot files to roll up")
	}
	var err error
	if in.maxAge, err = cli.ParseMaxAge("max-age", gh.GetInput("max-age")); err != nil {
		return in, err
	}
	if in.expect, err = expectInput(gh.GetInput("expect")); err != nil {
		return in, err
	}
	if in.failOnUnhealthy, err = boolInput(gh, "fail-on-unhealthy", true); err != nil {
		return in, err
	}
	if in.summary, err = boolInput(gh, "summary", true); err != nil {
		return in, err
	}
	if in.reports, err = parseReports(gh.GetInput("reports")); err != nil {
		return in, err
	}
	for i := range in.reports {
		in.reports[i].path = file(in.reports[i].path)
	}
	if s := gh.GetInput("now"); s != "" {
		if in.opts.Now, err = checker.ParseTime(s); err != nil {
			return in, fmt.Errorf("now %q: %v", s, err)
		}
	} else {
		in.opts.Now = now().UTC()
	}
	return in, nil
}

// expectInput reads the expect input of mode merge: any, or the expected
// pipelines' names, comma-separated or one a line (blank lines and lines
// starting with # ignored). It is required, as greenlight merge's --expect
// is, and one that names no pipeline is an error.
func expectInput(text string) (render.RollupExpect, error) {
	if strings.TrimSpace(text) == "" {
		return render.RollupExpect{}, errors.New("mode merge needs the expect input: the pipelines that must have a snapshot, one name a line (or comma-separated), so that a pipeline whose snapshot is missing makes the roll-up unhealthy; expect: any takes whatever snapshots are given")
	}
	var names []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	if len(names) == 0 {
		return render.RollupExpect{}, errors.New("expect names no pipeline: give one name a line (blank lines and # comments are ignored)")
	}
	return cli.ParseExpect("expect", strings.Join(names, ","), "expect", nil)
}

// mergeMain is action mode with mode merge: it expands the events input
// (the snapshot files), rolls them up, prints the roll-up between stop-commands, writes
// the reports, the job summary and the outputs, and returns the exit code
// of greenlight merge (2 when a snapshot is unusable, 1 when the roll-up
// is unhealthy and fail-on-unhealthy is true).
func mergeMain(env Env, in inputs) int {
	gh := env.GH
	fail := func(err error) int {
		schemas.BeginOutput()
		gh.Errorf("%s", "greenlight action: "+err.Error())
		setOutputs(gh, map[string]string{"verdict": render.VerdictInvalid})
		return cli.ExitInvalid
	}
	files, err := expand(in.events, gh.Getenv("GITHUB_WORKSPACE"))
	if err != nil {
		return fail(fmt.Errorf("snapshots: %v", err))
	}
	if err := checkOutputs(in, files, "the snapshot file", gh.Getenv("GITHUB_WORKSPACE")); err != nil {
		return fail(err)
	}
	snaps, err := cli.ReadSnapshots(files)
	if err != nil {
		return fail(err)
	}
	schemas.BeginOutput() // as in Main
	token, err := env.Token()
	if err != nil {
		return fail(err)
	}
	ru, logs := render.BuildRollup(snaps, in.opts.Now, in.maxAge, in.expect)
	code := cli.ExitOK
	switch {
	case ru.Counts.Unusable > 0:
		code = cli.ExitInvalid
	case ru.Verdict != checker.VerdictHealthy && in.failOnUnhealthy:
		code = cli.ExitUnhealthy
	}
	gh.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	gh.Infof("%s", strings.TrimSuffix(render.RollupText(ru), "\n"))
	gh.IssueCommand(&githubactions.Command{Name: token})
	own := writeReportLogs(in, logs)
	for _, p := range ru.Pipelines {
		if p.Problem != nil {
			gh.Errorf("%s", "greenlight merge: "+render.Terminal(cli.RollupEntryName(p))+": "+render.Terminal(*p.Problem))
		}
	}
	for _, msg := range own {
		gh.Errorf("%s", "greenlight action: "+msg)
	}
	if len(own) > 0 {
		code = cli.ExitInvalid
	}
	if in.summary {
		gh.AddStepSummary(render.RollupMarkdown(ru))
	}
	runs, failed, stalled, requests := 0, 0, 0, 0
	for _, l := range logs {
		if l.Result != nil && l.Result.Snapshot != nil {
			runs += l.Result.Snapshot.RunCount
			failed += l.Result.Snapshot.StateCounts.Failed
			stalled += l.Result.Snapshot.StateCounts.Stalled
			requests += unhealthyRequests(l.Result.Snapshot)
		}
	}
	verdict := ru.Verdict
	if code == cli.ExitInvalid {
		verdict = render.VerdictInvalid // exit 2 always reads as invalid
	}
	setOutputs(gh, map[string]string{
		"verdict": verdict, "run-count": strconv.Itoa(runs), "failed-runs": strconv.Itoa(failed), "stalled-runs": strconv.Itoa(stalled),
		"unhealthy-requests": strconv.Itoa(requests), "latest-run-id": "", "latest-run-state": "", "snapshot": "", "violations": "0",
	})
	return code
}
