package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The rules of a resolution: a person's adjudication of an attempt
// (docs/recovery.md), and the four eyes of a non-idempotent success.
const (
	RuleResolutionWithoutStart            RuleID = "resolution_without_start"
	RuleDuplicateResolution               RuleID = "duplicate_resolution"
	RuleResolutionOfRunningAttempt        RuleID = "resolution_of_running_attempt"
	RuleResolutionOfSucceededAttempt      RuleID = "resolution_of_succeeded_attempt"
	RuleResolutionOfIdempotentFailure     RuleID = "resolution_of_idempotent_failure"
	RuleResolutionWithoutEvidence         RuleID = "resolution_without_evidence"
	RuleResolutionWithoutManualCompletion RuleID = "resolution_without_manual_completion"
	RuleResolutionWithoutCompensation     RuleID = "resolution_without_compensation"
	RuleResolutionWithoutApproval         RuleID = "resolution_without_approval"
	RuleSelfApprovedResolution            RuleID = "self_approved_resolution"
)

// resolutionRule is a rule checked on resolved events, after
// resolution_without_start passed: a is the attempt resolved.
func resolutionRule(r Rule, check func(c *contractState, x *lineCheck, a *attemptState) string) Rule {
	r.Family, r.Statuses, r.on, r.needsRun = familyResolution, []Status{StatusResolved}, onBoth, true
	r.check = func(c *contractState, x *lineCheck) string { return check(c, x, x.attempt()) }
	return r
}

// fourEyes tells whether the resolution needs a second person: a success
// declared for a non-idempotent stage.
func (x *lineCheck) fourEyes(def *Definition) bool {
	return x.ev.Resolution == StatusSucceeded && !def.Stages[x.si].Idempotent
}

var resolutionWithoutStartRule = Rule{ID: RuleResolutionWithoutStart, Family: familyResolution,
	Summary:  "a resolution of an attempt that never started",
	Detail:   "A resolution adjudicates an attempt that exists.",
	Example:  `{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:00:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`,
	Statuses: []Status{StatusResolved}, on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if x.attempt() == nil {
			return withoutStartText(x)
		}
		return ""
	}}

var duplicateResolutionRule = resolutionRule(Rule{ID: RuleDuplicateResolution,
	Summary: "a second resolution of the same attempt",
	Detail:  "A resolution is final; a second one, even agreeing, makes the record ambiguous.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:03:00Z","resolution":"succeeded","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7","manual_completion":true}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		if prev := a.Recovery().Resolution; prev != nil {
			return fmt.Sprintf("%s was already resolved %s on %s; a resolution is final", x.who(), prev.Outcome, c.lineText(prev.Line))
		}
		return ""
	})

var resolutionOfRunningAttemptRule = resolutionRule(Rule{ID: RuleResolutionOfRunningAttempt,
	Summary: "a resolution of an attempt that has no outcome yet",
	Detail:  "A running or stalled attempt may still end by itself; confirm the owner stopped, wait for or write its outcome (unknown), then resolve.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:01:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		if a.Status() == StatusStarted {
			return x.who() + " was resolved while it has no outcome; only an unknown attempt, or a failed attempt of a non-idempotent stage, is resolved"
		}
		return ""
	})

var resolutionOfSucceededAttemptRule = resolutionRule(Rule{ID: RuleResolutionOfSucceededAttempt,
	Summary: "a resolution of a succeeded attempt",
	Detail:  "A success needs no adjudication; overriding it hides evidence. The same holds for a skipped attempt, whose skip is its evidence.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		switch a.Status() {
		case StatusSucceeded:
			return fmt.Sprintf("%s was resolved, but it succeeded on %s", x.who(), c.lineText(a.LastLine()))
		case StatusSkipped:
			return fmt.Sprintf("%s was resolved, but it was skipped on %s", x.who(), c.lineText(a.LastLine()))
		}
		return ""
	})

