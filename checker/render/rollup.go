package render

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// RollupVersion is the schema_version of a roll-up (schemas/rollup.schema.json).
const RollupVersion = "greenlight.rollup/v2"

// RollupUnusable is the verdict of a roll-up entry whose snapshot cannot
// be used; the roll-up is then unhealthy.
const RollupUnusable = "unusable"

// Rollup is the document "greenlight merge" writes: every snapshot's
// pipeline with its verdict, and the overall verdict, healthy only when
// there is at least one snapshot and every one is usable and healthy.
type Rollup struct {
	SchemaVersion  string           `json:"schema_version"`
	GeneratedAtUTC string           `json:"generated_at_utc"`
	MaxAgeSeconds  int64            `json:"max_age_seconds"`
	Expect         RollupExpect     `json:"expect"`
	Verdict        string           `json:"verdict"`
	PipelineCount  int              `json:"pipeline_count"`
	Counts         RollupCounts     `json:"counts"`
	Pipelines      []RollupPipeline `json:"pipelines"`
}

// RollupExpect is the pipelines a roll-up expects: Any for whatever
// snapshots are given (greenlight merge --expect any), else the names in
// Pipelines, in the order declared, each of which needs a snapshot (a
// missing one is an unusable entry). Without an expectation a missing
// snapshot would be silently absent, so the shells refuse to merge without
// one.
type RollupExpect struct {
	Any       bool     `json:"any"`
	Pipelines []string `json:"pipelines"`
}

// RollupNoSnapshot is the problem of an expected pipeline that no
// snapshot given is of.
const RollupNoSnapshot = "no snapshot: the pipeline is expected, but no snapshot given is of it"

// RollupCounts counts the roll-up's entries by verdict.
type RollupCounts struct {
	Healthy   int `json:"healthy"`
	Unhealthy int `json:"unhealthy"`
	Unusable  int `json:"unusable"`
}

// RollupPipeline is one snapshot of a roll-up. Problem is set, and the
// other fields but Pipeline and Snapshot are empty, for a snapshot that
// cannot be used. Snapshot is "" for an expected pipeline that no
// snapshot given is of (Problem RollupNoSnapshot).
type RollupPipeline struct {
	Pipeline       string               `json:"pipeline"`
	Snapshot       string               `json:"snapshot"`
	Log            *string              `json:"log"`
	Verdict        string               `json:"verdict"`
	Problem        *string              `json:"problem"`
	GeneratedAtUTC *string              `json:"generated_at_utc"`
	Gate           *string              `json:"gate"`
	LatestRunID    *string              `json:"latest_run_id"`
	LatestRunState *string              `json:"latest_run_state"`
	RunCount       int                  `json:"run_count"`
	UnhealthyRuns  []RollupRun          `json:"unhealthy_runs"`
	MissedSlots    []checker.MissedSlot `json:"missed_slots"`
	// UnhealthyRequests are the snapshot's stale and unclaimed requests
	// (docs/recovery.md, Claimed requests), in its order; absent when it
	// has none.
	UnhealthyRequests []RollupRequest `json:"unhealthy_requests,omitempty"`
}

// RollupRun is an unhealthy run of a roll-up entry.
type RollupRun struct {
	RunID string `json:"run_id"`
	State string `json:"state"`
}

// RollupInput is one snapshot given to greenlight merge: its file and
// either the decoded snapshot (already validated against
// snapshot.schema.json) or why it could not be read or validated.
type RollupInput struct {
	File     string
	Snapshot *checker.Snapshot
	Problem  string
}

// FutureSkew is how far after now a snapshot's generated_at_utc may be
// before the snapshot counts as unusable (the event contract's clock skew).
const FutureSkew = 300 * time.Second

