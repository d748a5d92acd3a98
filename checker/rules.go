package checker

import (
	"fmt"
	"slices"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// RuleID is the stable id of a contract rule: the string users see in every
// output and grep for. The ids and texts live in one table, Rules.
type RuleID string

// Rule is one contract rule: its id, the family it belongs to (the file
// rule_<family>.go that holds it), a one-line summary, a longer explanation,
// a runnable example, and the event statuses it applies to. The rule's check lives in the same entry, so that the order
// of the table is the order rules are checked in (docs/rules.md).
type Rule struct {
	ID      RuleID
	Family  string
	Summary string
	Detail  string
	// Example is a log (JSON Lines, without the last newline) that breaks
	// the rule on its last line and no other rule, checked against
	// checker/testdata/rules/examples.yaml; docs/rules.md shows it with the
	// output of running it. For the rules of OpenLineageRules it is a
	// description of such a log. The rule's tests are
	// checker/testdata/rules/<id>[_<case>].txtar.
	Example string
	// Statuses lists the statuses of the events the rule is checked on;
	// nil means every event. The reading rules (family reading) are found
	// by the decoder, on every line, before any event exists.
	Statuses []Status
	// check returns the violation's message when the event breaks the rule,
	// else "". It may derive values for later checks into x (the stage's
	// index, the run), but changes no state: record does that once every
	// rule has passed.
	check func(c *contractState, x *lineCheck) string
	// needsRun marks a check that reads the event's run: the run is looked
	// up (or created) just before the first such check.
	needsRun bool
	// on says which inputs the check runs on (onLog, onFeed).
	on uint8
}

// The inputs a rule's check runs on: a log read by Check, events of Feed.
const (
	onLog  uint8 = 1
	onFeed uint8 = 2
	onBoth       = onLog | onFeed
)

// checkingOrder is the one ordered table of the rules: the contract's (Rules),
// the one of a check with a window (WindowRules), then those only an
// OpenLineage log can break (OpenLineageRules). A line
// reports the first rule it breaks in this order. The groups, in order: the
// line alone (reading), the event against the definition (stage,
// returncode), the run's time line, the attempt's life by the event's status
// (a start, an outcome, a heartbeat, a resolution), then the identities that
// span the log (attempt_id, the four eyes).
var checkingOrder = []*Rule{
	// The line alone.
	&invalidJSONRule, &lineTooLongRule, &duplicateKeyRule, &schemaRule, &unknownFieldRule,
	// The event against the definition.
	&unknownStageRule, &skipOfUnskippableRule, &successWithNonzeroReturncodeRule, &successWithErrorRule, &failureWithZeroReturncodeRule,
	// The run's time line.
	&outOfOrderRule, &timestampInFutureRule, &conflictingScheduledForRule,
	// An event for a run the window folded (it stands for the rules below).
	&foldedRunEventRule,
	// The run's close.
	&eventAfterCloseRule, &closeWithoutRunRule, &auditCompletionMismatchRule, &closeOfRunningAttemptRule,
	// A start.
	&duplicateStartRule, &skippedAttemptRule,
	&retryAfterCancellationRule, &retryWithoutFailureRule, &retryWithoutResolutionRule, &retryPastBrakeRule,
	&stageBeforeDependencyRule,
	// An outcome.
	&terminalWithoutStartRule, &duplicateTerminalRule,
	// An outcome by another owner than the start's: a takeover.
	&leaseStillActiveRule, &takeoverWithoutStopEvidenceRule,
	// A heartbeat.
	&heartbeatWithoutStartRule, &heartbeatAfterTerminalRule, &ownerMismatchRule,
	// A resolution.
	&resolutionWithoutStartRule, &duplicateResolutionRule, &resolutionOfRunningAttemptRule,
	&resolutionOfSucceededAttemptRule, &resolutionOfIdempotentFailureRule, &resolutionWithoutEvidenceRule,
	&resolutionWithoutManualCompletionRule, &resolutionWithoutCompensationRule, &resolutionWithoutApprovalRule,
	// The identities across the log.
	&duplicateAttemptIDRule, &selfApprovedResolutionRule,
	// A request (request events, and a run's event that names its request).
	&duplicateRequestRule, &claimWithoutRequestRule, &unknownRequestRule, &requestClaimedTwiceRule,
	&conflictingRequestRunRule, &requestWhileStaleRule,
	// Only in an OpenLineage log.
	&runningWithoutStartRule, &eventAfterTerminalRule, &ambiguousAttemptRule, &conflictingRunRule,
}

// Rules returns the table of every contract rule, in checking order. It is
// the one source of the rule ids and texts for the docs, the schemas'
// enumerations and any listing of rules.
func Rules() []Rule {
	return rulesWhere(func(r *Rule) bool { return r.Family != familyOpenLineage && r.Family != familyWindow })
}

// WindowRules returns the table of the rules only a check with a window
// can break (Options.Window, docs/window.md), in the same form as Rules().
func WindowRules() []Rule { return rulesWhere(func(r *Rule) bool { return r.Family == familyWindow }) }

// OpenLineageRules returns the table of the rules only an OpenLineage log
// can break, in the same form as Rules(). An OpenLineage log is also held
// to the contract rules of Rules() that apply to it: the reading rules,
// schema (against schemas/openlineage-runevent.schema.json),
// unknown_stage, timestamp_in_future and the sequence rules.
func OpenLineageRules() []Rule {
	return rulesWhere(func(r *Rule) bool { return r.Family == familyOpenLineage })
}

func rulesWhere(keep func(*Rule) bool) []Rule {
	var out []Rule
	for _, r := range checkingOrder {
		if keep(r) {
			out = append(out, *r)
		}
	}
	return out
}

// checksByStatus[input][status] are the rules with a check that apply to an
// event of that status on that input (0: a log, 1: a feed), in checking
// order: the loop of check visits only the rules that can fire.
var checksByStatus = func() (t [2][StatusClosed + 1][]*Rule) {
	for in, mask := range []uint8{onLog, onFeed} {
		for st := StatusStarted; st <= StatusClosed; st++ {
			for _, r := range checkingOrder {
				if r.check != nil && r.on&mask != 0 && (r.Statuses == nil || slices.Contains(r.Statuses, st)) {
					t[in][st] = append(t[in][st], r)
				}
			}
		}
	}
	return t
}()

// lineCheck is one event on its way through the rules: the event, what the
// checks derived from it so far, and what record is to keep.
type lineCheck struct {
	ev *event
	// unknown is the first field outside the contract, under --strict.
	unknown string
	// si is the index of the event's stage in the definition (set by
	// unknown_stage).
	si int
	// run is the event's run, set before the first check that needs it.
	run *runState
	// feed is the Feed that gave the event; nil for a log read by Check.
	feed *Feed
	// neverStalls, from a Feed's started event, marks a stream or service.
	neverStalls bool
	// warning is the retry brake's message when it tripped without enforce.
	warning string
	// folded is the compact record of the event's run when the window
	// folded it (runFor); nil otherwise.
	folded *runstore.FoldedRun
}

// who names the event's attempt in messages.
func (x *lineCheck) who() string {
	return fmt.Sprintf("attempt %d of stage %s in run %s", x.ev.Attempt, x.ev.Stage, x.runID())
}

// runID names the event's run: its state's id, or the event's own while
// it has none (a run the window folded, judgeFolded). An OpenLineage event
// fed through Feed carries no run id of its own.
func (x *lineCheck) runID() string {
	if x.run != nil {
		return x.run.ID()
	}
	return string(x.ev.RunID)
}

// attempts are the attempts of the event's stage in its run so far.
func (x *lineCheck) attempts() []attemptState { return x.run.Attempts(x.si) }

// attempt is the event's attempt; nil when it has not started.
func (x *lineCheck) attempt() *attemptState { return x.run.Attempt(x.si, x.ev.Attempt) }

// check runs the event through the rules in checking order and returns the
// first one it breaks with its message, or "" when it breaks none.
func (c *contractState) check(x *lineCheck) (RuleID, string) {
	in := 0
	if x.feed != nil {
		in = 1
	}
	for _, r := range checksByStatus[in][x.ev.Status] {
		if r.needsRun && x.run == nil {
			x.run = c.runFor(x)
			if x.folded != nil { // the window folded the run: docs/window.md
				return c.judgeFolded(x, x.folded)
			}
		}
		if msg := r.check(c, x); msg != "" {
			return r.ID, msg
		}
	}
	return "", ""
}

// runFor returns the event's run, creating its state on its first event.
func (c *contractState) runFor(x *lineCheck) *runState {
	if x.feed != nil {
		return x.feed.runFor(c, x)
	}
	ev := x.ev
	run := c.runs.Lookup(ev.RunID)
	if c.window != nil {
		if c.foldedRun(x, run) {
			return nil
		}
	}
	if run == nil {
		run = c.runs.Add(string(ev.RunID), ev.Line, ev.Time, len(c.opts.Definition.Stages))
	}
	return run
}

// record keeps an event that broke no rule: the one place where run and
// attempt states change.
func (c *contractState) record(x *lineCheck) {
	run, si, ev := x.run, x.si, x.ev
	var ended *attemptState // an attempt whose outcome this event sets
	switch ev.Status {
	case StatusStarted:
		var a attemptState
		a.SetStart(ev.Time, ev.Line, x.neverStalls)
		c.runs.AddAttempt(run, si, a)
		if ev.RerunFrom && x.feed == nil {
			run.SetRerun(si, ev.Line) // rerun.go: si and its descendants run again
		}
		if x.warning != "" {
			st := ev.Stage
			file, line := c.locate(ev.Line)
			c.warnings = append(c.warnings, Violation{File: file, Line: line, Rule: RuleRetryPastBrake, Message: x.warning, RunID: run.ID(), Stage: &st, Attempt: ev.Attempt})
		}
	case StatusHeartbeat:
		if a := x.attempt(); a.Status() != StatusStarted { // heartbeat_after_terminal let it pass
			a.HeartbeatAdvanced(ev.Time, ev.Line, c.advancedReason(ev.Owner, ev.Line, a.Recovery().Takeover.Line))
			ended = a
		} else {
			recordHeartbeat(a, ev)
		}
	case StatusResolved:
		recordResolution(run, x.attempt(), ev, c.opts.Definition.Stages[si].Idempotent)
	case StatusClosed: // run-level: no stage, no attempt
		recordClose(run, ev)
	default: // an outcome: succeeded, failed, unknown, skipped
		a := x.attempt()
		if a == nil { // a skip of attempt 1 without a start (terminal_without_start)
			var skipped attemptState
			skipped.SetStart(ev.Time, ev.Line, false)
			c.runs.AddAttempt(run, si, skipped)
			a = x.attempt()
		}
		takeover := x.feed == nil && takeoverBy(a, ev)
		a.SetOutcome(ev.Status, ev.Time, ev.Line, ev.HasCode, ev.Returncode)
		if ev.HasError {
			a.SetError(c.errorText(ev.Error))
		}
		if takeover {
			recordTakeover(a, ev)
		}
		ended = a
	}
	c.recordRecovery(run, si, ev)
	if ended != nil {
		c.recordStreak(x, ended) // after recordRecovery: it reads error_code
	}
	if ev.Status != StatusClosed {
		// A close records the archive, not work: the run's last event,
		// and so its duration and the pipeline's freshness, stay its
		// attempts' (out_of_order compares with the close's time too).
		run.SetLast(ev.Time)
	}
	if ev.HasScheduledFor {
		run.SetScheduledFor(ev.ScheduledFor, ev.Line)
	}
}
