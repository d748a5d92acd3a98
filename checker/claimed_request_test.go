package checker_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestRequestStates: each request state (docs/recovery.md, Claimed
// requests) at a given now, with stale_after_seconds 900 and the lease
// margin 60 of testdata/recovery/pipeline.yaml, and the verdict it leaves
// when no run is unhealthy.
func TestRequestStates(t *testing.T) {
	const (
		req   = `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z"}`
		claim = `{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:01:00Z"}`
		lease = `{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:01:00Z","lease_expires_at":"2026-01-01T11:00:00Z"}`
		run   = `{"run_id":"r-1","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","request_id":"rq-1"}
{"run_id":"r-1","stage":"audit","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}`
		claimRun = `{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:01:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:01:00Z","run_id":"r-1"}`
		reqRun   = `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z","run_id":"r-1"}`
		plainRun = `{"run_id":"r-1","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":"audit","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}`
	)
	for _, tc := range []struct {
		name, log, now string
		state          checker.RequestState
		lease          string
		unhealthy      bool
	}{
		{"requested, within the threshold", req, "10:16:00", checker.RequestRequested, "2026-01-01T10:15:00Z", false},
		{"unclaimed past the threshold and the margin", req, "10:16:01", checker.RequestUnclaimed, "2026-01-01T10:15:00Z", true},
		{"claimed, within claimed_at plus the threshold and margin", req + "\n" + claim, "10:17:00", checker.RequestClaimed, "2026-01-01T10:16:00Z", false},
		{"stale past it", req + "\n" + claim, "10:17:01", checker.RequestStale, "2026-01-01T10:16:00Z", true},
		{"a lease_expires_at sets the lease", req + "\n" + lease, "11:01:00", checker.RequestClaimed, "2026-01-01T11:00:00Z", false},
		{"stale past that lease", req + "\n" + lease, "11:01:01", checker.RequestStale, "2026-01-01T11:00:00Z", true},
		{"done by its run's request_id", req + "\n" + claim + "\n" + run, "23:00:00", checker.RequestDone, "", false},
		// A run_id is no outcome until the log has an event of that run: a
		// claim naming a run that never ran leaves the request stale.
		{"a claim naming a run with no event is no outcome", req + "\n" + claimRun, "10:17:01", checker.RequestStale, "2026-01-01T10:16:00Z", true},
		{"a requested event naming a run with no event is no outcome", reqRun, "10:16:01", checker.RequestUnclaimed, "2026-01-01T10:15:00Z", true},
		{"done once the named run has an event", req + "\n" + claimRun + "\n" + plainRun, "23:00:00", checker.RequestDone, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now, _ := time.Parse(time.RFC3339, "2026-01-01T"+tc.now+"Z")
			opts := checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: now, File: "log.jsonl"}
			res, err := checker.Check(strings.NewReader(tc.log+"\n"), opts)
			if err != nil || res.Snapshot == nil {
				t.Fatalf("%v %+v", err, res.Report.Violations)
			}
			rq := res.Snapshot.Requests
			if rq == nil || len(rq.Requests) != 1 {
				t.Fatalf("requests %+v", rq)
			}
			r := rq.Requests[0]
			lease := ""
			if r.LeaseExpiresAt != nil {
				lease = *r.LeaseExpiresAt
			}
			if r.State != tc.state || lease != tc.lease || (len(r.Steps) > 0) != tc.unhealthy || (rq.Counts.Unhealthy() > 0) != tc.unhealthy {
				t.Errorf("state %s, lease %q, %d steps, counts %+v; want %s, %q, unhealthy %v", r.State, lease, len(r.Steps), rq.Counts, tc.state, tc.lease, tc.unhealthy)
			}
			if tc.unhealthy && res.Snapshot.Verdict != checker.VerdictUnhealthy {
				t.Errorf("verdict %s with a %s request", res.Snapshot.Verdict, r.State)
			}
		})
	}
}

// TestRequestsWindow: a window folds runs, never requests: a stale request
// stays listed, and unhealthy, and so does the request whose run was folded.
func TestRequestsWindow(t *testing.T) {
	opts := checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: "stale_request.jsonl",
		Window: checker.Window{Duration: time.Hour}}
	f, err := os.Open("../testdata/recovery/stale_request.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := checker.Check(f, opts)
	if err != nil || res.Snapshot == nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if s.Window == nil || s.Window.FoldedRunCount != 1 || s.Len() != 1 {
		t.Fatalf("window %+v, %d runs listed; want the earlier run folded", s.Window, s.Len())
	}
	if rq := s.Requests; rq == nil || rq.Counts != (checker.RequestCounts{Stale: 1, Done: 2, Reconciled: 1}) || s.Verdict != checker.VerdictUnhealthy {
		t.Errorf("requests %+v, verdict %s; want 1 stale, 2 done, 1 reconciled, unhealthy", rq, s.Verdict)
	}
}
