package action

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// annotation is one error annotation: the log file and line that prove it,
// a title and a message. Title and message may hold log text; the library
// escapes them for the workflow command (message: % CR LF; properties also
// : and ,).
type annotation struct {
	file    string
	line    int
	title   string
	message string
}

// kind orders annotations: a broken contract first, then failed stages,
// then missed schedule slots, a stale log and stale or unclaimed requests
// (as grave as a failed run), then stalled stages.
type kind int

const (
	kindViolation kind = iota
	kindFailed
	kindMissed
	kindStalled
	kindEmpty
)

type ranked struct {
	annotation
	kind  kind
	at    time.Time // the run's logical time, latest first
	order int       // log and line order, later first among equal times
}

// finder finds every annotation the logs call for, fed log by log
// (startLog) and run by run in action mode's one pass (readRuns), and
// holds the first keep of them, most important first: every contract
// violation the reports list (in log and line order), then, in check mode,
// every failed stage, stage of unknown outcome and job-log outcome
// mismatch, then every missed slot and stale or unclaimed request (under
// every gate; by their slot, latest first), then every stalled stage of
// the runs in the gate scope, latest run first, then every log without runs (unhealthy: it proves nothing).
// Validate mode annotates violations only. result's total counts them
// all; unlisted counts the violations beyond the reports' cap, which have
// no line to point at. A streamed snapshot stays streamed, and at most
// keep annotations are held.
type finder struct {
	mode  string
	gate  checker.Gate
	keep  int
	ranks []ranked
	seq   int
	total int
	// unlisted counts the violations beyond the reports' cap.
	unlisted int
}

// add keeps ranks the first keep of everything added, in the order a
// stable sort by less would give.
func (f *finder) add(r ranked) {
	f.total++
	i := sort.Search(len(f.ranks), func(i int) bool { return less(r, f.ranks[i]) })
	if i >= f.keep {
		return
	}
	f.ranks = slices.Insert(f.ranks, i, r)
	if len(f.ranks) > f.keep {
		f.ranks = f.ranks[:f.keep]
	}
}

// result returns what problems returns.
func (f *finder) result() (top []annotation, total, unlisted int) {
	top = make([]annotation, len(f.ranks))
	for i := range f.ranks {
		top[i] = f.ranks[i].annotation
	}
	return top, f.total, f.unlisted
}

// startLog adds the annotations of log l that are not of a run, and
// returns the function to call with each of l's runs, in the order
// l.Snapshot.Runs yields them; nil when no run of l needs reading (an
// invalid log, validate mode, no runs, or gate latest, whose one run it
// annotates itself). The logs must be started in order.
func (f *finder) startLog(l render.LogResult) func(*checker.RunReport) {
	if l.Snapshot == nil {
		f.unlisted += l.Report.OmittedCount
		for _, v := range l.Report.Violations {
			f.seq++
			f.add(ranked{annotation{v.File, v.Line, "invalid event log: " + string(v.Rule), v.Message}, kindViolation, time.Time{}, f.seq})
		}
		return nil
	}
	if f.mode == ModeValidate {
		return nil
	}
	// at is the file and line of a line of the log, which counts lines
	// across the log's files.
	at := func(line int) (string, int) {
		if len(l.Snapshot.Source.Files) > 1 {
			return l.Snapshot.Source.Locate(line)
		}
		return l.File, line
	}
	if l.Snapshot.RunCount == 0 {
		f.seq++
		file, _ := at(1)
		f.add(ranked{annotation{file, 1, "no runs in the log", "the log holds no event, so nothing proves health; an empty log is unhealthy"}, kindEmpty, time.Time{}, f.seq})
		return nil
	}
	if render.IsStale(l.Snapshot) {
		// The stale finding has no line either; it is as grave as a
		// missed slot, under every gate.
		f.seq++
		file, _ := at(1)
		f.add(ranked{annotation{file, 0, "stale: no success within max_age",
			render.StaleSummary(l.Snapshot, func(t string) string { return t }) + "; silence is not health"}, kindMissed, l.Snapshot.Freshness.LatestSuccess, f.seq})
	}
	if sch := l.Snapshot.Schedule; sch != nil && f.gate != checker.GateLatest {
		// A missed slot has no line to point at: the annotation names
		// the log file only.
		for _, m := range sch.Missed {
			f.seq++
			file, _ := at(1)
			f.add(ranked{annotation{file, 0, "scheduled run missed: slot " + m.ScheduledFor,
				render.MissedSummary(&m) + "; the schedule expected a run and the log shows none"}, kindMissed, m.Slot, f.seq})
		}
	}
	// A stale or unclaimed request is unhealthy under every gate
	// (docs/recovery.md, Claimed requests), as grave as a missed slot; its
	// annotation points at the claim's line, else the request's, as the
	// SARIF request_stale finding does.
	if rq := l.Snapshot.Requests; rq != nil {
		for i := range rq.Requests {
			r := &rq.Requests[i]
			if len(r.Steps) == 0 {
				continue
			}
			f.seq++
			f.add(ranked{located(at, render.RequestLine(r), fmt.Sprintf("request %s %s", r.RequestID, r.State), render.RequestSummary(r)),
				kindMissed, requestTime(r), f.seq})
		}
	}
	mismatches := outcomeMismatches(l.Snapshot)
	each := func(r *checker.RunReport) { f.addRun(l.Snapshot, at, mismatches, r) }
	// With gate latest only the latest run is annotated: build its report
	// alone rather than every run's.
	if f.gate == checker.GateLatest {
		if r := render.Latest(l.Snapshot); r != nil {
			each(r)
		}
		return nil
	}
	return each
}