// BuildRollup judges the snapshots at now: each is usable only when it is
// no older than maxAge, not from the future, and consistent in itself
// (CheckSnapshotConsistency); two snapshots of one pipeline and log make
// the second unusable. Every pipeline that expect names and no snapshot
// is of gets an unusable entry of its own, after the snapshots'. It
// returns the roll-up and the snapshots as Logs for the CI formats.
func BuildRollup(inputs []RollupInput, now time.Time, maxAge time.Duration, expect RollupExpect) (*Rollup, []Log) {
	if expect.Pipelines == nil {
		expect.Pipelines = []string{}
	}
	ru := &Rollup{SchemaVersion: RollupVersion, GeneratedAtUTC: now.UTC().Format(time.RFC3339), MaxAgeSeconds: int64(maxAge / time.Second), Expect: expect, Verdict: checker.VerdictUnhealthy, Pipelines: []RollupPipeline{}}
	logs := make([]Log, 0, len(inputs))
	first := map[[2]string]string{}
	for _, in := range inputs {
		problem := in.Problem
		s := in.Snapshot
		pipeline := PipelineName("", in.File)
		var path string
		if problem == "" {
			def := ""
			if s.Options.Pipeline != nil {
				def = *s.Options.Pipeline
			}
			if s.Source.Path != "-" {
				path = s.Source.Path
			}
			pipeline = PipelineName(def, path)
			problem = snapshotProblem(s, now, maxAge)
		}
		if problem == "" {
			key := [2]string{pipeline, path}
			if f, dup := first[key]; dup {
				problem = fmt.Sprintf("a second snapshot of pipeline %s and log %s (the first is %s)", pipeline, fileName(path), f)
			} else {
				first[key] = in.File
			}
		}
		e := RollupPipeline{Pipeline: pipeline, Snapshot: in.File, UnhealthyRuns: []RollupRun{}, MissedSlots: []checker.MissedSlot{}}
		if problem != "" {
			p := problem
			e.Verdict, e.Problem = RollupUnusable, &p
			ru.Counts.Unusable++
			ru.Pipelines = append(ru.Pipelines, e)
			logs = append(logs, Log{Pipeline: pipeline, Path: in.File, JudgedAt: ru.GeneratedAtUTC, Problem: in.File + ": " + problem})
			continue
		}
		e.Log = &s.Source.Path
		e.Verdict = string(s.Verdict)
		g, gate := s.GeneratedAtUTC, string(s.Options.Gate)
		e.GeneratedAtUTC, e.Gate = &g, &gate
		e.LatestRunID = s.LatestRunID
		e.RunCount = s.RunCount
		forEachRun(s, func(row Row) bool {
			if row.Missed != nil {
				e.MissedSlots = append(e.MissedSlots, *row.Missed)
				return true
			}
			r := row.Run
			if s.LatestRunID != nil && r.RunID == *s.LatestRunID {
				st := string(r.State)
				e.LatestRunState = &st
			}
			if r.State != checker.RunSucceeded {
				e.UnhealthyRuns = append(e.UnhealthyRuns, RollupRun{RunID: r.RunID, State: string(r.State)})
			}
			return true
		})
		e.UnhealthyRequests = unhealthyRequests(s) // requests.go
		if s.Verdict == checker.VerdictHealthy {
			ru.Counts.Healthy++
		} else {
			ru.Counts.Unhealthy++
		}
		ru.Pipelines = append(ru.Pipelines, e)
		logs = append(logs, Log{Pipeline: pipeline, Path: path, JudgedAt: s.GeneratedAtUTC, Result: &checker.Result{Snapshot: s, Report: checker.NewReport()}})
	}
	if !expect.Any {
		present := make(map[string]bool, len(ru.Pipelines))
		for _, p := range ru.Pipelines {
			present[p.Pipeline] = true
		}
		for _, name := range expect.Pipelines {
			if present[name] {
				continue
			}
			present[name] = true
			problem := RollupNoSnapshot
			ru.Pipelines = append(ru.Pipelines, RollupPipeline{Pipeline: name, Verdict: RollupUnusable, Problem: &problem, UnhealthyRuns: []RollupRun{}, MissedSlots: []checker.MissedSlot{}})
			ru.Counts.Unusable++
			logs = append(logs, Log{Pipeline: name, JudgedAt: ru.GeneratedAtUTC, Problem: name + ": " + problem})
		}
	}
	ru.PipelineCount = len(ru.Pipelines)
	if ru.PipelineCount > 0 && ru.Counts.Healthy == ru.PipelineCount {
		ru.Verdict = checker.VerdictHealthy
	}
	return ru, logs
}