var resolutionOfIdempotentFailureRule = resolutionRule(Rule{ID: RuleResolutionOfIdempotentFailure,
	Summary: "a resolution of a failed attempt of an idempotent stage",
	Detail:  "Only unknown attempts and failed attempts of non-idempotent stages are resolved; an idempotent stage is simply retried.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"exit 1"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		if a.Status() == StatusFailed && c.opts.Definition.Stages[x.si].Idempotent {
			return fmt.Sprintf("%s was resolved, but stage %s is idempotent: a failed attempt is simply retried", x.who(), x.ev.Stage)
		}
		return ""
	})

var resolutionWithoutEvidenceRule = resolutionRule(Rule{ID: RuleResolutionWithoutEvidence,
	Summary: "a resolution without evidence_ref",
	Detail:  "A person's decision moves the pipeline only with evidence: evidence_ref names it (ticket, query, job-log line). A blank value is missing: only white space (any of ECMA-262's, the no-break space and U+3000 among them) or characters that render as nothing (U+200B, U+00AD, variation selectors; docs/contract.md, Blank text).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"failed","reason":"checked the row counts","resolved_by":"ana"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		switch ref := x.ev.EvidenceRef; {
		case eventline.HasNonSpace([]byte(ref)):
			return ""
		case ref != "":
			return fmt.Sprintf("%s was resolved with evidence_ref %+q, which is blank (only white space or characters that render as nothing); a resolution names its evidence", x.who(), ref)
		}
		return x.who() + " was resolved without evidence_ref; a resolution names its evidence"
	})

var resolutionWithoutManualCompletionRule = resolutionRule(Rule{ID: RuleResolutionWithoutManualCompletion,
	Summary: "a succeeded resolution without manual_completion: true",
	Detail:  "Declaring an attempt succeeded says its work was completed by hand; manual_completion: true states it.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"succeeded","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		if x.ev.Resolution == StatusSucceeded && !x.ev.ManualCompletion {
			return x.who() + " was resolved succeeded without manual_completion: true"
		}
		return ""
	})

var resolutionWithoutCompensationRule = resolutionRule(Rule{ID: RuleResolutionWithoutCompensation,
	Summary: "a cancelled resolution without compensated: true",
	Detail:  "Cancelling says the attempt's effects were undone; compensated: true states it.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:02:00Z","resolution":"cancelled","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7"}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		if x.ev.Resolution == StatusCancelled && !x.ev.Compensated {
			return x.who() + " was resolved cancelled without compensated: true"
		}
		return ""
	})

var resolutionWithoutApprovalRule = resolutionRule(Rule{ID: RuleResolutionWithoutApproval,
	Summary: "a succeeded resolution of a non-idempotent stage without approved_by",
	Detail:  "Declaring a non-idempotent stage succeeded needs a second person's approval. An approved_by that is blank (only white space or characters that render as nothing, such as U+200B) is missing.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:03:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:04:00Z","resolution":"succeeded","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7","manual_completion":true}`},
	func(c *contractState, x *lineCheck, a *attemptState) string {
		ev := x.ev
		switch {
		case !x.fourEyes(c.opts.Definition):
			return ""
		case ev.ApprovedBy == "":
			return fmt.Sprintf("%s was resolved succeeded, but stage %s is not idempotent and approved_by is missing", x.who(), ev.Stage)
		case identityKey(ev.ApprovedBy) == "":
			// Blank: only white space or characters that render as nothing.
			return fmt.Sprintf("%s was resolved succeeded, but stage %s is not idempotent and approved_by %+q names nobody (only white space or characters that render as nothing)", x.who(), ev.Stage, ev.ApprovedBy)
		}
		return ""
	})

var selfApprovedResolutionRule = Rule{ID: RuleSelfApprovedResolution, Family: familyResolution,
	Summary: "a non-idempotent success resolution approved by its resolver or by the run's requester",
	Detail:  "approved_by must name another person than resolved_by and than every requested_by of the run (on any event, before or after the approval). People are compared after white space, invisible characters, Unicode normalization and letter case are taken out, so \"ANA@corp.example\", \"ana \" and a decomposed spelling are all ana@corp.example (docs/recovery.md, Identities).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:03:00Z","reason":"the worker vanished"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:04:00Z","resolution":"succeeded","reason":"checked the row counts","resolved_by":"ana","evidence_ref":"INC-7","manual_completion":true,"approved_by":"ana"}`,
	on: onBoth, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		if msg := selfApprovedByRequester(c, x.run, x.ev); msg != "" {
			return msg
		}
		if x.ev.Status != StatusResolved || !x.fourEyes(c.opts.Definition) {
			return ""
		}
		return selfApprovedByResolver(c, x)
	}}

