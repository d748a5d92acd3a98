package checker

import (
	"fmt"
	"slices"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/requeststore"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
	"github.com/greenlight-ci/greenlight/internal/limits"
)

// The rules of request events (docs/recovery.md, Claimed requests): a
// request for a run (requested), a poller's claim of it (claimed), and the
// run that is its outcome. They model the runbook's request poller and its
// STALE state: a claimed request whose outcome nobody confirmed may still
// have run, so stale does not mean "not executed".
const (
	RuleDuplicateRequest      RuleID = "duplicate_request"
	RuleClaimWithoutRequest   RuleID = "claim_without_request"
	RuleUnknownRequest        RuleID = "unknown_request"
	RuleRequestClaimedTwice   RuleID = "request_claimed_twice"
	RuleConflictingRequestRun RuleID = "conflicting_request_run"
	RuleRequestWhileStale     RuleID = "request_while_stale"
)

// familyRequest is the family of the request rules (rule_request.go).
const familyRequest = "request"

// requestStatuses are the request events' statuses.
var requestStatuses = []Status{eventline.StatusRequested, eventline.StatusClaimed}

var duplicateRequestRule = Rule{ID: RuleDuplicateRequest, Family: familyRequest,
	Summary: "a requested event whose request_id an earlier requested event already names",
	Detail:  "A request_id names one request; asking again for the same work is a new request with a new id (and, while an earlier one is stale, its reconciliation evidence).",
	Example: `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z"}
{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:05:00Z"}`,
	Statuses: []Status{eventline.StatusRequested}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		if r := c.requestOf(x.ev.RequestID); r != nil {
			return fmt.Sprintf("request %q was already requested on %s; a request_id names one request", x.ev.RequestID, c.lineText(r.Line))
		}
		return ""
	}}

var claimWithoutRequestRule = Rule{ID: RuleClaimWithoutRequest, Family: familyRequest,
	Summary:  "a claimed event of a request no earlier requested event names",
	Detail:   "A poller claims a request that was made; a claim of an unknown request_id says the log lost the request, or the poller claimed something else.",
	Example:  `{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:00:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:00:00Z"}`,
	Statuses: []Status{eventline.StatusClaimed}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		if c.requestOf(x.ev.RequestID) == nil {
			return fmt.Sprintf("request %q was claimed by %q, but no earlier requested event names it", x.ev.RequestID, x.ev.ClaimedBy)
		}
		return ""
	}}

var unknownRequestRule = Rule{ID: RuleUnknownRequest, Family: familyRequest,
	Summary: "a run's event names a request_id no earlier requested event names",
	Detail:  "A run links itself to the request that started it with request_id; a request the log never made is no outcome of anything.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","request_id":"rq-1"}`,
	on:      onLog,
	check: func(c *contractState, x *lineCheck) string {
		if id := x.ev.RequestID; id != "" && !x.ev.Status.IsRequest() && c.requestOf(id) == nil {
			return fmt.Sprintf("run %s names request %q, but no earlier requested event names it", x.runID(), id)
		}
		return ""
	}}

var requestClaimedTwiceRule = Rule{ID: RuleRequestClaimedTwice, Family: familyRequest,
	Summary: "a claim of a request another poller already claimed, or that a reconciled request replaced",
	Detail:  "Two pollers that each claim one request each run its work: a double execution. A second claim by the same poller renews its claim (a new claimed_at and lease); another poller may not take the request over, whatever its lease says (the runbook's first never-do: a lease that ran out is no proof that its holder stopped). Reconcile the stale request, then make a new request with stale_request_reconciled; once such a request replaced it, the old request may not be claimed at all.",
	Example: `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z"}
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:01:00Z"}
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:02:00Z","claimed_by":"poller-b","claimed_at":"2026-01-01T10:02:00Z"}`,
	Statuses: []Status{eventline.StatusClaimed}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		r := c.requestOf(x.ev.RequestID)
		if r != nil && r.SettledLine > 0 {
			return fmt.Sprintf("request %q was replaced by the reconciled request on %s; %q may not claim it: the new request stands for its work", x.ev.RequestID, c.lineText(r.SettledLine), x.ev.ClaimedBy)
		}
		if r != nil && r.Claimed() && r.ClaimedBy != x.ev.ClaimedBy {
			return fmt.Sprintf("request %q was claimed by %q on %s; %q may not claim it too: two pollers would each run its work", x.ev.RequestID, r.ClaimedBy, c.lineText(r.ClaimLine), x.ev.ClaimedBy)
		}
		return ""
	}}

