package render

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// requestsHeadline is the headline's part for the snapshot's stale and
// unclaimed requests (docs/recovery.md, Claimed requests): ", 1 stale
// request", or "".
func requestsHeadline(s *checker.Snapshot) string {
	rq := s.Requests
	if rq == nil {
		return ""
	}
	h := ""
	if n := rq.Counts.Stale; n > 0 {
		h += ", " + words.Count(n, "stale request")
	}
	if n := rq.Counts.Unclaimed; n > 0 {
		h += ", " + words.Count(n, "unclaimed request")
	}
	return h
}

// requestCounts is "1 stale, 2 done": the states that have requests.
func requestCounts(c checker.RequestCounts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what checker.RequestState
	}{{c.Stale, checker.RequestStale}, {c.Unclaimed, checker.RequestUnclaimed}, {c.Claimed, checker.RequestClaimed},
		{c.Requested, checker.RequestRequested}, {c.Reconciled, checker.RequestReconciled}, {c.Done, checker.RequestDone}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// requestIDs names a request to copy: "request rq-1, claimed by poller-a,
// line 4". Log text in it is NOT escaped.
func requestIDs(r *checker.RequestReport) string {
	parts := []string{"request " + r.RequestID}
	if r.ScheduledFor != nil {
		parts = append(parts, "scheduled_for "+*r.ScheduledFor)
	}
	if r.ClaimedBy != nil {
		parts = append(parts, "claimed by "+*r.ClaimedBy)
	}
	return strings.Join(parts, ", ")
}

// requestsText renders the requests section of the text output: the
// counts, then each stale or unclaimed request with its numbered steps;
// log text escaped. "" when the log has no request.
func requestsText(s *checker.Snapshot) string {
	rq := s.Requests
	if rq == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "requests: %s\n", requestCounts(rq.Counts))
	for i := range rq.Requests {
		r := &rq.Requests[i]
		if len(r.Steps) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s (%s)\n", r.State, Terminal(requestIDs(r)))
		for k, step := range r.Steps {
			fmt.Fprintf(&b, "    %d. %s\n", k+1, TerminalMessage(step))
		}
	}
	return b.String()
}

// requestsMarkdown renders the requests section of the Markdown report and
// job summary; log text escaped. "" when the log has no request.
func requestsMarkdown(s *checker.Snapshot) string {
	rq := s.Requests
	if rq == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Requests\n\n%s.\n", Markdown(requestCounts(rq.Counts)))
	for i := range rq.Requests {
		r := &rq.Requests[i]
		if len(r.Steps) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n**Request `%s`** (%s)\n\n", r.State, Markdown(requestIDs(r)))
		for k, step := range r.Steps {
			fmt.Fprintf(&b, "%d. %s\n", k+1, Markdown(step))
		}
	}
	return b.String()
}