// selfApprovedByRequester checks self_approved_resolution from the
// requester's side, on any event: a requested_by that names someone who
// already approved a non-idempotent success resolution of the run,
// compared by identityKey.
func selfApprovedByRequester(c *contractState, run *runState, ev *event) string {
	if ev.RequestedBy == "" || run.Approvers().Len() == 0 || run.Requesters().SpelledBefore(ev.RequestedBy) {
		// A requested_by spelled as before was compared with every
		// approval when the approval was made.
		return ""
	}
	if a, ok := run.Approvers().ByKey(identityKey(ev.RequestedBy)); ok {
		return fmt.Sprintf("run %s was requested by %q, who approved the resolution on %s%s; the approver must be someone else", run.ID(), ev.RequestedBy, c.lineText(a.Line), spelledAs(ev.RequestedBy, a))
	}
	return ""
}

// selfApprovedByResolver checks self_approved_resolution on a resolution
// that needs four eyes: the approver is the resolver, or requested the run.
func selfApprovedByResolver(c *contractState, x *lineCheck) string {
	ev, run, who := x.ev, x.run, x.who()
	approver := identityKey(ev.ApprovedBy)
	switch {
	case approver == identityKey(ev.ResolvedBy):
		if ev.ApprovedBy == ev.ResolvedBy {
			return fmt.Sprintf("%s was resolved and approved by the same person (%q); the approver must be someone else", who, ev.ResolvedBy)
		}
		return fmt.Sprintf("%s was resolved by %q and approved by %q, the same person in another spelling; the approver must be someone else", who, ev.ResolvedBy, ev.ApprovedBy)
	case ev.RequestedBy != "" && approver == identityKey(ev.RequestedBy):
		return fmt.Sprintf("%s was approved by %q, who requested the run on the same line%s; the approver must be someone else", who, ev.ApprovedBy, spelledAs(ev.ApprovedBy, runstore.Identity{Name: ev.RequestedBy}))
	}
	if r, ok := run.Requesters().ByKey(approver); ok {
		return fmt.Sprintf("%s was approved by %q, who requested the run on %s%s; the approver must be someone else", who, ev.ApprovedBy, c.lineText(r.Line), spelledAs(ev.ApprovedBy, r))
	}
	return ""
}

// recordResolution keeps a resolution of attempt a and, when it needed four
// eyes, its approver.
func recordResolution(run *runState, a *attemptState, ev *event, idempotent bool) {
	a.SetResolution(runstore.Resolution{
		Outcome: ev.Resolution, Reason: ev.Reason, EvidenceRef: ev.EvidenceRef, ResolvedBy: ev.ResolvedBy, ApprovedBy: ev.ApprovedBy,
		ManualCompletion: ev.ManualCompletion, Compensated: ev.Compensated, At: ev.Time, Line: ev.Line,
	})
	if ev.Resolution == StatusSucceeded && !idempotent {
		run.AddApprover(runstore.Identity{Name: ev.ApprovedBy, Key: identityKey(ev.ApprovedBy), Line: ev.Line})
	}
}
