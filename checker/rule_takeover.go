package checker

import (
	"fmt"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// The rules of who may end an attempt (docs/recovery.md, "Who may end an
// attempt"). They model the fail-closed runner's runbook: its first "never
// do" is to reclaim a lock on lease expiry alone, because taking work from
// a slow but living process runs it twice. An attempt belongs to the owner
// that started it; another owner that ends it takes it over, and needs
// proof that the owner stopped, once the owner's lease has run out.
const (
	RuleOwnerMismatch               RuleID = "owner_mismatch"
	RuleLeaseStillActive            RuleID = "lease_still_active"
	RuleTakeoverWithoutStopEvidence RuleID = "takeover_without_stop_evidence"
)

// familyTakeover is the family of the takeover rules (rule_takeover.go).
const familyTakeover = "takeover"

// reasonHeartbeatAdvanced is the reason an attempt's outcome becomes
// unknown when its own owner sends a heartbeat after another owner took it
// over: the runbook's code HEARTBEAT_ADVANCED (the owner's heartbeat moved
// on, so it was alive when its work was taken from it).
const reasonHeartbeatAdvanced = "HEARTBEAT_ADVANCED"

// given says a text the contract asks for is there: not blank
// (docs/contract.md, Blank text).
func given(s string) bool { return eventline.HasNonSpace([]byte(s)) }

// ownersDiffer says two owners are both given and differ. Owners are
// compared as written: an owner is an address (local-pid://host/pid), not a
// person, and two spellings of it are two claims.
func ownersDiffer(a, b string) bool { return given(a) && given(b) && a != b }

// takeoverBy says an outcome event ev of attempt a (in progress) takes the
// attempt over: it names another owner than the one that started it, or it
// carries proof that the owner stopped (an event that says it ended
// someone else's attempt is held to the takeover rules). A skip of an
// attempt that never started (a nil a) takes nothing over.
func takeoverBy(a *attemptState, ev *event) bool {
	if a == nil {
		return false
	}
	if ev.StopConfirmedBy != "" || ev.StopEvidenceRef != "" || ev.StopMethod != "" {
		return true
	}
	return a.HasRecovery() && ownersDiffer(a.Recovery().Owner, ev.Owner)
}

// takenOverFrom names the owner an outcome takes the attempt from.
func takenOverFrom(a *attemptState) string {
	if o := a.Recovery().Owner; given(o) {
		return "from " + o
	}
	return "from its owner"
}

var ownerMismatchRule = Rule{ID: RuleOwnerMismatch, Family: familyTakeover,
	Summary: "a heartbeat from another owner than the one that started the attempt",
	Detail:  "Only the owner that started an attempt keeps it alive; a heartbeat of another owner means two processes think they own it, and it does not replace the owner. Another owner that ends the attempt takes it over (an outcome with owner and the stop_* proof).",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","owner":"local-pid://etl-a/4242"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"heartbeat","timestamp_utc":"2026-01-01T10:01:00Z","owner":"local-pid://etl-b/7007"}`,
	Statuses: []Status{StatusHeartbeat}, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		a := x.attempt()
		if !a.HasRecovery() {
			return ""
		}
		if owner := a.Recovery().Owner; ownersDiffer(owner, x.ev.Owner) {
			return fmt.Sprintf("%s sent a heartbeat as owner %q, but it was started by %q on %s; only its owner keeps an attempt alive", x.who(), x.ev.Owner, owner, c.lineText(a.StartLine()))
		}
		return ""
	}}

