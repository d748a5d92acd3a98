package render_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

// rollupFixture rolls up the snapshots of the sample, the recovery log and
// the hostile log with one unreadable snapshot, judged at the sample's time
// with a max age of a year, expecting the pipelines of those snapshots and
// billing, which none is of.
func rollupFixture(t *testing.T) (*render.Rollup, []render.Log) {
	t.Helper()
	var inputs []render.RollupInput
	for _, i := range []int{0, 1, 3} {
		l := checkFormatLog(t, formatLogs[i])
		inputs = append(inputs, render.RollupInput{File: "snapshots/" + formatLogs[i].name + ".json", Snapshot: l.Result.Snapshot})
	}
	inputs = append(inputs, render.RollupInput{File: "snapshots/lost.json", Problem: "cannot read the snapshot: open snapshots/lost.json: no such file or directory"})
	now := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	expect := render.RollupExpect{Pipelines: []string{"campaign_metrics", "orders_daily", "corpus", "lost", "billing"}}
	return render.BuildRollup(inputs, now, 366*24*time.Hour, expect)
}

// TestRollupGolden renders the roll-up in every format, compares each with
// its golden and validates the JSON against rollup.schema.json, the JUnit
// XML against the JUnit schema, the SARIF against SARIF 2.1.0 and the
// OpenMetrics text with promtool.
func TestRollupGolden(t *testing.T) {
	ru, logs := rollupFixture(t)
	if ru.Verdict != "unhealthy" || ru.Counts.Unusable != 2 || ru.Counts.Unhealthy != 3 {
		t.Fatalf("roll-up %s with counts %+v", ru.Verdict, ru.Counts)
	}
	doc, err := render.JSON(ru)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schemas.Compile("rollup")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := schemas.Instance(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the roll-up does not match rollup.schema.json: %v", err)
	}
	outputs := map[string][]byte{
		"rollup.json": doc,
		"rollup.txt":  []byte(render.RollupText(ru)),
		"rollup.md":   []byte(render.RollupMarkdown(ru)),
	}
	var junit, sarif, gitlab, om bytes.Buffer
	if err := render.WriteJUnit(&junit, logs); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteSARIF(&sarif, logs); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteGitLab(&gitlab, logs); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteOpenMetrics(&om, logs, render.OpenMetricsOptions{}); err != nil {
		t.Fatal(err)
	}
	outputs["rollup.junit.xml"], outputs["rollup.sarif.json"], outputs["rollup.gitlab.json"], outputs["rollup.om.txt"] = junit.Bytes(), sarif.Bytes(), gitlab.Bytes(), om.Bytes()
	for name, out := range outputs {
		golden(t, name, out)
		if name == "rollup.txt" {
			// A terminal is a sink for control characters, not markup.
			if bytes.ContainsAny(out, "\x1b\x01\u202e") {
				t.Errorf("rollup.txt holds a raw control character:\n%s", out)
			}
			continue
		}
		assertInert(t, name, out)
	}
	inst, err = schemas.Instance(sarif.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSARIFSchema(t).Validate(inst); err != nil {
		t.Errorf("the roll-up's SARIF does not match SARIF 2.1.0: %v", err)
	}
	if xmllint := requireTool(t, "xmllint", "libxml2-utils"); xmllint != "" {
		out, err := exec.Command(xmllint, "--noout", "--schema", sharedFile(t, "schemas/JUnit.xsd"), writeTemp(t, "rollup.xml", junit.Bytes())).CombinedOutput()
		if err != nil {
			t.Errorf("xmllint rejects the roll-up's JUnit XML: %v\n%s", err, out)
		}
	}
	if promtool := requireTool(t, "promtool", "prometheus"); promtool != "" {
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(om.Bytes())
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("promtool check metrics on the roll-up: %v\n%s", err, out)
		}
	}
}

