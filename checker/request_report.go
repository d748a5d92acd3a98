package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/requeststore"
)

// RequestState is a request's state at the check's now (docs/recovery.md,
// Claimed requests).
type RequestState string

// The request states. Stale and unclaimed requests are unhealthy: the
// verdict is unhealthy while the log has one, however its runs are.
const (
	// RequestRequested: requested, not claimed yet, within
	// stale_after_seconds plus the lease margin.
	RequestRequested RequestState = "requested"
	// RequestClaimed: claimed, its lease (plus the margin) still live, no
	// run known as its outcome yet.
	RequestClaimed RequestState = "claimed"
	// RequestStale: claimed, its lease plus the margin passed, and no run
	// known as its outcome: the runbook's STALE. It may have run.
	RequestStale RequestState = "stale"
	// RequestUnclaimed: requested, and nobody claimed it within
	// stale_after_seconds plus the margin.
	RequestUnclaimed RequestState = "unclaimed"
	// RequestDone: the run it started is known (its outcome): named, and
	// the log has an event of it.
	RequestDone RequestState = "done"
	// RequestReconciled: it was stale or unclaimed, and a later request
	// for the same work carried stale_request_reconciled evidence.
	RequestReconciled RequestState = "reconciled"
)

// RequestsReport is the snapshot's requests section: set only when the
// log has request events.
type RequestsReport struct {
	Counts   RequestCounts   `json:"counts"`
	Requests []RequestReport `json:"requests"`
}

// RequestCounts counts the requests by state.
type RequestCounts struct {
	Requested  int `json:"requested"`
	Claimed    int `json:"claimed"`
	Stale      int `json:"stale"`
	Unclaimed  int `json:"unclaimed"`
	Done       int `json:"done"`
	Reconciled int `json:"reconciled"`
}

// Unhealthy counts the stale and unclaimed requests.
func (c RequestCounts) Unhealthy() int { return c.Stale + c.Unclaimed }

// RequestReport is one request in the snapshot. Times are RFC 3339 in UTC;
// lines count across the log's files; null where the log says nothing.
type RequestReport struct {
	RequestID   string       `json:"request_id"`
	State       RequestState `json:"state"`
	Line        int          `json:"line"`
	RequestedAt string       `json:"requested_at"`
	// ScheduledFor is the work asked for; null for an ad hoc request.
	ScheduledFor *string `json:"scheduled_for"`
	RequestedBy  *string `json:"requested_by"`
	ClaimedBy    *string `json:"claimed_by"`
	ClaimedAt    *string `json:"claimed_at"`
	ClaimLine    *int    `json:"claim_line"`
	// LeaseExpiresAt is when the request stops being pending, before
	// lease_margin_seconds: the claim's lease_expires_at, else claimed_at
	// (unclaimed: the requested time) plus stale_after_seconds; null once
	// it has an outcome or was settled.
	LeaseExpiresAt *string `json:"lease_expires_at"`
	// RunID is the run named as its outcome on RunLine; the request is
	// done only when the log has an event of that run.
	RunID   *string `json:"run_id"`
	RunLine *int    `json:"run_line"`
	// StaleRequestReconciled is this request's evidence that an earlier
	// stale request was reconciled; SettledLine is the line of the later
	// request whose evidence settled this one.
	StaleRequestReconciled *string `json:"stale_request_reconciled"`
	SettledLine            *int    `json:"settled_line"`
	// Steps are what to do, in order, for a stale or unclaimed request;
	// empty otherwise.
	Steps []string `json:"steps"`
}

