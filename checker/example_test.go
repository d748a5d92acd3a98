package checker_test

import (
	"bytes"
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

// CheckFiles reads a log made of several files (a rotated log: yesterday's
// file, then today's) as one log: a run that spans the two files is one
// run, and a violation names the file and its line there.
func ExampleCheckFiles() {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	yesterday := `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T23:50:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T23:58:00Z","returncode":0}
`
	today := `{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:01:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-02T00:09:00Z","returncode":0}
`
	// r-2 finishes stage 2 without ever starting it.
	broken := `{"run_id":"r-2","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-02T01:00:00Z","returncode":0}
`
	files := func(today string) []checker.LogFile {
		return []checker.LogFile{
			{Path: "events-2026-01-01.jsonl", R: strings.NewReader(yesterday)},
			{Path: "events-2026-01-02.jsonl", R: strings.NewReader(today)},
		}
	}
	opts := checker.Options{Definition: def, Now: time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC), File: "events"}
	res, err := checker.CheckFiles(files(today+broken), opts, checker.Reading{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range res.Report.Violations {
		fmt.Printf("%s:%d: %s\n", v.File, v.Line, v.Rule)
	}
	// Without r-2's line, the run that spans both files is one healthy run.
	if res, err = checker.CheckFiles(files(today), opts, checker.Reading{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Snapshot.Verdict, res.Snapshot.RunCount, "run")
	for r := range res.Snapshot.Runs() {
		path, line := res.Snapshot.Source.Locate(r.FirstLine)
		fmt.Printf("%s: %s, first event at %s:%d\n", r.RunID, r.State, path, line)
	}
	// Output:
	// events-2026-01-02.jsonl:3: terminal_without_start
	// healthy 1 run
	// r-1: succeeded, first event at events-2026-01-01.jsonl:1
}

// A check with Reading.Checkpoint returns the state of a valid log in
// Result.Checkpoint; the next check of the same log, grown since, resumes
// from it (Reading.Resume) and reads only the new lines, with the verdict
// and snapshot a full check would give. The CLI keeps the checkpoint in
// the file of --state (docs/state.md); a stale or foreign checkpoint is an
// error, never a silent full check.
func Example_resumedCheck() {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	log := `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T01:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T01:05:00Z","returncode":0}
`
	opts := checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), File: "events.jsonl"}
	rd := checker.Reading{Checkpoint: true}
	first, err := checker.CheckFiles([]checker.LogFile{{Path: "events.jsonl", R: strings.NewReader(log)}}, opts, rd)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first check:", first.Snapshot.Verdict, first.Snapshot.RunCount, "run")

	// The log grew by a run that failed; the checkpoint goes through bytes
	// (Checkpoint.WriteTo, ParseCheckpoint) as between two processes.
	log += `{"run_id":"r-2","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:00:00Z"}
{"run_id":"r-2","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T02:05:00Z","returncode":1,"error":"disk full"}
`
	var saved bytes.Buffer
	if _, err := first.Checkpoint.WriteTo(&saved); err != nil {
		fmt.Println(err)
		return
	}
	if rd.Resume, err = checker.ParseCheckpoint(saved.Bytes()); err != nil {
		fmt.Println(err)
		return
	}
	next, err := checker.CheckFiles([]checker.LogFile{{Path: "events.jsonl", R: strings.NewReader(log), At: strings.NewReader(log)}}, opts, rd)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resumed check:", next.Snapshot.Verdict, next.Snapshot.RunCount, "runs")
	for r := range next.Snapshot.Runs() {
		fmt.Println(" ", r.RunID, r.State)
	}
	// Output:
	// first check: healthy 1 run
	// resumed check: unhealthy 2 runs
	//   r-1 succeeded
	//   r-2 failed
}