// TestSnapshotConsistency: a snapshot edited to claim more health than its
// runs prove is refused, each with a message that says what disagrees.
func TestSnapshotConsistency(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(l *render.Log)
		want string
	}{
		{"healthy verdict over failed runs", func(l *render.Log) { l.Result.Snapshot.Verdict = "healthy" }, "verdict healthy, but 2 of 6 runs did not succeed"},
		{"a run count that is not the runs'", func(l *render.Log) { l.Result.Snapshot.RunCount = 5 }, "run_count is 5 but the snapshot lists 6 runs"},
		{"state counts that are not the runs'", func(l *render.Log) {
			l.Result.Snapshot.StateCounts.Failed, l.Result.Snapshot.StateCounts.Succeeded = 0, 5
		}, "state_counts.failed is 0 but 1 run is failed"},
		{"a latest run that is not there", func(l *render.Log) { id := "cm-forged"; l.Result.Snapshot.LatestRunID = &id }, "latest_run_id does not name one of the snapshot's runs"},
		{"healthy with gate latest over a stalled latest run", func(l *render.Log) {
			l.Result.Snapshot.Verdict, l.Result.Snapshot.Options.Gate = "healthy", "latest"
		}, "verdict healthy with gate latest, but run cm-2026-11-28 of the latest slot is stalled"},
		{"healthy with gate latest over an earlier run named latest", func(l *render.Log) {
			id := "cm-2026-11-26"
			l.Result.Snapshot.Verdict, l.Result.Snapshot.Options.Gate, l.Result.Snapshot.LatestRunID = "healthy", "latest", &id
		}, "latest_run_id is cm-2026-11-26, but the run whose logical time is latest is cm-2026-11-28"},
		// Requests (docs/recovery.md, Claimed requests): the counts are
		// the listed requests', and a stale one keeps the verdict unhealthy.
		{"a stale request under a healthy verdict", func(l *render.Log) {
			staleRequest(l.Result.Snapshot)
			l.Result.Snapshot.Verdict = "healthy"
		}, "verdict healthy with 1 stale or unclaimed request"},
		{"request counts that are not the requests'", func(l *render.Log) {
			staleRequest(l.Result.Snapshot)
			l.Result.Snapshot.Requests.Counts.Stale = 0
		}, "requests.counts are {Requested:0 Claimed:0 Stale:0 Unclaimed:0 Done:0 Reconciled:0} but the listed requests are {Requested:0 Claimed:0 Stale:1 Unclaimed:0 Done:0 Reconciled:0}"},
		{"a request listed twice", func(l *render.Log) {
			rq := staleRequest(l.Result.Snapshot)
			rq.Requests = append(rq.Requests, rq.Requests[0])
			rq.Counts.Stale++
		}, "request_id rq-1 is listed twice: a snapshot lists each request once"},
		{"a stale request, consistent", func(l *render.Log) { staleRequest(l.Result.Snapshot) }, ""},
		{"a done request that names no run", func(l *render.Log) {
			rq := staleRequest(l.Result.Snapshot)
			rq.Requests[0].State, rq.Requests[0].Steps, rq.Counts = checker.RequestDone, nil, checker.RequestCounts{Done: 1}
		}, "request rq-1 is done but names no run: a request is done once the run it started is known"},
		// The run's close (docs/recovery.md, The run's close): a run whose
		// close did not finish is incomplete, never succeeded.
		{"a succeeded run whose close did not finish", func(l *render.Log) {
			closeRun(l.Result.Snapshot, "cm-2026-11-26", checker.CloseLockConflict, checker.CloseLockConflict)
		}, "run cm-2026-11-26 is succeeded, but its close is LOCK_CONFLICT: a run whose close did not finish is incomplete"},
		{"a succeeded run whose lock is still held", func(l *render.Log) {
			closeRun(l.Result.Snapshot, "cm-2026-11-26", checker.CloseArchived, checker.CloseLockUnreleased)
		}, "run cm-2026-11-26 is succeeded, but its close left the lock held (RUN_ARCHIVED_LOCK_UNRELEASED): a run whose close did not finish is incomplete"},
		{"a succeeded run closed RUN_ARCHIVED, consistent", func(l *render.Log) {
			closeRun(l.Result.Snapshot, "cm-2026-11-26", checker.CloseArchived, "")
		}, ""},
		// A check with --window lists only the runs in its window and
		// counts the folded ones in its window section (docs/window.md).
		{"a window's folded runs, counted but not listed", func(l *render.Log) { foldOne(l.Result.Snapshot) }, ""},
		// A window folds only runs that succeeded: a folded unhealthy run
		// would have no name.
		{"a folded run that did not succeed", func(l *render.Log) {
			s := l.Result.Snapshot
			foldOne(s)
			s.StateCounts.Succeeded--
			s.StateCounts.Failed++
			s.Window.FoldedStateCounts, s.Window.LastFoldedSuccess = checker.FoldedStateCounts{Failed: 1}, nil
		}, "window.folded_state_counts counts 1 run that did not succeed, but a window folds only runs that succeeded"},
		{"healthy verdict over listed unhealthy runs and a folded success", func(l *render.Log) {
			foldOne(l.Result.Snapshot)
			l.Result.Snapshot.Verdict = "healthy"
		}, "verdict healthy, but 2 of 7 runs did not succeed"},
		{"a run count that is not the listed and folded runs'", func(l *render.Log) {
			foldOne(l.Result.Snapshot)
			l.Result.Snapshot.RunCount = 6
		}, "run_count is 6 but the snapshot lists 6 runs and folds 1"},
		// With gate latest and no schedule, a folded latest run succeeded.
		{"healthy with gate latest over a folded latest run", func(l *render.Log) {
			s := l.Result.Snapshot
			foldOne(s)
			id := "cm-folded"
			s.Schedule, s.LatestRunID, s.Verdict, s.Options.Gate = nil, &id, "healthy", "latest"
		}, ""},
		{"a folded success without its time", func(l *render.Log) {
			foldOne(l.Result.Snapshot)
			l.Result.Snapshot.Window.LastFoldedSuccess = nil
		}, "window.last_folded_success_utc is null, but window.folded_state_counts.succeeded is 1"},
		{"a last folded success without a folded success", func(l *render.Log) {
			s := l.Result.Snapshot
			foldOne(s)
			s.RunCount--
			s.StateCounts.Succeeded--
			s.Window.FoldedRunCount, s.Window.FoldedStateCounts = 0, checker.FoldedStateCounts{}
		}, `window.last_folded_success_utc is "2026-01-01T00:00:00Z", but window.folded_state_counts.succeeded is 0`},
		{"folded state counts that are not the folded run count", func(l *render.Log) {
			foldOne(l.Result.Snapshot)
			l.Result.Snapshot.Window.FoldedRunCount = 2
		}, "window.folded_state_counts add up to 1, not folded_run_count 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := checkFormatLog(t, formatLogs[0])
			var runs bytes.Buffer
			if err := render.WriteSnapshotJSON(&runs, l.Result.Snapshot); err != nil {
				t.Fatal(err)
			}
			s := decodeSnapshot(t, runs.Bytes())
			l.Result.Snapshot = s
			if err := render.CheckSnapshotConsistency(s); err != nil {
				t.Fatalf("the unedited snapshot: %v", err)
			}
			c.edit(&l)
			err := render.CheckSnapshotConsistency(s)
			if c.want == "" {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v, want %s", err, c.want)
			}
		})
	}
}

