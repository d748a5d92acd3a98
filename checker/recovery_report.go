package checker

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Action is what the evidence of a run calls for (Recovery.Action), as the
// snapshot's JSON writes it.
type Action string

// Recovery actions: what the evidence of a run calls for (docs/recovery.md).
const (
	ActionNone                     = "none"
	ActionWait                     = "wait"
	ActionRerun                    = "rerun"
	ActionFixThenRerunFrom         = "fix_then_rerun_from"
	ActionAdjudicateUnknown        = "adjudicate_unknown"
	ActionResolveNonIdempotent     = "resolve_non_idempotent"
	ActionConfirmStopped           = "confirm_stopped"
	ActionInvestigateInconsistency = "investigate_inconsistency"
)

// Recovery is what an operator does next about one run: the action, the
// identifiers to copy (nil where they do not apply or the log has none) and
// ordered steps in plain words. Steps quote log text (ids, owners, reasons)
// unescaped: every sink escapes them.
type Recovery struct {
	Action    Action   `json:"action"`
	RunID     string   `json:"run_id"`
	Stage     *StageID `json:"stage"`
	Attempt   *int64   `json:"attempt"`
	AttemptID *string  `json:"attempt_id"`
	Owner     *string  `json:"owner"`
	Steps     []string `json:"steps"`
}

// ResolutionReport is a resolved event as the snapshot shows it; ResolvedAt
// is RFC 3339 UTC and Line the resolved event's line.
type ResolutionReport struct {
	Resolution  string  `json:"resolution"`
	Reason      string  `json:"reason"`
	EvidenceRef string  `json:"evidence_ref"`
	ResolvedBy  string  `json:"resolved_by"`
	ApprovedBy  *string `json:"approved_by"`
	ResolvedAt  string  `json:"resolved_at"`
	Line        int     `json:"line"`
}

// recoveryFor picks the run's recovery action from its state (docs/recovery.md
// "Recovery actions"): the decisive stage is the first, in declared order,
// whose state is the run's.
func recoveryFor(rr *RunReport, def *Definition, mismatch *Inconsistency) Recovery {
	rec := Recovery{Action: ActionNone, RunID: rr.RunID, Steps: []string{}}
	if mismatch != nil {
		rec.Action = ActionInvestigateInconsistency
		rec.Stage, rec.Attempt = mismatch.Stage, mismatch.Attempt
		rec.AttemptID = &mismatch.AttemptID
		rec.Steps = []string{
			"The event log and the job log disagree: " + mismatch.Message + ".",
			"Do not rerun and do not resolve until the disagreement is explained: find out which record is wrong, from the business data.",
			"Then append a resolved event for the attempt with the evidence, and correct the record that was wrong.",
		}
		return rec
	}
	var st *StageReport
	var sd *StageDef
	for i := range rr.Stages {
		if rr.Stages[i].State == decidedBy(rr.State) {
			st, sd = &rr.Stages[i], &def.Stages[i]
			break
		}
	}
	if st == nil || rr.State == RunSucceeded {
		return rec
	}
	stage := st.Stage
	rec.Stage = &stage
	label := "stage " + stage.String()
	if len(st.Attempts) == 0 { // incomplete: a pending stage
		rec.Action = ActionRerun
		rec.Steps = []string{
			fmt.Sprintf("%s of run %s never started, although nothing failed and nothing is in progress.", label, rr.RunID),
			fmt.Sprintf("Start %s of run %s (attempt 1).", label, rr.RunID),
		}
		return rec
	}
	a := &st.Attempts[len(st.Attempts)-1]
	n := a.Attempt
	rec.Attempt, rec.AttemptID, rec.Owner = &n, a.AttemptID, a.Owner
	who := fmt.Sprintf("Attempt %d of %s in run %s", n, label, rr.RunID)
	owner := "the owner"
	if a.Owner != nil {
		owner = "the owner " + *a.Owner
	}
	switch rr.State {
	case RunUnknown:
		rec.Action = ActionAdjudicateUnknown
		reason := ""
		if a.Reason != nil {
			reason = ": " + *a.Reason
		}
		jobLog := "the job log"
		if a.AttemptID != nil {
			jobLog = "the job log record of attempt_id " + *a.AttemptID
		}
		rec.Steps = []string{
			fmt.Sprintf("%s has an unknown outcome (line %d)%s.", who, a.Line, reason),
			fmt.Sprintf("Compare the business data and %s to learn what the attempt did.", jobLog),
			"Append a resolved event with resolution, reason, evidence_ref and resolved_by (succeeded also needs manual_completion: true, cancelled needs compensated: true).",
			"Never rerun an UNKNOWN attempt to see if it works.",
		}
	case RunFailed:
		switch {
		case !sd.Idempotent && a.Resolution == nil:
			rec.Action = ActionResolveNonIdempotent
			rec.Steps = []string{
				fmt.Sprintf("%s failed (line %d) and the stage is not idempotent: it may have left partial effects.", who, a.Line),
				"Inspect its effects, then append a resolved event: failed to allow a retry, succeeded with manual_completion: true and a second person's approved_by, or cancelled with compensated: true.",
				fmt.Sprintf("Only then start attempt %d.", n+1),
			}
		case st.Brake != nil:
			rec.Action = ActionFixThenRerunFrom
			rec.Steps = []string{
				fmt.Sprintf("%s failed; the last %d attempts all failed with %s: the retry brake tripped.", who, st.Brake.Count, st.Brake.Kind),
				"Fix the cause first; another blind retry repeats the failure.",
				fmt.Sprintf("Then start attempt %d with rerun_from: true.", n+1),
			}
		default:
			rec.Action = ActionRerun
			rec.Steps = []string{
				fmt.Sprintf("%s failed (line %d).", who, a.Line),
				fmt.Sprintf("Start attempt %d of %s in run %s.", n+1, label, rr.RunID),
			}
		}
	case RunCancelled:
		line := a.Line
		if a.Resolution != nil {
			line = a.Resolution.Line
		}
		rec.Steps = []string{fmt.Sprintf("%s was cancelled (line %d); a cancelled run is not rerun.", who, line)}
	case RunStalled:
		rec.Action = ActionConfirmStopped
		rec.Steps = []string{
			fmt.Sprintf("%s has been silent for %s since line %d: a stall candidate, not proof.", who, secondsText(a.SilentForSeconds), a.Line),
			fmt.Sprintf("Confirm, with evidence, that %s has stopped before any rerun.", owner),
			"Then record the attempt's outcome (failed, or unknown when it cannot be confirmed) and follow the action that outcome calls for.",
		}
	case RunOverdue:
		rec.Action = ActionWait
		over := 0.0
		if rr.OverdueBySeconds != nil {
			over = *rr.OverdueBySeconds
		}
		rec.Steps = []string{
			fmt.Sprintf("Run %s has been in progress %s longer than the schedule's max_runtime_seconds; %s is still running, its last sign of life %s ago (line %d).", rr.RunID, secondsText(&over), strings.ToLower(who[:1])+who[1:], secondsText(a.SilentForSeconds), a.Line),
			fmt.Sprintf("Check with %s that it is making progress; do not start another attempt while this one may be alive.", owner),
		}
	case RunRunning:
		rec.Action = ActionWait
		rec.Steps = []string{
			fmt.Sprintf("%s is running; its last sign of life was %s ago (line %d).", who, secondsText(a.SilentForSeconds), a.Line),
			"Check again later; do not start another attempt while this one may be alive.",
		}
	}
	return rec
}

func secondsText(s *float64) string {
	if s == nil {
		return "0s"
	}
	return time.Duration(math.Round(*s) * float64(time.Second)).String()
}