var conflictingRequestRunRule = Rule{ID: RuleConflictingRequestRun, Family: familyRequest,
	Summary: "a request linked to two runs, a run to two requests, a request to a run that began before it, or a run to a request that a reconciled request replaced",
	Detail:  "A request's outcome is one run: the run_id of a request event, or the run whose event carries the request_id. Once known, another run for the same request, or another request for the same run, contradicts it. The run is one the request started: a run whose first event is dated before the requested event (yesterday's run named by today's claim, or a later event of it, its close included, that carries today's request_id) answers an earlier need and is no outcome of this request. An event of a run that is the outcome of a stale request a reconciled request replaced (the run carries its request_id, or a request event named it) says the stale request ran after all: the reconciliation that said it had not was wrong, and its work may have run twice.",
	Example: `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z"}
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:01:00Z","run_id":"r-1"}
{"run_id":"r-2","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","request_id":"rq-1"}`,
	on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if c.req.store == nil && ev.Status != eventline.StatusRequested {
			return "" // a log without requests so far: nothing to link
		}
		if len(ev.RunID) == 0 || c.req.store == nil {
			// The first request event may name a run older than it.
			return c.runBeforeRequestText(ev)
		}
		if !ev.Status.IsRequest() {
			// A run of a request that a reconciled request replaced as
			// stale: the reconciliation said it had not run.
			o := c.req.store.OfRunBytes(ev.RunID)
			if r := c.requestOf(ev.RequestID); ev.RequestID != "" && r != nil && r.SettledLine > 0 {
				o = r
			}
			if o != nil && o.SettledLine > 0 {
				return fmt.Sprintf("run %s names request %q, which the reconciled request on %s replaced as stale: its work ran after all, so it ran twice if the new request's run ran too; that reconciliation was wrong", ev.RunID, o.ID, c.lineText(o.SettledLine))
			}
		}
		if ev.RequestID == "" {
			return c.runBeforeRequestText(ev)
		}
		run := string(ev.RunID)
		r := c.requestOf(ev.RequestID)
		if r != nil && r.RunID != "" && r.RunID != run {
			return fmt.Sprintf("request %q names run %s, but its outcome is run %s (%s); a request starts one run", ev.RequestID, run, r.RunID, c.lineText(r.RunLine))
		}
		if o := c.requestOfRun(run); o != nil && o != r {
			return fmt.Sprintf("run %s is named by request %q, but it is the outcome of request %q (%s); a run answers one request", run, ev.RequestID, o.ID, c.lineText(o.RunLine))
		}
		return c.runBeforeRequestText(ev)
	}}

// runBeforeRequestText is runBeforeRequest's message when it is
// conflicting_request_run's, else "".
func (c *contractState) runBeforeRequestText(ev *event) string {
	if id, msg := c.runBeforeRequest(ev); id == RuleConflictingRequestRun {
		return msg
	}
	return ""
}