// addRun adds the annotations of run r of the snapshot s: its failed,
// stalled and unknown stages, and the stages a job log disagrees on
// (mismatches); at locates a line of the log.
func (f *finder) addRun(s *checker.Snapshot, at func(int) (string, int), mismatches map[mismatchKey][]checker.Inconsistency, r *checker.RunReport) {
	f.seq++
	first := r.LogicalTime() // the one order of runs (docs/contract.md)
	for k := range r.Stages {
		st := &r.Stages[k]
		if len(st.Attempts) == 0 {
			continue
		}
		a := &st.Attempts[len(st.Attempts)-1]
		switch st.State {
		case checker.StageFailed:
			msg := fmt.Sprintf("attempt %d failed", a.Attempt)
			if a.Returncode != nil {
				msg += fmt.Sprintf(", returncode %d", *a.Returncode)
			}
			if a.Error != nil {
				msg += ": " + render.Clip(*a.Error, render.MaxSummaryTextRunes)
			}
			f.add(ranked{located(at, a.Line, fmt.Sprintf("%s failed in run %s", render.StageLabel(st), r.RunID), msg), kindFailed, first, f.seq})
		case checker.StageStalled:
			limit := fmt.Sprintf("longer than stale-after-seconds %d", s.Options.StaleAfterSeconds)
			if sd := s.Options.Stages[k].StaleAfterSeconds; sd != nil {
				limit = fmt.Sprintf("longer than the stage's stale_after_seconds %d", *sd)
			}
			if a.LeaseExpiresAt != nil {
				limit = fmt.Sprintf("past its lease (%s) and the lease margin of %d s", *a.LeaseExpiresAt, s.Options.LeaseMarginSeconds)
			}
			msg := fmt.Sprintf("attempt %d silent for %s since this line, %s: a stall candidate, not proof",
				a.Attempt, render.Duration(*a.SilentForSeconds), limit)
			f.add(ranked{located(at, a.Line, fmt.Sprintf("%s stalled in run %s", render.StageLabel(st), r.RunID), msg), kindStalled, first, f.seq})
		case checker.StageUnknown:
			msg := fmt.Sprintf("attempt %d has an unknown outcome", a.Attempt)
			if a.Reason != nil {
				msg += ": " + render.Clip(*a.Reason, render.MaxSummaryTextRunes)
			}
			msg += "; adjudicate it with evidence (a resolved event), never rerun it to see if it works"
			f.add(ranked{located(at, a.Line, fmt.Sprintf("%s outcome unknown in run %s", render.StageLabel(st), r.RunID), msg), kindFailed, first, f.seq})
		}
		// A job log that disagrees with the event log makes the run
		// unknown whatever the stage's own state.
		for _, inc := range mismatches[mismatchKey{r.RunID, st.Stage}] {
			msg := render.Clip(inc.Message, render.MaxSummaryTextRunes) + "; find which record is wrong before rerunning or resolving"
			f.add(ranked{located(at, *inc.Line, fmt.Sprintf("job log disagrees on %s in run %s", render.StageLabel(st), r.RunID), msg), kindFailed, first, f.seq})
		}
	}
}

// requestTime is when a request's work was due, to order it among the
// missed slots: its scheduled_for, else when it was requested; the zero
// time (last) if neither parses, which a valid snapshot never has.
func requestTime(r *checker.RequestReport) time.Time {
	at := r.RequestedAt
	if r.ScheduledFor != nil {
		at = *r.ScheduledFor
	}
	t, _ := time.Parse(time.RFC3339, at)
	return t
}

// less orders annotations: by kind; violations and empty logs in log and
// line order; the others latest run first, later line first among equal
// times.
func less(a, b ranked) bool {
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if a.kind == kindViolation || a.kind == kindEmpty {
		return false // keep log and line order
	}
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	return a.order > b.order
}

// mismatchKey names one stage of one run.
type mismatchKey struct {
	runID string
	stage checker.StageID
}