var leaseStillActiveRule = Rule{ID: RuleLeaseStillActive, Family: familyTakeover,
	Summary: "a takeover while the owner's lease, plus the lease margin, is still live",
	Detail:  "The owner holds the attempt until lease_expires_at of its latest started or heartbeat plus lease_margin_seconds; ending it before then takes work from a process that may be alive and runs it twice (the runbook's first never-do). Wait for the lease to run out, then confirm the owner stopped.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","owner":"local-pid://etl-a/4242","lease_expires_at":"2026-01-01T10:30:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:10:00Z","error":"taken over","owner":"ops://ana","stop_confirmed_by":"ana","stop_evidence_ref":"INC-7 ps output","stop_method":"local_pid"}`,
	Statuses: outcomes, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		a := x.attempt()
		if !takeoverBy(a, x.ev) {
			return ""
		}
		lease := a.Recovery().Lease
		if lease.IsZero() {
			return ""
		}
		margin := time.Duration(c.opts.Definition.LeaseMarginSeconds) * time.Second
		if until := lease.Add(margin); !x.ev.Time.After(until) {
			return fmt.Sprintf("%s was taken over (%s) at %s, but its lease runs until %s plus the lease margin of %s; wait until after %s, then confirm the owner stopped", x.who(), takenOverFrom(a), formatTime(x.ev.Time), formatTime(lease), margin, formatTime(until))
		}
		return ""
	}}

var takeoverWithoutStopEvidenceRule = Rule{ID: RuleTakeoverWithoutStopEvidence, Family: familyTakeover,
	Summary: "an outcome that ends another owner's attempt without proof that the owner stopped",
	Detail:  "An outcome whose owner differs from the one that started the attempt is a takeover. It needs stop_confirmed_by (who confirmed it), stop_evidence_ref (where the proof is kept: ps output, a console log) and stop_method (local_pid, host_down, console or other), none of them blank; a lease that ran out is not proof that its owner stopped.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","owner":"local-pid://etl-a/4242"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:30:00Z","error":"taken over","owner":"ops://ana"}`,
	Statuses: outcomes, on: onLog, needsRun: true,
	check: func(c *contractState, x *lineCheck) string {
		a, ev := x.attempt(), x.ev
		if !takeoverBy(a, ev) {
			return ""
		}
		missing := missingStopEvidence(ev)
		if len(missing) == 0 {
			return ""
		}
		by := ""
		if given(ev.Owner) {
			by = fmt.Sprintf(" by %q", ev.Owner)
		}
		return fmt.Sprintf("%s %s%s, taken over %s, without proof that the owner stopped: %s missing or blank", x.who(), ev.Status, by, takenOverFrom(a), joinWords(missing))
	}}

// joinWords writes "a", "a and b", "a, b and c".
func joinWords(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	s := w[0]
	for _, v := range w[1 : len(w)-1] {
		s += ", " + v
	}
	return s + " and " + w[len(w)-1]
}

// heartbeatAdvances says a heartbeat ev of attempt a, which has ended, is
// its own owner's after another owner took it over: not a broken log but
// evidence that the owner was alive (HEARTBEAT_ADVANCED).
func heartbeatAdvances(a *attemptState, ev *event) bool {
	if !a.HasRecovery() {
		return false
	}
	r := a.Recovery()
	return r.Takeover != nil && given(ev.Owner) && ev.Owner == r.Owner
}

// recordTakeover keeps the takeover of attempt a, whose outcome ev has just
// been recorded.
func recordTakeover(a *attemptState, ev *event) {
	a.SetTakeover(runstore.Takeover{Outcome: ev.Status, Owner: ev.Owner, ConfirmedBy: ev.StopConfirmedBy,
		EvidenceRef: ev.StopEvidenceRef, Method: ev.StopMethod, At: ev.Time, Line: ev.Line})
}

// advancedReason is the unknown reason of an attempt whose owner sent a
// heartbeat on line after the takeover on takeoverLine.
func (c *contractState) advancedReason(owner string, line, takeoverLine int) string {
	return fmt.Sprintf("%s: the owner %s sent a heartbeat on %s, after the takeover on %s; it was alive, so the takeover's outcome is not adopted", reasonHeartbeatAdvanced, owner, c.lineText(line), c.lineText(takeoverLine))
}

// missingStopEvidence names the stop-evidence fields ev lacks or leaves
// blank (stop_confirmed_by, stop_evidence_ref, stop_method), in that order:
// the proof that an owner or a lock's holder stopped, which a takeover and
// the release of a held lock both need (docs/recovery.md, sections 7 and 11).
func missingStopEvidence(ev *event) []string {
	var missing []string
	if !given(ev.StopConfirmedBy) {
		missing = append(missing, "stop_confirmed_by")
	}
	if !given(ev.StopEvidenceRef) {
		missing = append(missing, "stop_evidence_ref")
	}
	if ev.StopMethod == "" {
		missing = append(missing, "stop_method")
	}
	return missing
}
