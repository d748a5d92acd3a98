package render_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestRequestFindings: a stale request (testdata/recovery/stale_request.jsonl,
// docs/recovery.md, Claimed requests) is a finding of its own in the CI
// formats, at its claim's line, and the headline and roll-up name it.
func TestRequestFindings(t *testing.T) {
	l := checkFormatLog(t, formatLog{"stale_request", "testdata/recovery/stale_request.jsonl", "testdata/recovery/pipeline.yaml", "", "2026-01-01T12:00:00Z"})
	s := l.Result.Snapshot
	if got, want := render.Headline(s), "unhealthy: 2 runs (2 succeeded), gate all, 1 stale request"; got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := render.WriteGitLab(&b, []render.Log{l}); err != nil {
		t.Fatal(err)
	}
	var issues []gitlabIssue
	if err := json.Unmarshal(b.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].CheckName != render.HealthRequestStale || issues[0].Location.Lines.Begin != 24 ||
		!strings.HasPrefix(issues[0].Description, "request_stale (a request is stale or unclaimed): request rq-0101 stale: Request rq-0101 for the slot 2026-01-01T00:00:00Z was claimed by poller-b") {
		t.Errorf("issues %+v, want one request_stale at line 24", issues)
	}
	var page bytes.Buffer
	if err := render.WriteHTMLReport(&page, l.Result, render.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "stale: request rq-0101, scheduled_for 2026-01-01T00:00:00Z, claimed by poller-b: 1. Request rq-0101") {
		t.Errorf("the HTML report does not list the stale request")
	}
	var sarif sarifDoc
	if err := json.Unmarshal(renderSARIF(t, l), &sarif); err != nil {
		t.Fatal(err)
	}
	if rs := sarif.Runs[0].Results; len(rs) != 1 || rs[0].RuleID != render.HealthRequestStale {
		t.Errorf("SARIF results %+v, want one request_stale", rs)
	}
	// The roll-up keeps the stale request in the pipeline's row and stays
	// unhealthy over it.
	ru, _ := render.BuildRollup([]render.RollupInput{{File: "snapshots/stale_request.json", Snapshot: s}},
		time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), 366*24*time.Hour, render.RollupExpect{})
	if got, want := render.RollupText(ru), "1 unhealthy request (rq-0101 stale)"; ru.Verdict != checker.VerdictUnhealthy || !strings.Contains(got, want) {
		t.Errorf("roll-up %s:\n%s\nwant it to hold %q", ru.Verdict, got, want)
	}
}