// outcomeMismatches returns the job-log OUTCOME_MISMATCH inconsistencies
// that point at an event-log line, by the run and stage they concern, in
// the order the snapshot lists them (one pass, however many runs).
func outcomeMismatches(s *checker.Snapshot) map[mismatchKey][]checker.Inconsistency {
	if s.Reconciliation == nil {
		return nil
	}
	out := map[mismatchKey][]checker.Inconsistency{}
	for _, inc := range s.Reconciliation.Inconsistencies {
		if inc.Code == checker.OutcomeMismatch && inc.RunID != nil && inc.Stage != nil && inc.Line != nil {
			k := mismatchKey{*inc.RunID, *inc.Stage}
			out[k] = append(out[k], inc)
		}
	}
	return out
}

// annotationBudget is how many error annotations to emit: max-annotations,
// but never more than the runner shows, less the one it spends on the exit
// code when the step fails.
func annotationBudget(max int, failing bool) int {
	limit := RunnerErrorAnnotations
	if failing {
		limit--
	}
	if max > limit {
		return limit
	}
	return max
}

// annotate emits the error annotations that f found in the logs (readRuns),
// f's keep being the budget: annotationBudget less the errors greenlight
// has already emitted of its own; f is nil when nothing is left of the
// budget. When there are more than fit, the last annotation says how many
// were left out and what lists them; complete is whether the job summary
// lists every row of its default tables (render.JobSummaryComplete).
func annotate(gh *githubactions.Action, in inputs, logs []render.LogResult, f *finder, workspace string, complete bool) {
	if f == nil {
		return
	}
	budget := f.keep
	top, total, unlisted := f.result()
	if total+unlisted == 0 {
		return
	}
	emit(gh, top, total, unlisted, budget, listedWhere(logs, in.mode, in.summary, complete, unlisted), workspace)
}

// listedWhere says, for the last annotation, what lists the problems left
// out, and only what is true: the job summary (or, without one, the step
// log above) lists every unhealthy run of a log only when the log has at
// most render.DefaultMaxUnhealthy unhealthy runs and missed slots (else
// the latest of them), and every violation only when the reports list them
// all; the job summary lists fewer when it had to fit the runner's limit.
func listedWhere(logs []render.LogResult, mode string, summary, complete bool, unlisted int) string {
	sink := "the step log above"
	if summary {
		sink = "the job summary"
	}
	capped := false // some log has more unhealthy rows than are listed
	for _, l := range logs {
		if s := l.Snapshot; s != nil && mode != ModeValidate {
			missed, _ := render.MissedCount(s)
			capped = capped || s.RunCount-s.StateCounts.Succeeded+missed > render.DefaultMaxUnhealthy
		}
	}
	switch {
	case summary && !complete:
		return sink + " lists as many of them as fit in the runner's 1 MiB limit; greenlight check --format json lists every run"
	case capped:
		return fmt.Sprintf("%s lists the latest %d unhealthy runs and missed slots of each log; greenlight check --format json lists every run", sink, render.DefaultMaxUnhealthy)
	case unlisted > 0:
		return sink + " lists the violations each log's report lists and counts the rest"
	}
	return sink + " lists them all"
}

// located is the annotation at a line of the log, which at turns into its
// file and line there.
func located(at func(int) (string, int), line int, title, message string) annotation {
	file, n := at(line)
	return annotation{file, n, title, message}
}

// emit writes the annotations within budget (> 0), from top, the first of
// total. When they do not all fit, or unlisted problems have no annotation
// of their own, the last one says how many were left out and, in where,
// what lists them.
func emit(gh *githubactions.Action, top []annotation, total, unlisted, budget int, where string, workspace string) {
	shown := top
	if total+unlisted > budget {
		shown = top[:min(len(top), budget-1)]
	}
	for _, a := range shown {
		// go-githubactions escapes %, CR, LF (and : , in properties);
		// render.Annotation turns every other control character visible.
		props := githubactions.CommandProperties{
			"file":  render.Annotation(annotationPath(a.file, workspace)),
			"title": render.Annotation(a.title),
		}
		if a.line > 0 {
			props["line"] = strconv.Itoa(a.line)
		}
		gh.WithFieldsMap(props).Errorf("%s", render.Annotation(a.message))
	}
	if rest := total + unlisted - len(shown); rest > 0 {
		gh.WithFieldsMap(githubactions.CommandProperties{"title": "greenlight: " + words.Count(rest, "more problem")}).
			Errorf("%s", fmt.Sprintf("%s not annotated: the runner shows at most %d error annotations per step; %s", words.Count(rest, "more problem is"), RunnerErrorAnnotations, where))
	}
}

// annotationPath makes a log's path relative to the workspace, with forward
// slashes, so that the annotation links to the file in the repository.
func annotationPath(file, workspace string) string {
	if workspace != "" && filepath.IsAbs(filepath.FromSlash(file)) {
		if rel, err := filepath.Rel(workspace, filepath.FromSlash(file)); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}