// snapshotProblem says why a decoded snapshot cannot be used at now, or "".
func snapshotProblem(s *checker.Snapshot, now time.Time, maxAge time.Duration) string {
	at, err := time.Parse(time.RFC3339Nano, s.GeneratedAtUTC)
	if err != nil {
		return fmt.Sprintf("generated_at_utc %q is not an RFC 3339 time", s.GeneratedAtUTC)
	}
	if age := now.Sub(at); age > maxAge {
		return fmt.Sprintf("stale: generated at %s, %s before %s, older than --max-age %s", s.GeneratedAtUTC, Duration(age.Seconds()), now.UTC().Format(time.RFC3339), Duration(maxAge.Seconds()))
	}
	if at.After(now.Add(FutureSkew)) {
		return fmt.Sprintf("generated at %s, after %s: a snapshot from the future proves nothing yet", s.GeneratedAtUTC, now.UTC().Format(time.RFC3339))
	}
	if err := CheckSnapshotConsistency(s); err != nil {
		return "tampered or corrupt: " + err.Error()
	}
	return ""
}

// CheckSnapshotConsistency checks what a snapshot says of itself against
// its runs: each run id is listed once, no run listed as succeeded has a
// close that did not finish, run_count and state_counts count
// the runs, latest_run_id is
// the one whose first event is latest (ties: the later line), and a
// healthy verdict is what the runs prove (at least one
// run; with gate all every run succeeded and no slot was missed; with gate
// latest the latest run succeeded or, with judged slots, the latest slot
// was filled and its latest run succeeded). An unhealthy verdict is never recomputed: greenlight
// merge only refuses to take a snapshot for healthier than its runs. These
// checks catch an edited or truncated snapshot, not a forged consistent
// one: a snapshot carries no signature.
func CheckSnapshotConsistency(s *checker.Snapshot) error {
	l, err := tallyListedRuns(s)
	if err != nil {
		return err
	}
	folded, err := tallyFoldedRuns(s, l.counts)
	if err != nil {
		return err
	}
	n := l.n
	if n+folded != s.RunCount {
		if folded > 0 {
			return fmt.Errorf("run_count is %d but the snapshot lists %s and folds %d", s.RunCount, words.Count(n, "run"), folded)
		}
		return fmt.Errorf("run_count is %d but the snapshot lists %s", s.RunCount, words.Count(n, "run"))
	}
	for _, state := range runStates {
		if claimed := stateCount(s.StateCounts, state); l.counts[state] != claimed {
			return fmt.Errorf("state_counts.%s is %d but %s %s", state, claimed, words.Count(l.counts[state], "run is"), state)
		}
	}
	// The latest run is folded (not listed) only when a window folded runs.
	latestFolded := s.LatestRunID != nil && l.latestState == "" && folded > 0
	if (s.LatestRunID == nil) != (n+folded == 0) || (s.LatestRunID != nil && l.latestState == "" && !latestFolded) {
		return fmt.Errorf("latest_run_id does not name one of the snapshot's runs")
	}
	if s.LatestRunID != nil && !latestFolded && *s.LatestRunID != l.latestID {
		return fmt.Errorf("latest_run_id is %s, but the run whose logical time is latest is %s", *s.LatestRunID, l.latestID)
	}
	if err := checkRequests(s); err != nil { // requests.go
		return err
	}
	if s.Verdict != checker.VerdictHealthy {
		return nil
	}
	return checkHealthyVerdict(s, l, folded, latestFolded)
}

// listedRuns is what CheckSnapshotConsistency reads of the runs a snapshot
// lists: n of them, counts by state (the folded ones added later), the
// state of the run latest_run_id names ("" when it is not listed), and the
// run Check would name latest: the latest logical time, ties to the later
// line (runs are listed in the order of their first line).
type listedRuns struct {
	n           int
	counts      map[string]int
	latestState string
	latestID    string
}

// tallyListedRuns reads the runs s lists. A run id is one run: a snapshot
// that lists one twice (a failed latest run renamed after an earlier
// success) is not what a check wrote, an error.
func tallyListedRuns(s *checker.Snapshot) (listedRuns, error) {
	l := listedRuns{counts: map[string]int{}}
	var latestAt time.Time
	position := map[string]int{}
	for r := range s.Runs() { // the document's order: by first line
		l.n++
		if first, seen := position[r.RunID]; seen {
			return l, fmt.Errorf("run_id %s is listed twice, as runs %d and %d: a snapshot lists each run once", r.RunID, first, l.n)
		}
		position[r.RunID] = l.n
		if err := checkClose(r); err != nil {
			return l, err
		}
		l.counts[string(r.State)]++
		if s.LatestRunID != nil && r.RunID == *s.LatestRunID {
			l.latestState = string(r.State)
		}
		if l.n == 1 || !r.LogicalTime().Before(latestAt) {
			l.latestID, latestAt = r.RunID, r.LogicalTime()
		}
	}
	return l, nil
}

