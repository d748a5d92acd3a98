package checker_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestRecoveryGolden checks the realistic multi-stage DAG log of
// testdata/recovery (eight runs: clean, resolved unknown and non-idempotent
// failure, retry brake, cancelled, stalled lease, job-log adoption with an
// unknown stage, job-log mismatch, running) with its job log, and compares
// the snapshot, the text and the Markdown output with their goldens byte for
// byte; -update rewrites them.
func TestRecoveryGolden(t *testing.T) {
	log, err := os.ReadFile("../testdata/recovery/orders_daily.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	jobLog, err := os.ReadFile("../testdata/recovery/orders_daily.joblog.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	check := func(every bool) *checker.Snapshot {
		res, err := checker.Check(bytes.NewReader(log), checker.Options{
			Definition: recoveryDefinition(t), Now: corpusNow, File: "testdata/recovery/orders_daily.jsonl",
			JobLog: bytes.NewReader(jobLog), JobLogFile: "testdata/recovery/orders_daily.joblog.jsonl", SchemaEveryEvent: every,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Report.Valid {
			t.Fatalf("unexpected violations: %+v", res.Report.Violations)
		}
		return res.Snapshot
	}
	snap := check(false)
	doc, err := render.JSON(snap)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := render.JSON(check(true))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, slow) {
		t.Error("--schema-every-event gives another snapshot than the fast path")
	}
	// The document of reports built as they are written is the one of the
	// same reports held whole.
	whole, err := heldWhole(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, whole) {
		t.Error("the streamed snapshot document differs from the one of its reports held whole")
	}
	validateDoc(t, doc)
	outputs := map[string][]byte{
		"orders_daily.golden.json": doc,
		"orders_daily.golden.txt":  []byte(render.Text(snap)),
		"orders_daily.golden.md":   []byte(render.MarkdownReport(snap, render.MarkdownOptions{})),
	}
	compareRecoveryGoldens(t, outputs)
}

// compareRecoveryGoldens compares each output with its golden file under
// testdata/recovery, or rewrites the golden with -update.
func compareRecoveryGoldens(t *testing.T, outputs map[string][]byte) {
	t.Helper()
	for name, got := range outputs {
		path := "../testdata/recovery/" + name
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./checker -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, got)
		}
	}
}

// TestRecoveryRunbookGolden checks the logs of the runbook's parts in
// testdata/recovery (docs/recovery.md): a takeover with proof that the
// owner stopped (takeover.jsonl), the owner's heartbeat after a takeover
// (heartbeat_advanced.jsonl, HEARTBEAT_ADVANCED), a brake across three
// nights released by rerun_from (brake_nights.jsonl), a rerun from a node
// that reruns the stages downstream of it (rerun_from.jsonl), and a live lease
// beside an unknown sibling (live_lease.jsonl), the run's close (close.jsonl) and
// a stale claimed request (stale_request.jsonl). Each is checked with
// testdata/recovery/pipeline.yaml at corpusNow, and its snapshot, text and
// job summary (render.JobSummary, what the action writes) are compared with
// the goldens <name>.golden.json, .txt and .md; -update rewrites them.
func TestRecoveryRunbookGolden(t *testing.T) {
	for _, name := range []string{"takeover", "heartbeat_advanced", "brake_nights", "rerun_from", "live_lease", "close", "stale_request"} {
		t.Run(name, func(t *testing.T) {
			log, err := os.ReadFile("../testdata/recovery/" + name + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Check(bytes.NewReader(log), checker.Options{
				Definition: recoveryDefinition(t), Now: corpusNow, File: "testdata/recovery/" + name + ".jsonl",
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Report.Valid {
				t.Fatalf("unexpected violations: %+v", res.Report.Violations)
			}
			doc, err := render.JSON(res.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			validateDoc(t, doc)
			outputs := map[string][]byte{
				name + ".golden.json": doc,
				name + ".golden.txt":  []byte(render.Text(res.Snapshot)),
				name + ".golden.md":   []byte(jobSummary(name, res)),
			}
			compareRecoveryGoldens(t, outputs)
		})
	}
}

// jobSummary is the job summary the action writes for the log
// testdata/recovery/<name>.jsonl checked into res: the snapshot's, or the
// violations' when the log is invalid.
func jobSummary(name string, res *checker.Result) string {
	return render.JobSummary(render.SummaryCheck, []render.LogResult{{
		File: "testdata/recovery/" + name + ".jsonl", Snapshot: res.Snapshot, Report: res.Report,
	}}, 0)
}

// TestRecoveryRefusedGolden checks the logs of testdata/recovery that the
// runbook's rules refuse: takeover_refused.jsonl ends an attempt twice
// without a valid takeover, once with proof but inside the owner's lease
// plus the margin (lease_still_active), once after it without proof that
// the owner stopped (takeover_without_stop_evidence). Each is exit 2: its
// violations report (what check --format json prints), its violations as
// check prints them, and its job summary are compared with the goldens
// <name>.golden.json, .txt and .md; -update rewrites them.
func TestRecoveryRefusedGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []checker.RuleID
	}{
		{"takeover_refused", []checker.RuleID{checker.RuleLeaseStillActive, checker.RuleTakeoverWithoutStopEvidence}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, err := os.ReadFile("../testdata/recovery/" + tc.name + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Check(bytes.NewReader(log), checker.Options{
				Definition: recoveryDefinition(t), Now: corpusNow, File: "testdata/recovery/" + tc.name + ".jsonl",
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Report.Valid || res.Snapshot != nil {
				t.Fatal("the log was accepted")
			}
			var got []checker.RuleID
			for _, v := range res.Report.Violations {
				got = append(got, v.Rule)
			}
			if !slices.Equal(got, tc.rules) {
				t.Errorf("violations of %v, want %v", got, tc.rules)
			}
			doc, err := render.Document(res)
			if err != nil {
				t.Fatal(err)
			}
			compareRecoveryGoldens(t, map[string][]byte{
				tc.name + ".golden.json": doc,
				tc.name + ".golden.txt":  []byte(render.ViolationsText(res.Report)),
				tc.name + ".golden.md":   []byte(jobSummary(tc.name, res)),
			})
		})
	}
}
