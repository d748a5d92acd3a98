package render

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// Log is one checked event log as the CI formats (JUnit XML, SARIF, GitLab
// Code Quality, OpenMetrics) see it: its result, the pipeline it belongs to
// and where the log lives. A roll-up of many pipelines is several Logs.
type Log struct {
	// Pipeline names the pipeline (the definition's pipeline, else the
	// log's file name without extension; see PipelineName).
	Pipeline string
	// Path is the log's file relative to the repository root, with forward
	// slashes; empty for standard input. The shell makes it relative.
	Path string
	// Result is the check's result: a Snapshot when the log is valid, and
	// its violations Report. Nil when Problem is set.
	Result *checker.Result
	// JudgedAt is the RFC 3339 UTC time the log was judged at, for a log
	// without a snapshot (invalid or unusable); a snapshot's own time wins.
	JudgedAt string
	// ContractOnly marks a log of greenlight validate: only its contract is
	// judged, so a valid log has no findings and its runs are not listed.
	ContractOnly bool
	// Problem says why there is no usable result (a roll-up's unreadable,
	// invalid, stale or tampered snapshot); such a log is unhealthy.
	Problem string
	// FilePath, for a log of several files, turns one file's name (a
	// violation's file, an entry of source.files) into the form of Path, so
	// that a finding points at its own file and line; nil: every finding
	// is in Path.
	FilePath func(file string) string
}

// PipelineName is the name the CI formats give a log's pipeline: the
// definition's pipeline name, else the log file's base name without its
// extension, else "greenlight" (standard input without a named pipeline).
func PipelineName(definition, file string) string {
	if definition != "" {
		return definition
	}
	if file != "" && file != "-" {
		base := path.Base(strings.ReplaceAll(file, "\\", "/"))
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			base = base[:i]
		}
		if base != "" {
			return base
		}
	}
	return "greenlight"
}

// forEachRun is the one place where the CI formats reach a snapshot's runs:
// every row of the runs listing (a run, or a missed slot) in order, until fn
// returns false. A streamed snapshot stays streamed.
func forEachRun(s *checker.Snapshot, fn func(Row) bool) {
	EachRow(s, fn)
}

// Health rules: the ids the CI formats give an unhealthy run or a missed
// slot, beside the contract rules of checker.Rules. They are not contract
// rules (the log is valid); they name what the snapshot found.
const (
	HealthRunFailed     = "run_failed"
	HealthRunStalled    = "run_stalled"
	HealthRunUnknown    = "run_unknown"
	HealthRunCancelled  = "run_cancelled"
	HealthRunOverdue    = "run_overdue"
	HealthRunIncomplete = "run_incomplete"
	HealthSlotMissed    = "slot_missed"
	// HealthNoRuns is a valid log without runs: nothing proves health.
	HealthNoRuns = "no_runs"
	// HealthSnapshotUnusable is a roll-up's snapshot that could not be used.
	HealthSnapshotUnusable = "snapshot_unusable"
	// HealthOmittedViolations stands for the violations an invalid log's
	// report counts but does not list (--max-violations).
	HealthOmittedViolations = "omitted_violations"
)

// HealthRule documents one health rule, as checker.Rule documents a
// contract rule.
type HealthRule struct {
	ID      string
	Summary string
	Detail  string
}