// runBeforeRequest is the conflicting_request_run message (with its rule)
// when ev links a run to a request made after the run's first event, else
// "". A request's outcome is a run it started: a run that began before the
// request (yesterday's run named by today's claim, or a late event of it
// that carries today's request_id) answers an earlier need, and taking it
// for the request's outcome would call work done that nobody ran. The
// request is ev itself (requested with run_id), the request ev claims
// (claimed with run_id), the request a run's event names (request_id), or
// the request a claim linked to ev's run before the run's first event (ev,
// then dated before the request). A run the window folded keeps only its
// last event's time: when that is before the request the run began before
// it; otherwise its record cannot tell, and the event is folded_run_event.
func (c *contractState) runBeforeRequest(ev *event) (RuleID, string) {
	if len(ev.RunID) == 0 || c.req.store == nil && ev.Status != eventline.StatusRequested {
		return "", ""
	}
	reqID, reqLine, reqAt := ev.RequestID, ev.Line, ev.Time
	if ev.Status != eventline.StatusRequested {
		r := c.requestOf(ev.RequestID)
		if ev.RequestID == "" {
			r = c.req.store.OfRunBytes(ev.RunID)
		}
		if r == nil {
			return "", ""
		}
		reqID, reqLine, reqAt = r.ID, r.Line, r.At
	}
	firstLine, firstAt := 0, time.Time{}
	if run := c.runs.Peek(ev.RunID); run != nil {
		firstLine, firstAt = run.FirstLine(), run.FirstAt()
	} else if f, ok := c.foldedByID(ev.RunID); ok {
		if !f.LastAt().Before(reqAt) {
			return RuleFoldedRunEvent, fmt.Sprintf("request %q names run %s as its outcome, but run %s was folded out of the window (last event %s) and its compact record cannot tell whether it began before the request (%s); check without --window, or with a wider one", reqID, ev.RunID, ev.RunID, formatTime(f.LastAt()), c.lineText(reqLine))
		}
		return RuleConflictingRequestRun, fmt.Sprintf("request %q names run %s as its outcome, but the run's last event (%s, folded out of the window) is before the request was made (%s, %s); a request's outcome is a run it started", reqID, ev.RunID, formatTime(f.LastAt()), c.lineText(reqLine), formatTime(reqAt))
	} else if !ev.Status.IsRequest() {
		firstLine, firstAt = ev.Line, ev.Time // the run's first event
	} else {
		return "", "" // the run has not started: no outcome yet
	}
	if !firstAt.Before(reqAt) {
		return "", ""
	}
	first := fmt.Sprintf("the run's first event (%s, %s) is before the request was made (%s, %s); a request's outcome is a run it started", c.lineText(firstLine), formatTime(firstAt), c.lineText(reqLine), formatTime(reqAt))
	switch {
	case ev.Status.IsRequest():
		return RuleConflictingRequestRun, fmt.Sprintf("request %q names run %s as its outcome, but %s", reqID, ev.RunID, first)
	case ev.RequestID != "":
		return RuleConflictingRequestRun, fmt.Sprintf("run %s names request %q, but %s", ev.RunID, reqID, first)
	}
	return RuleConflictingRequestRun, fmt.Sprintf("run %s is the outcome of request %q, but %s", ev.RunID, reqID, first)
}

// foldedByID returns the compact record of run id when the window folded it.
func (c *contractState) foldedByID(id []byte) (runstore.FoldedRun, bool) {
	if c.window == nil {
		return runstore.FoldedRun{}, false
	}
	return c.window.folded.Find(id)
}

var requestWhileStaleRule = Rule{ID: RuleRequestWhileStale, Family: familyRequest,
	Summary: "a new request for the same work while an earlier request is stale, without stale_request_reconciled",
	Detail:  "A request is stale when it was claimed and its lease (lease_expires_at, else claimed_at plus stale_after_seconds) plus lease_margin_seconds has passed with no run known as its outcome, or unclaimed when nobody claimed it within stale_after_seconds plus the margin. Stale does not mean not executed: the poller may have started the work. Before a new request for the same work (the same scheduled_for; a request without one is the same work as any), reconcile the run, the audit trail and the job log, and give where that is recorded in stale_request_reconciled (not blank).",
	Example: `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T08:00:00Z","scheduled_for":"2026-01-01T00:00:00Z"}
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T08:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T08:01:00Z","lease_expires_at":"2026-01-01T08:31:00Z"}
{"request_id":"rq-2","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z","scheduled_for":"2026-01-01T00:00:00Z"}`,
	Statuses: []Status{eventline.StatusRequested}, on: onLog,
	check: func(c *contractState, x *lineCheck) string {
		ev := x.ev
		if given(ev.StaleRequestReconciled) {
			return ""
		}
		stale := c.staleFor(ev)
		if len(stale) == 0 {
			return ""
		}
		r := stale[0] // the first is named; one is enough to refuse
		what := fmt.Sprintf("stale: claimed by %q at %s (%s), its lease ended at %s", r.ClaimedBy, formatTime(r.ClaimedAt), c.lineText(r.ClaimLine), formatTime(c.requestDeadline(r)))
		if !r.Claimed() {
			what = fmt.Sprintf("unclaimed: requested at %s (%s), nobody claimed it by %s", formatTime(r.At), c.lineText(r.Line), formatTime(c.requestDeadline(r)))
		}
		return fmt.Sprintf("request %q asks for the same work as request %q, which is %s, and no run is known as its outcome. Stale does not mean not executed: reconcile the run, the audit trail and the job log first, and give where that is recorded in stale_request_reconciled", ev.RequestID, r.ID, what)
	}}