// checkClose refuses a run listed as succeeded whose close did not finish
// (docs/recovery.md, The run's close): a close code other than
// RUN_ARCHIVED, or a lock problem still outstanding, leaves the run
// incomplete whatever its stages say, so such a run is an edited state.
func checkClose(r *checker.RunReport) error {
	cl := r.Close
	if cl == nil || r.State != checker.RunSucceeded {
		return nil
	}
	if cl.ResultCode != checker.CloseArchived {
		return fmt.Errorf("run %s is succeeded, but its close is %s: a run whose close did not finish is incomplete", r.RunID, cl.ResultCode)
	}
	if cl.LockProblemCode != nil {
		return fmt.Errorf("run %s is succeeded, but its close left the lock held (%s): a run whose close did not finish is incomplete", r.RunID, *cl.LockProblemCode)
	}
	return nil
}

// tallyFoldedRuns adds the runs a window folded to counts and returns how
// many it folded. A check with --window (docs/window.md) lists only the
// runs in its window and counts the folded ones in its window section:
// they are runs of the snapshot too, and the only ones it may name without
// listing them; the section's counts must agree with each other.
func tallyFoldedRuns(s *checker.Snapshot, counts map[string]int) (int, error) {
	w := s.Window
	if w == nil {
		return 0, nil
	}
	sum := 0
	for _, f := range foldedByState(w) {
		counts[f.state] += f.runs
		sum += f.runs
	}
	if sum != w.FoldedRunCount {
		return 0, fmt.Errorf("window.folded_state_counts add up to %d, not folded_run_count %d", sum, w.FoldedRunCount)
	}
	if w.FoldedStateCounts.Succeeded != sum {
		// A window folds only runs that succeeded (docs/window.md): an
		// unhealthy run is always listed by id.
		return 0, fmt.Errorf("window.folded_state_counts counts %s that did not succeed, but a window folds only runs that succeeded", words.Count(sum-w.FoldedStateCounts.Succeeded, "run"))
	}
	if (w.FoldedStateCounts.Succeeded > 0) != (w.LastFoldedSuccess != nil) {
		return 0, fmt.Errorf("window.last_folded_success_utc is %s, but window.folded_state_counts.succeeded is %d", nullOr(w.LastFoldedSuccess), w.FoldedStateCounts.Succeeded)
	}
	return w.FoldedRunCount, nil
}

// checkHealthyVerdict refuses a healthy verdict that the runs of s do not
// bear out under its gate; l are its listed runs, folded the runs a window
// folded, latestFolded whether the latest run is one of those.
func checkHealthyVerdict(s *checker.Snapshot, l listedRuns, folded int, latestFolded bool) error {
	n := l.n // a folded run succeeded (tallyFoldedRuns)
	missed, _ := MissedCount(s)
	switch {
	case n+folded == 0:
		return fmt.Errorf("verdict healthy without any run")
	case s.Options.Gate == checker.GateLatest && s.Schedule != nil && len(s.Schedule.Slots) > 0:
		return checkLatestSlot(s, folded)
	case s.Options.Gate == checker.GateLatest:
		if !latestFolded && l.latestState != checker.RunSucceeded {
			return fmt.Errorf("verdict healthy with gate latest, but the latest run is %s", l.latestState)
		}
	default:
		if l.counts[checker.RunSucceeded] != n+folded {
			return fmt.Errorf("verdict healthy, but %d of %s did not succeed", n+folded-l.counts[checker.RunSucceeded], words.Count(n+folded, "run"))
		}
		if missed > 0 {
			return fmt.Errorf("verdict healthy, but %s missed", words.Count(missed, "slot was"))
		}
	}
	return nil
}

// checkLatestSlot refuses a healthy verdict under gate latest with judged
// slots unless the latest judged slot was filled and its latest run (its
// filler or a duplicate) succeeded: gate latest asks about that run, not
// about a later run for a slot not yet due.
func checkLatestSlot(s *checker.Snapshot, folded int) error {
	slot := s.Schedule.Slots[len(s.Schedule.Slots)-1]
	if slot.RunID == nil {
		return fmt.Errorf("verdict healthy with gate latest, but the latest slot was missed")
	}
	id, state := "", ""
	var at time.Time
	for r := range s.Runs() { // the document's order: by first line
		if r.ScheduledFor != nil && *r.ScheduledFor == slot.ScheduledFor && (id == "" || !r.FirstEvent.Before(at)) {
			id, state, at = r.RunID, string(r.State), r.FirstEvent
		}
	}
	if id == "" && folded == 0 {
		return fmt.Errorf("the latest slot %s names run %s, but no run of the snapshot claims it", slot.ScheduledFor, *slot.RunID)
	}
	if id != "" && state != checker.RunSucceeded {
		return fmt.Errorf("verdict healthy with gate latest, but run %s of the latest slot is %s", id, state)
	}
	return nil
}