// HealthRules lists the health rules in the order of the run states'
// precedence; the CI formats take their texts from here.
func HealthRules() []HealthRule {
	return []HealthRule{
		{HealthRunUnknown, "a stage's outcome is unknown", "An attempt ended with status unknown (or the job log says so) and no resolution settles it; only a person, with evidence, resolves it (docs/recovery.md)."},
		{HealthRunFailed, "a stage failed", "The latest attempt of an expected stage failed; the run is failed until a retry succeeds."},
		{HealthRunCancelled, "a stage was cancelled", "A resolution cancelled an attempt; the run can never succeed."},
		{HealthRunStalled, "a stage went silent: a stall candidate", "An attempt started and has logged nothing for longer than stale_after_seconds (or past its lease); inferred from silence, not proof."},
		{HealthRunOverdue, "a run is in progress past the schedule's max runtime", "The run is alive but has been in progress longer than max_runtime_seconds (docs/schedule.md)."},
		{HealthRunIncomplete, "a run did not finish every expected stage", "Nothing failed or is in progress, but an expected stage never succeeded (never started, or blocked by a dependency)."},
		{HealthNoRuns, "the log has no run", "A valid log without runs proves nothing, so its verdict is unhealthy (fail-closed)."},
		{HealthStale, "the newest success is older than max_age", "No run succeeded, or the newest succeeded run ended longer than max_age (--max-age) before now: silence is not health (docs/contract.md, Freshness)."},
		{HealthRequestStale, "a request is stale or unclaimed", "A claimed request's lease passed with no run known as its outcome (stale), or nobody claimed it in time (unclaimed); stale does not mean not executed: reconcile the run, the audit trail and the job log before any new request (docs/recovery.md, Claimed requests)."},
		{HealthSlotMissed, "a scheduled slot has no run", "No run started for a judged slot of the schedule by its due time (docs/schedule.md)."},
		{HealthDoubleExecution, "two runs of one slot both ran a non-idempotent stage", "Two runs claim one schedule slot and both ran a stage declared idempotent: false, so its effects may exist twice (argoproj/argo-workflows #2694); adjudicate which run's effects stand and compensate the other's (docs/schedule.md)."},
		{HealthSnapshotUnusable, "a snapshot of the roll-up cannot be used", "greenlight merge could not read, validate or trust a snapshot (unreadable, invalid, stale or tampered); the roll-up is unhealthy."},
		{HealthOmittedViolations, "more violations than listed", "The log breaks the contract more often than --max-violations lists; the rest are counted, not listed."},
	}
}

// healthRuleState is the run state (or StateMissed) a health rule reports,
// "" for a rule of no state (no_runs, snapshot_unusable,
// omitted_violations).
func healthRuleState(id string) string {
	if id == HealthSlotMissed {
		return StateMissed
	}
	for _, s := range []string{checker.RunFailed, checker.RunStalled, checker.RunUnknown, checker.RunCancelled, checker.RunOverdue, checker.RunIncomplete} {
		if healthRuleOf(s) == id {
			return s
		}
	}
	return ""
}

// healthRuleOf maps an unhealthy run state to its health rule; "" for a
// succeeded or running run.
func healthRuleOf(state string) string {
	switch state {
	case checker.RunFailed:
		return HealthRunFailed
	case checker.RunStalled:
		return HealthRunStalled
	case checker.RunUnknown:
		return HealthRunUnknown
	case checker.RunCancelled:
		return HealthRunCancelled
	case checker.RunOverdue:
		return HealthRunOverdue
	case checker.RunIncomplete:
		return HealthRunIncomplete
	}
	return ""
}

// finding is one result of the code-scanning formats (SARIF, GitLab Code
// Quality): a contract violation, a warning, an unhealthy run or a missed
// slot, with the log line that proves it. Message is untrusted log text
// mixed with greenlight's words; each sink escapes it.
type finding struct {
	Rule    string
	Warning bool // a warning rather than an error
	Path    string
	Line    int // 0: no line (a missed slot, standard input)
	Message string
	// Key identifies the finding across checks of a growing log: rule,
	// path and the run, stage and attempt (or the line when they are
	// unknown). See fingerprint.
	Key string
}

// fingerprint is a finding's stable hash: hex SHA-256 of its key, the same
// for the same finding on every check, so code scanning and GitLab
// deduplicate it.
func (f finding) fingerprint() string {
	sum := sha256.Sum256([]byte(f.Key))
	return hex.EncodeToString(sum[:])
}

