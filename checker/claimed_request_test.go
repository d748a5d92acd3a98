package checker_test

import (
	"fmt"
	"os"
	"slices"
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

// TestRequestOutcomeBeforeRequest: a request's outcome is a run it
// started, so a run whose first event is dated before the request was made
// is conflicting_request_run, however the two are linked; a run the
// window folded is judged from its last event's time, or, when that cannot
// tell, refused as folded_run_event (docs/window.md).
func TestRequestOutcomeBeforeRequest(t *testing.T) {
	const (
		// older is a run that succeeded, so that a window can fold it.
		older = `{"run_id":"r-0","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:00:00Z"}
{"run_id":"r-0","stage":"audit","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T09:01:00Z"}
{"run_id":"r-0","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:02:00Z"}
{"run_id":"r-0","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T09:03:00Z"}
{"run_id":"r-0","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:04:00Z"}
{"run_id":"r-0","stage":"load","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T09:05:00Z"}
{"run_id":"r-0","stage":"publish","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:06:00Z"}
{"run_id":"r-0","stage":"publish","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T09:30:00Z"}`
		req = `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T09:10:00Z"}`
	)
	var b strings.Builder
	for i := range 1 << 14 {
		fmt.Fprintf(&b, `{"run_id":"f-%d","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}`+"\n", i)
	}
	fill, fillEnd := b.String(), 8+1<<14 // the line of fill's last run, after older's 8
	for _, tc := range []struct {
		name, log string
		window    time.Duration
		want      string // the one violation, "" for none
	}{
		{"a claim names a run that began before the request", older + "\n" + req + `
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T10:00:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T10:00:00Z","run_id":"r-0"}`, 0,
			`10 conflicting_request_run: request "rq-1" names run r-0 as its outcome, but the run's first event (line 1, 2026-01-01T09:00:00Z) is before the request was made (line 9, 2026-01-01T09:10:00Z); a request's outcome is a run it started`},
		{"a requested event names a run that began before it", older + "\n" + `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T09:10:00Z","run_id":"r-0"}`, 0,
			`9 conflicting_request_run: request "rq-1" names run r-0 as its outcome, but the run's first event (line 1, 2026-01-01T09:00:00Z) is before the request was made (line 9, 2026-01-01T09:10:00Z); a request's outcome is a run it started`},
		{"a close of a run that began before the request carries its request_id", older + "\n" + req + `
{"run_id":"r-0","status":"closed","timestamp_utc":"2026-01-01T10:00:00Z","result_code":"RUN_ARCHIVED","request_id":"rq-1"}`, 0,
			`10 conflicting_request_run: run r-0 names request "rq-1", but the run's first event (line 1, 2026-01-01T09:00:00Z) is before the request was made (line 9, 2026-01-01T09:10:00Z); a request's outcome is a run it started`},
		{"a claim names a run whose first event, later in the log, is dated before the request", req + `
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T09:11:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T09:11:00Z","run_id":"r-0"}
{"run_id":"r-0","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:00:00Z"}`, 0,
			`3 conflicting_request_run: run r-0 is the outcome of request "rq-1", but the run's first event (line 3, 2026-01-01T09:00:00Z) is before the request was made (line 1, 2026-01-01T09:10:00Z); a request's outcome is a run it started`},
		{"a run that begins when the request is made is its outcome", req + `
{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T09:10:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T09:10:00Z","run_id":"r-0"}
{"run_id":"r-0","stage":"audit","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:10:00Z"}`, 0, ""},
		// fill's runs are enough for the window to sweep, folding r-0.
		{"folded, its last event before the request", older + "\n" + fill + `{"request_id":"rq-1","status":"requested","timestamp_utc":"2026-01-01T11:02:00Z","run_id":"r-0"}`, time.Hour,
			fmt.Sprintf(`%d conflicting_request_run: request "rq-1" names run r-0 as its outcome, but the run's last event (2026-01-01T09:30:00Z, folded out of the window) is before the request was made (line %d, 2026-01-01T11:02:00Z); a request's outcome is a run it started`, fillEnd+1, fillEnd+1)},
		{"folded, its record cannot tell", older + "\n" + req + "\n" + fill + `{"request_id":"rq-1","status":"claimed","timestamp_utc":"2026-01-01T11:02:00Z","claimed_by":"poller-a","claimed_at":"2026-01-01T11:02:00Z","run_id":"r-0"}`, time.Hour,
			fmt.Sprintf(`%d folded_run_event: request "rq-1" names run r-0 as its outcome, but run r-0 was folded out of the window (last event 2026-01-01T09:30:00Z) and its compact record cannot tell whether it began before the request (line 9); check without --window, or with a wider one`, fillEnd+2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: "log.jsonl",
				Window: checker.Window{Duration: tc.window}}
			res, err := checker.Check(strings.NewReader(tc.log+"\n"), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Report.Violations {
				got = append(got, fmt.Sprintf("%d %s: %s", v.Line, v.Rule, v.Message))
			}
			if want := []string{tc.want}; tc.want == "" && len(got) > 0 || tc.want != "" && !slices.Equal(got, want) {
				t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), tc.want)
			}
		})
	}
}