// requestState is what a check keeps of the log's requests.
type requestState struct {
	store *requeststore.Store // nil until the first request event
	// open are the indexes of the requests that can be stale, in order:
	// each one with no outcome that no reconciliation settled, and those
	// that got one since the last requested event (staleFor drops them).
	open []int
	// full is the error of a log of more than limits.MaxRequests requests.
	full error
}

// requestOf returns the request of request_id id, or nil.
func (c *contractState) requestOf(id string) *requeststore.Request {
	if c.req.store == nil {
		return nil
	}
	return c.req.store.Find(id)
}

// requestOfRun returns the request whose outcome is run id, or nil.
func (c *contractState) requestOfRun(id string) *requeststore.Request {
	if c.req.store == nil {
		return nil
	}
	return c.req.store.OfRun(id)
}

// requestChecks are the rules a request event is checked against, in
// checking order: the request family's rules of its status, and those of
// every status.
var requestChecks = func() (t [2][]*Rule) {
	for i, st := range requestStatuses {
		for _, r := range checkingOrder {
			if r.Family == familyRequest && (r.Statuses == nil || slices.Contains(r.Statuses, st)) {
				t[i] = append(t[i], r)
			}
		}
	}
	return t
}()

// checkRequest is check for a request event: it names no stage, attempt or
// (always) run, so only its time and the request rules apply. A timestamp
// or claimed_at later than now plus the skew is timestamp_in_future.
func (c *contractState) checkRequest(x *lineCheck) (RuleID, string) {
	ev := x.ev
	if ev.Time.After(c.horizon) {
		return RuleTimestampInFuture, c.inFutureText(x)
	}
	if ev.ClaimedAt.After(c.horizon) {
		return RuleTimestampInFuture, fmt.Sprintf("claimed_at %s is more than %d s after now (%s)", formatTime(ev.ClaimedAt), limits.ClockSkewSeconds, formatTime(c.opts.Now))
	}
	i := 0
	if ev.Status == eventline.StatusClaimed {
		i = 1
	}
	for _, r := range requestChecks[i] {
		if msg := r.check(c, x); msg != "" {
			return r.ID, msg
		}
	}
	if id, msg := c.runBeforeRequest(ev); id == RuleFoldedRunEvent {
		return id, msg // a run the window folded: docs/window.md
	}
	return "", ""
}

// recordRequest keeps a request event that broke no rule.
func (c *contractState) recordRequest(x *lineCheck) {
	ev := x.ev
	if c.req.store == nil {
		c.req.store = requeststore.New(limits.MaxRequests)
	}
	s := c.req.store
	switch ev.Status {
	case eventline.StatusRequested:
		if given(ev.StaleRequestReconciled) {
			for _, r := range c.staleFor(ev) {
				r.SettledLine = ev.Line
			}
		}
		r := requeststore.Request{ID: ev.RequestID, Line: ev.Line, At: ev.Time, RequestedBy: ev.RequestedBy, Reconciled: ev.StaleRequestReconciled}
		if ev.HasScheduledFor {
			r.Slot = ev.ScheduledFor
		}
		if len(ev.RunID) > 0 {
			r.RunID, r.RunLine = string(ev.RunID), ev.Line
		}
		if err := s.Add(r); err != nil {
			if c.req.full == nil {
				file, line := c.locate(ev.Line)
				c.req.full = fmt.Errorf("%s: line %d: the log names more than %d requests, the most a check keeps (docs/recovery.md, Claimed requests)", displayFile(file), line, limits.MaxRequests)
			}
			return
		}
		c.req.open = append(c.req.open, s.Len()-1) // staleFor drops it once it has an outcome
	case eventline.StatusClaimed:
		r := s.Find(ev.RequestID)
		r.ClaimLine, r.ClaimedBy, r.ClaimedAt, r.Lease = ev.Line, ev.ClaimedBy, ev.ClaimedAt, ev.LeaseExpiresAt
		if len(ev.RunID) > 0 {
			s.Link(r, string(ev.RunID), ev.Line)
		}
	}
}