// eachFinding calls fn with every finding of l, in order: the violations of
// an invalid log, else the snapshot's warnings, then an unhealthy run's
// problem or a missed slot in the runs' order.
func eachFinding(l *Log, fn func(finding) bool) {
	key := func(parts ...string) string { return strings.Join(parts, "\x00") }
	if l.Problem != "" {
		fn(finding{Rule: HealthSnapshotUnusable, Path: l.Path, Message: l.Problem, Key: key(HealthSnapshotUnusable, l.Path, l.Pipeline)})
		return
	}
	if l.Result == nil {
		return
	}
	violation := func(v checker.Violation, warning bool) bool {
		f := finding{Rule: string(v.Rule), Warning: warning, Path: l.Path, Line: v.Line, Message: v.Message}
		if l.FilePath != nil {
			f.Path = l.FilePath(v.File)
		}
		if v.RunID != "" && v.Stage != nil {
			f.Key = key(f.Rule, l.Path, v.RunID, v.Stage.String(), fmt.Sprint(v.Attempt))
		} else {
			f.Key = key(f.Rule, l.Path, fmt.Sprint(v.Line))
		}
		return fn(f)
	}
	if l.ContractOnly || l.Result.Snapshot == nil || !l.Result.Report.Valid {
		for _, v := range l.Result.Report.Violations {
			if !violation(v, false) {
				return
			}
		}
		if n := l.Result.Report.OmittedCount; n > 0 {
			fn(finding{Rule: HealthOmittedViolations, Path: l.Path, Message: words.Count(n, "more violation") + " not listed (raise --max-violations to list them)", Key: key(HealthOmittedViolations, l.Path)})
		}
		return
	}
	s := l.Result.Snapshot
	for _, v := range s.Warnings {
		if !violation(v, true) {
			return
		}
	}
	if s.RunCount == 0 && !fn(finding{Rule: HealthNoRuns, Path: l.Path, Message: "no runs in the log, so nothing proves health", Key: key(HealthNoRuns, l.Path)}) {
		return
	}
	if s.Schedule != nil {
		for _, d := range s.Schedule.DoubleExecutions {
			if !fn(finding{Rule: HealthDoubleExecution, Path: l.Path, Message: DoubleExecutionSummary(d, func(id string) string { return id }), Key: key(HealthDoubleExecution, l.Path, d.ScheduledFor, d.Stage.String(), d.RunID)}) {
				return
			}
		}
	}
	if IsStale(s) && !fn(finding{Rule: HealthStale, Path: l.Path, Message: "stale: " + StaleSummary(s, func(id string) string { return id }), Key: key(HealthStale, l.Path)}) {
		return
	}
	var locate func(int) (string, int)
	if l.FilePath != nil {
		locate = func(line int) (string, int) { file, n := s.Source.Locate(line); return l.FilePath(file), n }
	}
	if !requestFindings(s, l.Path, locate, fn) { // requests.go
		return
	}
	forEachRun(s, func(row Row) bool {
		if m := row.Missed; m != nil {
			return fn(finding{Rule: HealthSlotMissed, Warning: Level(StateMissed).SARIF == "warning", Path: l.Path, Message: "missed: " + MissedSummary(m), Key: key(HealthSlotMissed, l.Path, m.ScheduledFor)})
		}
		r := row.Run
		rule := healthRuleOf(string(r.State))
		if rule == "" {
			return true
		}
		d := Detail(&s.Source, r)
		msg := fmt.Sprintf("run %s %s: %s", r.RunID, r.State, d.Summary)
		if d.HasErr {
			msg += ": " + d.Error
		}
		f := finding{Rule: rule, Warning: Level(string(r.State)).SARIF == "warning", Path: l.Path, Line: r.FirstLine, Message: msg, Key: key(rule, l.Path, r.RunID)}
		if p := RunProblem(r); p.Stage != nil {
			f.Line = p.Attempt.Line
			f.Key = key(rule, l.Path, r.RunID, p.Stage.Stage.String(), fmt.Sprint(p.Attempt.Attempt))
		}
		if l.FilePath != nil {
			// The snapshot counts lines across the log's files.
			file, line := s.Source.Locate(f.Line)
			f.Path, f.Line = l.FilePath(file), line
		}
		return fn(f)
	})
}

// writeFindingArray writes the findings of logs as a JSON array whose
// elements (what elem makes of each finding) stand one per line after
// indent, with the closing bracket two spaces less indented, or as [] when
// there is none. Each element is written as its run is visited, so a
// streamed snapshot stays streamed.
func writeFindingArray(bw *bufio.Writer, logs []Log, indent string, elem func(finding) any) error {
	n := 0
	var err error
	for i := range logs {
		eachFinding(&logs[i], func(f finding) bool {
			line, e := json.Marshal(elem(f))
			if e != nil {
				err = e
				return false
			}
			if n == 0 {
				bw.WriteString("[\n" + indent)
			} else {
				bw.WriteString(",\n" + indent)
			}
			bw.Write(line)
			n++
			return true
		})
		if err != nil {
			return err
		}
	}
	if n == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteString("\n" + indent[2:] + "]")
	}
	return nil
}

// healthOrContractSummary is the one-line summary of a contract rule (from
// checker.Rules) or a health rule (from HealthRules).
func healthOrContractSummary(id string) (string, bool) {
	for _, r := range checker.Rules() {
		if string(r.ID) == id {
			return r.Summary, true
		}
	}
	for _, r := range HealthRules() {
		if r.ID == id {
			return r.Summary, true
		}
	}
	return "", false
}
