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

// requestIDs names a request to copy: "request rq-1, scheduled_for
// 2026-01-01T00:00:00Z, claimed by poller-a". Log text in it is NOT escaped.
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
	return requestsSection(s, "requests: %s\n", "  %s (%s)\n", "    %d. %s\n", Terminal, TerminalMessage)
}

// requestsMarkdown renders the requests section of the Markdown report and
// job summary; log text escaped. "" when the log has no request.
func requestsMarkdown(s *checker.Snapshot) string {
	return requestsSection(s, "### Requests\n\n%s.\n", "\n**Request `%s`** (%s)\n\n", "%d. %s\n", Markdown, Markdown)
}

// requestsSection writes the counts with head (numbers and state words: no
// log text), then each request that has steps with item (its state and
// requestIDs) and its numbered steps with step; escIDs and escStep escape
// the log text in them for the sink.
func requestsSection(s *checker.Snapshot, head, item, step string, escIDs, escStep func(string) string) string {
	rq := s.Requests
	if rq == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, head, requestCounts(rq.Counts))
	for i := range rq.Requests {
		r := &rq.Requests[i]
		if len(r.Steps) == 0 {
			continue
		}
		fmt.Fprintf(&b, item, r.State, escIDs(requestIDs(r)))
		for k, st := range r.Steps {
			fmt.Fprintf(&b, step, k+1, escStep(st))
		}
	}
	return b.String()
}

// RollupRequest is a stale or unclaimed request of a snapshot in a roll-up.
type RollupRequest struct {
	RequestID string `json:"request_id"`
	State     string `json:"state"`
}

// unhealthyRequests are s's stale and unclaimed requests; nil when none.
func unhealthyRequests(s *checker.Snapshot) []RollupRequest {
	if s.Requests == nil {
		return nil
	}
	var out []RollupRequest
	for _, r := range s.Requests.Requests {
		if r.State == checker.RequestStale || r.State == checker.RequestUnclaimed {
			out = append(out, RollupRequest{RequestID: r.RequestID, State: string(r.State)})
		}
	}
	return out
}

// requestsDetail is a roll-up entry's part for its unhealthy requests:
// "1 unhealthy request (rq-1 stale)"; log text through esc.
func requestsDetail(rs []RollupRequest, esc func(string) string) string {
	if len(rs) == 0 {
		return ""
	}
	var ids []string
	for i, r := range rs {
		if i == 3 {
			ids = append(ids, fmt.Sprintf("and %d more", len(rs)-3))
			break
		}
		ids = append(ids, esc(r.RequestID)+" "+r.State)
	}
	return fmt.Sprintf("%s (%s)", words.Count(len(rs), "unhealthy request"), strings.Join(ids, ", "))
}

// checkRequests checks a snapshot's requests section against itself (for
// CheckSnapshotConsistency): each request_id listed once, the counts
// count the listed requests, a stale or unclaimed request has steps and
// leaves the verdict unhealthy, and a done request names its run.
func checkRequests(s *checker.Snapshot) error {
	rq := s.Requests
	if rq == nil {
		return nil
	}
	seen := map[string]bool{}
	var n checker.RequestCounts
	for _, r := range rq.Requests {
		if seen[r.RequestID] {
			return fmt.Errorf("request_id %s is listed twice: a snapshot lists each request once", r.RequestID)
		}
		seen[r.RequestID] = true
		counts := map[checker.RequestState]*int{checker.RequestRequested: &n.Requested, checker.RequestClaimed: &n.Claimed, checker.RequestStale: &n.Stale,
			checker.RequestUnclaimed: &n.Unclaimed, checker.RequestDone: &n.Done, checker.RequestReconciled: &n.Reconciled}
		c, ok := counts[r.State]
		if !ok {
			return fmt.Errorf("request %s has the state %q, which is no request state", r.RequestID, r.State)
		}
		*c++
		if (r.State == checker.RequestStale || r.State == checker.RequestUnclaimed) && len(r.Steps) == 0 {
			return fmt.Errorf("request %s is %s but has no steps", r.RequestID, r.State)
		}
		if r.State == checker.RequestDone && r.RunID == nil {
			return fmt.Errorf("request %s is done but names no run: a request is done once the run it started is known", r.RequestID)
		}
	}
	if n != rq.Counts {
		return fmt.Errorf("requests.counts are %+v but the listed requests are %+v", rq.Counts, n)
	}
	if n.Unhealthy() > 0 && s.Verdict == checker.VerdictHealthy {
		return fmt.Errorf("verdict healthy with %s", words.Count(n.Unhealthy(), "stale or unclaimed request"))
	}
	return nil
}

// HealthRequestStale is the health rule of a stale or unclaimed request
// (docs/recovery.md, Claimed requests) in the CI formats.
const HealthRequestStale = "request_stale"

// requestFindings are the CI formats' findings of s's stale and unclaimed
// requests, each at the line of its claim (else its request), as locate
// places a line of the log; fn's false stops them and is returned.
func requestFindings(s *checker.Snapshot, path string, locate func(line int) (string, int), fn func(finding) bool) bool {
	if s.Requests == nil {
		return true
	}
	for i := range s.Requests.Requests {
		r := &s.Requests.Requests[i]
		if len(r.Steps) == 0 {
			continue
		}
		line := RequestLine(r)
		f := finding{Rule: HealthRequestStale, Path: path, Line: line, Message: RequestSummary(r), Key: strings.Join([]string{HealthRequestStale, path, r.RequestID}, "\x00")}
		if locate != nil {
			f.Path, f.Line = locate(line)
		}
		if !fn(f) {
			return false
		}
	}
	return true
}

// requestNotices are the HTML report's notices of the stale and unclaimed
// requests: one each, with its numbered steps (the template escapes them).
func requestNotices(s *checker.Snapshot) []string {
	if s.Requests == nil {
		return nil
	}
	var out []string
	for i := range s.Requests.Requests {
		r := &s.Requests.Requests[i]
		if len(r.Steps) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s:", r.State, requestIDs(r))
		for k, step := range r.Steps {
			fmt.Fprintf(&b, " %d. %s", k+1, step)
		}
		out = append(out, b.String())
	}
	return out
}

// RequestLine is the line of the log that proves a stale or unclaimed
// request: its claim's line, else its request's (lines count across the
// log's files).
func RequestLine(r *checker.RequestReport) int {
	if r.ClaimLine != nil {
		return *r.ClaimLine
	}
	return r.Line
}

// RequestSummary names a stale or unclaimed request, its state and its
// first step: "request rq-1 stale: Request rq-1 ... it is stale. ...";
// "" for a request without steps. Log text in it is NOT escaped.
func RequestSummary(r *checker.RequestReport) string {
	if len(r.Steps) == 0 {
		return ""
	}
	return fmt.Sprintf("request %s %s: %s", r.RequestID, r.State, r.Steps[0])
}