// linkRequest records that the run of a run's event that carries a
// request_id is that request's outcome.
func (c *contractState) linkRequest(ev *event, run string) {
	if r := c.requestOf(ev.RequestID); r != nil {
		c.req.store.Link(r, run, ev.Line)
	}
}

// hasOutcome says whether request r has an outcome: it names a run (its
// RunID) and the check recorded an event of that run, kept or folded by
// the window. A run_id alone is no outcome: a claim may name a run that
// never started.
func (c *contractState) hasOutcome(r *requeststore.Request) bool {
	if r.RunID == "" {
		return false
	}
	if _, ok := c.runs.Has([]byte(r.RunID)); ok {
		return true
	}
	if c.window != nil {
		_, ok := c.window.folded.Find([]byte(r.RunID))
		return ok
	}
	return false
}

// requestDeadline is when request r, with no outcome, stops being pending
// (before the lease margin): its claim's lease_expires_at, else claimed_at
// plus stale_after_seconds; unclaimed, its requested time plus
// stale_after_seconds.
func (c *contractState) requestDeadline(r *requeststore.Request) time.Time {
	stale := time.Duration(c.staleAfter()) * time.Second
	switch {
	case r.Claimed() && !r.Lease.IsZero():
		return r.Lease
	case r.Claimed():
		return r.ClaimedAt.Add(stale)
	}
	return r.At.Add(stale)
}

// requestStaleAt says whether request r, with no outcome and not settled,
// is stale (claimed) or unclaimed at t: past its deadline plus
// lease_margin_seconds.
func (c *contractState) requestStaleAt(r *requeststore.Request, t time.Time) bool {
	margin := time.Duration(c.opts.Definition.LeaseMarginSeconds) * time.Second
	return t.After(c.requestDeadline(r).Add(margin))
}

// sameWork says whether a request for slot (zero: ad hoc) asks for the
// same work as request r: the same scheduled_for instant, or either one ad
// hoc.
func sameWork(r *requeststore.Request, slot time.Time) bool {
	return r.Slot.IsZero() || slot.IsZero() || r.Slot.Equal(slot)
}

// staleFor returns the earlier requests for the same work as the requested
// event ev that are stale or unclaimed at its time, in order. On the way it
// drops from open the requests that got an outcome or were settled since
// (both for good), so each request event scans open once.
func (c *contractState) staleFor(ev *event) []*requeststore.Request {
	var slot time.Time
	if ev.HasScheduledFor {
		slot = ev.ScheduledFor
	}
	var out []*requeststore.Request
	open := c.req.open[:0]
	for _, i := range c.req.open {
		r := c.req.store.At(i)
		if c.hasOutcome(r) || r.SettledLine > 0 {
			continue
		}
		open = append(open, i)
		if sameWork(r, slot) && c.requestStaleAt(r, ev.Time) {
			out = append(out, r)
		}
	}
	c.req.open = open
	return out
}

// encodeRequests appends the requests to a checkpoint's fold state, after
// everything else and only when the log has some, so that the checkpoint of
// a log without requests is what it was before request events existed.
func (c *contractState) encodeRequests(e *runstore.Encoder) {
	if c.req.store != nil && c.req.store.Len() > 0 {
		c.req.store.Encode(e)
	}
}

// decodeRequests reads what encodeRequests wrote (at least one request)
// and finds the open requests again.
func (c *contractState) decodeRequests(d *runstore.Decoder) {
	s := requeststore.New(limits.MaxRequests)
	s.Decode(d)
	if d.Fault() != "" {
		return
	}
	if s.Len() == 0 {
		// encodeRequests writes nothing for no request: a zero here is
		// a byte past the fold state's end.
		d.Fail("bytes after its end")
		return
	}
	c.req.store = s
	for i := range s.Len() {
		if r := s.At(i); !c.hasOutcome(r) && r.SettledLine == 0 {
			c.req.open = append(c.req.open, i)
		}
	}
}
