package checker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestFeed: events fed by an importer meet the same rules as log lines, in
// the order given; violations come back in input order with the importer's
// note, and a run may be fed once.
func TestFeed(t *testing.T) {
	def, err := checker.LinearDefinition([]checker.StageID{checker.StrStage("a")})
	if err != nil {
		t.Fatal(err)
	}
	feed, err := checker.NewFeed(checker.Options{Now: corpusNow})
	if err != nil {
		t.Fatal(err)
	}
	at := func(min int) time.Time { return time.Date(2026, 1, 1, 10, min, 0, 0, time.UTC) }
	a := checker.StrStage("a")
	events := []checker.FeedEvent{
		{File: "f", Line: 5, Pos: 5, Stage: a, Attempt: 1, Status: checker.StatusStarted, Time: at(2)},
		{File: "f", Line: 3, Pos: 3, Stage: a, Attempt: 1, Status: checker.StatusSucceeded, Time: at(1), Note: "seen as X"},
		{File: "f", Line: 4, Pos: 4, Stage: checker.StrStage("b"), Attempt: 1, Status: checker.StatusStarted, Time: at(3)},
	}
	if err := feed.Run("r-1", def, events); err != nil {
		t.Fatal(err)
	}
	if err := feed.Run("r-1", def, nil); err == nil {
		t.Error("a run was fed twice without an error")
	}
	rep := feed.Result(checker.Source{}).Report
	want := []struct {
		line int
		rule checker.RuleID
		msg  string
	}{
		{3, checker.RuleOutOfOrder, "timestamp 2026-01-01T10:01:00Z is earlier than the previous event of run r-1 (2026-01-01T10:02:00Z) (seen as X)"},
		{4, checker.RuleUnknownStage, "stage b is not declared by the pipeline definition (declared: a)"},
	}
	if len(rep.Violations) != len(want) {
		t.Fatalf("got %+v", rep.Violations)
	}
	for i, w := range want {
		v := rep.Violations[i]
		if v.Line != w.line || v.Rule != w.rule || v.Message != w.msg || v.File != "f" || v.RunID != "r-1" {
			t.Errorf("violation %d: got %+v, want line %d %s %q", i, v, w.line, w.rule, w.msg)
		}
	}
}

// TestFeedRefusesJobLog: a Feed does not reconcile a job log, so it refuses
// one rather than leave it unread.
func TestFeedRefusesJobLog(t *testing.T) {
	_, err := checker.NewFeed(checker.Options{Now: corpusNow, JobLog: strings.NewReader(""), JobLogFile: "job.jsonl"})
	want := "checker: Options.JobLog applies to native event logs only: OpenLineage attempts carry no attempt_id to match job-log records with"
	if err == nil || err.Error() != want {
		t.Fatalf("NewFeed with a job log: %v, want %q", err, want)
	}
}