// TestSnapshotRepeatedRunID: a snapshot that lists one run id twice is
// refused, also when its counts agree with its runs: here the stalled
// latest run is renamed after an earlier successful run.
func TestSnapshotRepeatedRunID(t *testing.T) {
	l := checkFormatLog(t, formatLogs[0])
	var doc bytes.Buffer
	if err := render.WriteSnapshotJSON(&doc, l.Result.Snapshot); err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(doc.Bytes(), []byte(`{"run_id":"cm-2026-11-28"`), []byte(`{"run_id":"cm-2026-11-26"`), 1)
	if bytes.Equal(edited, doc.Bytes()) {
		t.Fatal("the sample's latest run is not cm-2026-11-28")
	}
	s := decodeSnapshot(t, edited)
	err := render.CheckSnapshotConsistency(s)
	if want := "run_id cm-2026-11-26 is listed twice, as runs 4 and 6: a snapshot lists each run once"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// foldOne makes s the snapshot of a check with a window that folded one
// more run, one that succeeded (the only kind a window folds) at
// 2026-01-01T00:00:00Z: counted in run_count and state_counts, not listed.
func foldOne(s *checker.Snapshot) {
	secs := int64(86400)
	at := "2026-01-01T00:00:00Z"
	s.Window = &checker.WindowReport{Window: "1d", DurationSeconds: &secs, FoldedRunCount: 1, FoldedStateCounts: checker.FoldedStateCounts{Succeeded: 1}, LastFoldedSuccess: &at}
	s.RunCount++
	s.StateCounts.Succeeded++
}

func decodeSnapshot(t *testing.T, doc []byte) *checker.Snapshot {
	t.Helper()
	var s checker.Snapshot
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// staleRequest gives s a requests section of one stale request, and
// returns it.
func staleRequest(s *checker.Snapshot) *checker.RequestsReport {
	s.Requests = &checker.RequestsReport{Counts: checker.RequestCounts{Stale: 1},
		Requests: []checker.RequestReport{{RequestID: "rq-1", State: checker.RequestStale, Line: 1, Steps: []string{"reconcile"}}}}
	return s.Requests
}

// closeRun gives run id of s a close with the result code code and, unless
// lock is "", the lock problem lock still outstanding.
func closeRun(s *checker.Snapshot, id, code, lock string) {
	for r := range s.Runs() {
		if r.RunID == id {
			r.Close = &checker.CloseReport{ResultCode: code, Line: 1, At: "2026-01-01T00:00:00Z"}
			if lock != "" {
				r.Close.LockProblemCode = &lock
			}
		}
	}
}