// RollupText renders a roll-up for a terminal: the headline, then one line
// per pipeline with its verdict, latest run and what is wrong.
func RollupText(ru *Rollup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "greenlight merge: %s\n", RollupHeadline(ru))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range ru.Pipelines {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", Terminal(p.Pipeline), p.Verdict, rollupDetail(&p, Terminal))
	}
	tw.Flush()
	return b.String()
}

// RollupHeadline is the roll-up's one-line verdict.
func RollupHeadline(ru *Rollup) string {
	if ru.PipelineCount == 0 {
		return ru.Verdict + ": no snapshots, so nothing proves health"
	}
	expected := "any"
	if !ru.Expect.Any {
		expected = words.Count(len(ru.Expect.Pipelines), "pipeline")
	}
	return fmt.Sprintf("%s: %s (%d healthy, %d unhealthy, %d unusable), judged at %s, max age %s, expected %s",
		ru.Verdict, words.Count(ru.PipelineCount, "pipeline"), ru.Counts.Healthy, ru.Counts.Unhealthy, ru.Counts.Unusable,
		ru.GeneratedAtUTC, Duration(float64(ru.MaxAgeSeconds)), expected)
}

// rollupDetail says what a roll-up entry holds: the problem of an unusable
// snapshot, else the latest run, the unhealthy runs and the missed slots.
// Log text goes through esc.
func rollupDetail(p *RollupPipeline, esc func(string) string) string {
	if p.Problem != nil && p.Snapshot == "" {
		return esc(*p.Problem)
	}
	if p.Problem != nil {
		return esc(p.Snapshot) + ": " + esc(*p.Problem)
	}
	var parts []string
	switch {
	case p.LatestRunID != nil && p.LatestRunState != nil:
		parts = append(parts, fmt.Sprintf("latest run %s %s", esc(*p.LatestRunID), *p.LatestRunState))
	case p.LatestRunID != nil:
		// A window folded the latest run (docs/window.md): the snapshot
		// counts it, but does not list it or its state.
		parts = append(parts, fmt.Sprintf("latest run %s folded by the window", esc(*p.LatestRunID)))
	default:
		parts = append(parts, "no runs")
	}
	parts = append(parts, words.Count(p.RunCount, "run"))
	if len(p.UnhealthyRuns) > 0 {
		var ids []string
		for i, r := range p.UnhealthyRuns {
			if i == 3 {
				ids = append(ids, fmt.Sprintf("and %d more", len(p.UnhealthyRuns)-3))
				break
			}
			ids = append(ids, esc(r.RunID)+" "+r.State)
		}
		parts = append(parts, fmt.Sprintf("%d unhealthy (%s)", len(p.UnhealthyRuns), strings.Join(ids, ", ")))
	}
	if len(p.MissedSlots) > 0 {
		parts = append(parts, words.Count(len(p.MissedSlots), "missed slot"))
	}
	if d := requestsDetail(p.UnhealthyRequests, esc); d != "" { // requests.go
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}

// RollupMarkdown renders a roll-up as a Markdown job summary: the verdict
// heading, the headline and a table of the pipelines.
func RollupMarkdown(ru *Rollup) string {
	var b strings.Builder
	icon := "✅"
	if ru.Verdict != checker.VerdictHealthy {
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s greenlight merge: %s\n\n%s.\n", icon, ru.Verdict, Markdown(RollupHeadline(ru)))
	if ru.PipelineCount == 0 {
		return b.String()
	}
	b.WriteString("\n| pipeline | verdict | detail |\n|---|---|---|\n")
	for _, p := range ru.Pipelines {
		mark := "❌"
		switch p.Verdict {
		case checker.VerdictHealthy:
			mark = "✅"
		case RollupUnusable:
			mark = "⛔"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s |\n", Markdown(p.Pipeline), mark, p.Verdict, rollupDetail(&p, Markdown))
	}
	return b.String()
}

// nullOr is *s quoted, or null for nil: a nullable field of a snapshot in
// an error message.
func nullOr(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
}