// judgeRequests sets s's requests section at the check's now; a stale or
// unclaimed request makes the verdict unhealthy.
func (c *contractState) judgeRequests(s *Snapshot) {
	st := c.req.store
	if st == nil || st.Len() == 0 {
		return
	}
	rep := &RequestsReport{Requests: make([]RequestReport, 0, st.Len())}
	for i := range st.Len() {
		r := st.At(i)
		rr := RequestReport{RequestID: r.ID, Line: r.Line, RequestedAt: formatTime(r.At), Steps: []string{}}
		if !r.Slot.IsZero() {
			rr.ScheduledFor = optString(formatTime(r.Slot))
		}
		rr.RequestedBy, rr.StaleRequestReconciled = optString(r.RequestedBy), optString(r.Reconciled)
		if r.Claimed() {
			rr.ClaimedBy, rr.ClaimedAt, rr.ClaimLine = optString(r.ClaimedBy), optString(formatTime(r.ClaimedAt)), optInt(r.ClaimLine)
		}
		rr.RunID, rr.RunLine, rr.SettledLine = optString(r.RunID), optInt(r.RunLine), optInt(r.SettledLine)
		switch {
		case c.hasOutcome(r):
			rr.State = RequestDone
		case r.SettledLine > 0:
			rr.State = RequestReconciled
		default:
			rr.LeaseExpiresAt = optString(formatTime(c.requestDeadline(r)))
			stale := c.requestStaleAt(r, c.opts.Now)
			switch {
			case r.Claimed() && stale:
				rr.State = RequestStale
			case r.Claimed():
				rr.State = RequestClaimed
			case stale:
				rr.State = RequestUnclaimed
			default:
				rr.State = RequestRequested
			}
		}
		if rr.State == RequestStale || rr.State == RequestUnclaimed {
			rr.Steps = c.requestSteps(r, rr.State)
		}
		counts := &rep.Counts
		*map[RequestState]*int{RequestRequested: &counts.Requested, RequestClaimed: &counts.Claimed, RequestStale: &counts.Stale,
			RequestUnclaimed: &counts.Unclaimed, RequestDone: &counts.Done, RequestReconciled: &counts.Reconciled}[rr.State]++
		rep.Requests = append(rep.Requests, rr)
	}
	s.Requests = rep
	if rep.Counts.Unhealthy() > 0 {
		s.Verdict = VerdictUnhealthy
	}
}

// requestSteps are the runbook's steps for a stale or unclaimed request:
// reconcile the run, the audit trail and the job log before any new
// request, since stale does not mean not executed; then record the
// reconciliation on the new request.
func (c *contractState) requestSteps(r *requeststore.Request, state RequestState) []string {
	work, slotFlag := "ad hoc work (no scheduled_for)", ""
	if !r.Slot.IsZero() {
		work = "the slot " + formatTime(r.Slot)
		slotFlag = " --scheduled-for " + formatTime(r.Slot)
	}
	deadline := formatTime(c.requestDeadline(r))
	noRun := "no run is known as its outcome"
	if r.RunID != "" {
		noRun = fmt.Sprintf("the run it names, %s (%s), has no event in the log, so no run is known as its outcome", shellWord(r.RunID), c.lineText(r.RunLine))
	}
	first := fmt.Sprintf("Request %s for %s was claimed by %s at %s (%s); its lease ended at %s and %s: it is stale. Stale does not mean not executed: the poller may have started the work and lost track of it.",
		shellWord(r.ID), work, shellWord(r.ClaimedBy), formatTime(r.ClaimedAt), c.lineText(r.ClaimLine), deadline, noRun)
	find := fmt.Sprintf("Reconcile before any new request: look for a run of this work in the event log and in the orchestrator (a run for %s, started after %s by %s), in the audit trail and in the job log.", work, formatTime(r.ClaimedAt), shellWord(r.ClaimedBy))
	if state == RequestUnclaimed {
		first = fmt.Sprintf("Request %s for %s was requested at %s (%s) and no poller claimed it by %s: it is unclaimed. A poller may still claim it, or may have run it without logging its claim.",
			shellWord(r.ID), work, formatTime(r.At), c.lineText(r.Line), deadline)
		if r.RunID != "" {
			first += fmt.Sprintf(" The run it names, %s (%s), has no event in the log.", shellWord(r.RunID), c.lineText(r.RunLine))
		}
		find = fmt.Sprintf("Reconcile before any new request: check that the pollers are running, and look for a run of this work in the event log and in the orchestrator (a run for %s, started after %s), in the audit trail and in the job log.", work, formatTime(r.At))
	}
	return []string{
		first,
		find,
		fmt.Sprintf("If it ran, link its run to the request (write --request-id %s on the run's events, or a claimed event with its --run-id) and do not request it again.", shellWord(r.ID)),
		"If it did not run, and only then, request it anew with where the reconciliation is recorded: greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --status requested --request-id NEW_REQUEST_ID" + slotFlag + " --stale-request-reconciled EVIDENCE_REF",
	}
}
