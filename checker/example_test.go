package checker_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// Check reads an event log (JSON Lines, docs/contract.md) against a
// pipeline definition at a given moment: a valid log gives a snapshot with
// a verdict and each run's state; a log that breaks the contract gives
// violations with their line and rule id (docs/rules.md), and no snapshot.
func ExampleCheck() {
	def, err := checker.ParseDefinition([]byte("pipeline: nightly\nstages:\n  - {id: extract}\n  - {id: load}\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	logs := map[string]string{
		"retried": `{"run_id":"n-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:00:00Z"}
{"run_id":"n-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T02:10:00Z","returncode":0}
{"run_id":"n-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:11:00Z"}
{"run_id":"n-1","stage":"load","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T02:20:00Z","returncode":1,"error":"connection reset"}
{"run_id":"n-1","stage":"load","attempt":2,"status":"started","timestamp_utc":"2026-01-01T02:25:00Z"}
{"run_id":"n-1","stage":"load","attempt":2,"status":"succeeded","timestamp_utc":"2026-01-01T02:40:00Z","returncode":0}
`,
		"broken": `{"run_id":"n-2","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T02:10:00Z","returncode":0}
`,
	}
	for _, name := range []string{"retried", "broken"} {
		res, err := checker.Check(strings.NewReader(logs[name]), checker.Options{Definition: def, Now: now, File: name + ".jsonl"})
		if err != nil {
			fmt.Println(err)
			return
		}
		if !res.Report.Valid {
			for _, v := range res.Report.Violations {
				fmt.Printf("%s:%d: %s\n", v.File, v.Line, v.Rule)
			}
			continue
		}
		fmt.Println(name+":", res.Snapshot.Verdict)
		for r := range res.Snapshot.Runs() {
			for _, s := range r.Stages {
				fmt.Printf("  run %s stage %s: %s after %d attempts\n", r.RunID, s.Stage, s.State, s.AttemptCount)
			}
		}
	}
	// Output:
	// retried: healthy
	//   run n-1 stage extract: succeeded after 1 attempts
	//   run n-1 stage load: succeeded after 2 attempts
	// broken.jsonl:1: terminal_without_start
}

// A Feed applies events that an importer decoded from a format of its own
// (checker/openlineage does so for OpenLineage), run by run, with the same
// sequence rules, states and snapshot as Check.
func ExampleFeed() {
	def, err := checker.LinearDefinition([]checker.StageID{checker.StrStage("ingest")})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	feed, err := checker.NewFeed(checker.Options{Definition: def, Now: now})
	if err != nil {
		fmt.Println(err)
		return
	}
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	ingest := checker.StrStage("ingest")
	err = feed.Run("job-a", nil, []checker.FeedEvent{
		{Line: 1, Pos: 1, Stage: ingest, Attempt: 1, Status: checker.StatusStarted, Time: at(1)},
		{Line: 2, Pos: 2, Stage: ingest, Attempt: 1, Status: checker.StatusSucceeded, Time: at(2)},
	})
	if err == nil {
		// Started three hours before now and silent since: a stall candidate.
		err = feed.Run("job-b", nil, []checker.FeedEvent{
			{Line: 3, Pos: 3, Stage: ingest, Attempt: 1, Status: checker.StatusStarted, Time: at(9)},
		})
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	res := feed.Result(checker.Source{Path: "events.json", SHA256: strings.Repeat("0", 64), EventCount: 3, LineCount: 3})
	fmt.Println(res.Snapshot.Verdict)
	for r := range res.Snapshot.Runs() {
		fmt.Println(r.RunID, r.State)
	}
	// Output:
	// unhealthy
	// job-a succeeded
	// job-b stalled
}
