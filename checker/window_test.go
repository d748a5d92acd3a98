package checker_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestParseWindow: the syntax of --window, its normal form and its
// refusals, word for word.
func TestParseWindow(t *testing.T) {
	const syntax = "a duration such as 7d, 36h or 90m (units d, h, m, s), or a run count such as 5000runs"
	for _, c := range []struct {
		in   string
		want checker.Window
		text string // String(), when not in
		err  string
	}{
		{in: "7d", want: checker.Window{Duration: 7 * 24 * time.Hour}},
		{in: "36h", want: checker.Window{Duration: 36 * time.Hour}},
		{in: "48h", want: checker.Window{Duration: 48 * time.Hour}, text: "2d"},
		{in: "90m", want: checker.Window{Duration: 90 * time.Minute}},
		{in: "45s", want: checker.Window{Duration: 45 * time.Second}},
		{in: "5000runs", want: checker.Window{Runs: 5000}},
		{in: "0d", err: `"0d" is not a window: it must be positive (` + syntax + ")"},
		{in: "0runs", err: `"0runs" is not a window: it must be positive (` + syntax + ")"},
		{in: "-1d", err: `"-1d" is not a window: it must be positive (` + syntax + ")"},
		{in: "+7d", err: `"+7d" is not a window: give ` + syntax},
		{in: "", err: `"" is not a window: give ` + syntax},
		{in: "7", err: `"7" is not a window: give ` + syntax},
		{in: "d", err: `"d" is not a window: give ` + syntax},
		{in: "7x", err: `"7x" is not a window: give ` + syntax},
		{in: "1.5d", err: `"1.5d" is not a window: give ` + syntax},
		{in: "7 d", err: `"7 d" is not a window: give ` + syntax},
		{in: "1h30m", err: `"1h30m" is not a window: give ` + syntax},
		{in: "7run", err: `"7run" is not a window: give ` + syntax},
		{in: "36501d", err: `"36501d" is not a window: a duration is at most 36500d`},
		{in: "2000000000runs", err: `"2000000000runs" is not a window: a run count is at most 1073741824`},
		{in: "99999999999999999999d", err: `"99999999999999999999d" is not a window: give ` + syntax},
	} {
		got, err := checker.ParseWindow(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseWindow(%q) error %v, want %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseWindow(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		text := c.text
		if text == "" {
			text = c.in
		}
		if got := checker.WindowText(got); got != text {
			t.Errorf("ParseWindow(%q) written back = %q, want %q", c.in, got, text)
		}
	}
}

// genLog writes a log of n runs of a linear pipeline of stages stages,
// started every gap apart from 2026-01-01, as ../shared/tools/genlog.py
// does: retries after failures, a failed stage ending its run; the last
// tail runs are left in progress. With sched, every run names its slot
// (scheduled_for) except every 7th, which claims by its window.
func genLog(seed uint64, n, stages, tail int, gap time.Duration, sched bool) []byte {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := 1; r <= n; r++ {
		slot := t0.Add(time.Duration(r) * gap)
		t := slot
		extra := ""
		if sched && r%7 != 0 {
			extra = fmt.Sprintf(`,"scheduled_for":"%s"`, slot.Format(time.RFC3339))
		}
		ev := func(st, at int, status, more string) {
			fmt.Fprintf(&b, `{"run_id":"run-%06d","stage":%d,"attempt":%d,"status":"%s","timestamp_utc":"%s"%s%s}`+"\n",
				r, st, at, status, t.Format(time.RFC3339Nano), more, extra)
		}
	stage:
		for st := 1; st <= stages; st++ {
			for at := 1; at <= 3; at++ {
				t = t.Add(time.Duration(1+rnd.IntN(5)) * time.Second)
				ev(st, at, "started", "")
				if r > n-tail {
					break stage // in progress
				}
				t = t.Add(time.Duration(5+rnd.IntN(55)) * time.Second)
				if rnd.Float64() < 0.8 {
					ev(st, at, "succeeded", `,"returncode":0`)
					continue stage
				}
				ev(st, at, "failed", `,"returncode":1,"error":"exit 1"`)
			}
			break
		}
	}
	return b.Bytes()
}

// checkJSON checks log and returns the result and its snapshot document,
// validated against its schema when the check has a window and the
// snapshot lists at most 200 runs (the schema validator takes about a
// millisecond a run).
func checkJSON(t *testing.T, log []byte, opts checker.Options) (*checker.Result, map[string]json.RawMessage, []json.RawMessage) {
	t.Helper()
	res, err := checker.Check(bytes.NewReader(log), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil {
		t.Fatalf("invalid log:\n%s", violationLines(res.Report.Violations))
	}
	var b bytes.Buffer
	if err := render.WriteSnapshotJSON(&b, res.Snapshot); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var runs []json.RawMessage
	if err := json.Unmarshal(doc["runs"], &runs); err != nil {
		t.Fatal(err)
	}
	if opts.Window != (checker.Window{}) && len(runs) <= 200 {
		validateDoc(t, b.Bytes())
	}
	return res, doc, runs
}

// TestWindowMatchesFullCheck: on logs where no event touches a run the
// window folded, a check with a window gives the full check's verdict,
// run_count, state_counts, latest run and schedule, and lists exactly the
// full check's reports of the runs it keeps; the others are counted as
// folded. The logs are large enough for the store to be swept several
// times (a sweep starts at 16384 runs).
func TestWindowMatchesFullCheck(t *testing.T) {
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	linear := definitionFile(t, "testdata/window/linear.yaml")
	scheduled := definitionFile(t, "testdata/window/scheduled.yaml")
	// logEnd is an hour after the last slot of a log of 20000 runs a
	// minute apart: its latest 1000 slots are judged, most of them filled
	// by runs a window of 12h folds.
	logEnd := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(20060 * time.Minute)
	for _, c := range []struct {
		name   string
		log    []byte
		def    *checker.Definition
		gate   checker.Gate
		window string
		now    time.Time // zero: now
	}{
		{"a day of 90 s runs", genLog(1, 40000, 3, 3, 90*time.Second, false), linear, checker.GateAll, "1d", time.Time{}},
		{"gate latest", genLog(2, 20000, 3, 0, 90*time.Second, false), linear, checker.GateLatest, "36h", time.Time{}},
		{"a run count", genLog(3, 20000, 3, 5, 90*time.Second, false), linear, checker.GateAll, "2000runs", time.Time{}},
		{"a window wider than the log", genLog(4, 2000, 3, 2, 90*time.Second, false), linear, checker.GateAll, "3650d", time.Time{}},
		{"a schedule every minute", genLog(5, 20000, 2, 1, time.Minute, true), scheduled, checker.GateAll, "12h", logEnd},
		{"a schedule, gate latest", genLog(6, 20000, 2, 0, time.Minute, true), scheduled, checker.GateLatest, "100runs", logEnd},
	} {
		t.Run(c.name, func(t *testing.T) {
			win, err := checker.ParseWindow(c.window)
			if err != nil {
				t.Fatal(err)
			}
			opts := checker.Options{Definition: c.def, Now: now, Gate: c.gate, File: "log.jsonl"}
			if !c.now.IsZero() {
				opts.Now = c.now
			}
			_, full, fullRuns := checkJSON(t, c.log, opts)
			opts.Window = win
			res, got, gotRuns := checkJSON(t, c.log, opts)
			for _, k := range []string{"verdict", "latest_run_id", "run_count", "state_counts", "schedule", "warnings"} {
				if !bytes.Equal(full[k], got[k]) {
					t.Errorf("%s: with --window %s\n%s\nwithout\n%s", k, c.window, got[k], full[k])
				}
			}
			byID := map[string]string{}
			for _, r := range fullRuns {
				var id struct {
					RunID string `json:"run_id"`
				}
				json.Unmarshal(r, &id)
				byID[id.RunID] = string(r)
			}
			for _, r := range gotRuns {
				var id struct {
					RunID string `json:"run_id"`
				}
				json.Unmarshal(r, &id)
				if byID[id.RunID] != string(r) {
					t.Fatalf("run %s with the window\n%s\nwithout\n%s", id.RunID, r, byID[id.RunID])
				}
			}
			w := res.Snapshot.Window
			if w == nil || w.Window != c.window {
				t.Fatalf("window section %+v", w)
			}
			if w.FoldedRunCount+len(gotRuns) != len(fullRuns) {
				t.Errorf("%d folded + %d listed != %d runs", w.FoldedRunCount, len(gotRuns), len(fullRuns))
			}
			fc := w.FoldedStateCounts
			if fc.Succeeded+fc.Failed+fc.Cancelled+fc.Incomplete != w.FoldedRunCount {
				t.Errorf("folded state counts %+v do not add up to %d", fc, w.FoldedRunCount)
			}
			if c.name != "a window wider than the log" && w.FoldedRunCount < len(fullRuns)/2 {
				t.Errorf("only %d of %d runs folded", w.FoldedRunCount, len(fullRuns))
			}
		})
	}
}

// lateBase is the log the late events of TestWindowLateEvents follow, at
// now 2026-01-10: r-1 (stage 1 failed, then succeeded; stages 2 and 3
// succeeded), r-2 (stage 1 succeeded, stage 2 never started) and r-4
// (stage 1 failed) end on 2026-01-01, more than a day before r-3, the
// newest run. A window of 1d folds r-1, which succeeded; it never folds
// r-2 (incomplete) or r-4 (failed), which stay listed in full. r-3 is in
// the window.
const lateBase = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"x"}
{"run_id":"r-1","stage":1,"attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":1,"attempt":2,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:04:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:05:00Z"}
{"run_id":"r-1","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:06:00Z"}
{"run_id":"r-1","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:07:00Z"}
{"run_id":"r-2","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}
{"run_id":"r-2","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:01:00Z"}
{"run_id":"r-4","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T12:00:00Z"}
{"run_id":"r-4","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T12:01:00Z","error":"x"}
{"run_id":"r-3","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-05T10:00:00Z"}
{"run_id":"r-3","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-05T10:01:00Z"}
`

// padding is n runs of one succeeded stage 1 each, on 2026-01-05 before
// r-3's last event: enough of them make the check sweep the store, so
// that the late event meets a folded record, not a run still in it.
func padding(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"run_id":"p-%d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-05T10:00:00Z"}`+"\n", i)
		fmt.Fprintf(&b, `{"run_id":"p-%d","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-05T10:00:30Z"}`+"\n", i)
	}
	return b.String()
}

// TestWindowLateEvents: an event for a run the window folded (1d, at
// now 2026-01-10) is judged from its compact record, whether the store was
// swept before it or not. Where the record can tell, it breaks the rule a
// full check names, on the same line (same: with the same message);
// where it cannot (a resolution), it is folded_run_event, even when a
// full check accepts the event: never a silent green. Events for the
// unhealthy runs the window keeps are judged as in a full check.
func TestWindowLateEvents(t *testing.T) {
	def := definitionFile(t, "testdata/window/linear.yaml")
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	const at = `"timestamp_utc":"2026-01-06T00:00:00Z"`
	for _, c := range []struct {
		name, event string
		want        string // rule: message
		full        checker.RuleID
		same        bool
	}{
		{"a step back in time", `{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:04:30Z"}`,
			"out_of_order: timestamp 2026-01-01T10:04:30Z is earlier than the previous event of run r-1 (2026-01-01T10:07:00Z)", checker.RuleOutOfOrder, true},
		{"from the future", `{"run_id":"r-1","stage":2,"attempt":2,"status":"started","timestamp_utc":"2099-01-01T00:00:00Z"}`,
			"timestamp_in_future: timestamp 2099-01-01T00:00:00Z is more than 300 s after now (2026-01-10T00:00:00Z)", checker.RuleTimestampInFuture, true},
		{"a second start", `{"run_id":"r-1","stage":2,"attempt":1,"status":"started",` + at + `}`,
			"duplicate_start: attempt 1 of stage 2 in run r-1 started a second time (first start before the window: run r-1 was folded out of the window (last event 2026-01-01T10:07:00Z)); a retry is a new attempt number", checker.RuleDuplicateStart, false},
		{"a skipped attempt", `{"run_id":"r-1","stage":2,"attempt":3,"status":"started",` + at + `}`,
			"skipped_attempt: attempt 3 of stage 2 in run r-1 started, but attempt 2 never started", checker.RuleSkippedAttempt, true},
		{"a retry of a success", `{"run_id":"r-1","stage":2,"attempt":2,"status":"started",` + at + `}`,
			"retry_without_failure: attempt 2 of stage 2 in run r-1 started, but attempt 1 succeeded; a retry follows a failed attempt", checker.RuleRetryWithoutFailure, true},
		{"an outcome without a start", `{"run_id":"r-1","stage":2,"attempt":2,"status":"succeeded",` + at + `}`,
			"terminal_without_start: attempt 2 of stage 2 in run r-1 succeeded, but it never started", checker.RuleTerminalWithoutStart, true},
		{"a duplicate outcome", `{"run_id":"r-1","stage":1,"attempt":1,"status":"failed",` + at + `,"error":"x"}`,
			"duplicate_terminal: attempt 1 of stage 1 in run r-1 failed, but it already ended before the window (run r-1 was folded out of the window (last event 2026-01-01T10:07:00Z))", checker.RuleDuplicateTerminal, false},
		{"a duplicate of the last event", `{"run_id":"r-1","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:07:00Z"}`,
			"duplicate_terminal: attempt 1 of stage 3 in run r-1 succeeded, but it already ended before the window (run r-1 was folded out of the window (last event 2026-01-01T10:07:00Z))", checker.RuleDuplicateTerminal, false},
		{"a heartbeat after the end", `{"run_id":"r-1","stage":2,"attempt":1,"status":"heartbeat",` + at + `}`,
			"heartbeat_after_terminal: attempt 1 of stage 2 in run r-1 sent a heartbeat, but it already ended before the window (run r-1 was folded out of the window (last event 2026-01-01T10:07:00Z))", checker.RuleHeartbeatAfterTerminal, false},
		{"a heartbeat without a start", `{"run_id":"r-1","stage":2,"attempt":2,"status":"heartbeat",` + at + `}`,
			"heartbeat_without_start: attempt 2 of stage 2 in run r-1 sent a heartbeat, but it never started", checker.RuleHeartbeatWithoutStart, true},
		{"a resolution", `{"run_id":"r-1","stage":1,"attempt":1,"status":"resolved",` + at + `,"resolution":"failed","reason":"checked","resolved_by":"ana","evidence_ref":"INC-7"}`,
			"folded_run_event: attempt 1 of stage 1 in run r-1 resolved, but run r-1 was folded out of the window (last event 2026-01-01T10:07:00Z) and its compact record cannot judge a resolution; check without --window, or with a wider one", checker.RuleResolutionOfIdempotentFailure, false},
		// An unhealthy run is never folded: events for r-4 (failed) and r-2
		// (incomplete) are judged as a full check judges them.
		{"a retry of a failed run", `{"run_id":"r-4","stage":1,"attempt":2,"status":"started",` + at + `}`, "", "", true},
		{"a first start of a pending stage", `{"run_id":"r-2","stage":2,"attempt":1,"status":"started",` + at + `}`, "", "", true},
		{"a resolution in a failed run", `{"run_id":"r-4","stage":1,"attempt":1,"status":"resolved",` + at + `,"resolution":"failed","reason":"checked","resolved_by":"ana","evidence_ref":"INC-7"}`,
			"resolution_of_idempotent_failure: attempt 1 of stage 1 in run r-4 was resolved, but stage 1 is idempotent: a failed attempt is simply retried", checker.RuleResolutionOfIdempotentFailure, true},
	} {
		for _, pad := range []int{0, 17000} {
			t.Run(fmt.Sprintf("%s/padding %d", c.name, pad), func(t *testing.T) {
				log := lateBase + padding(pad) + c.event + "\n"
				line := strings.Count(log, "\n")
				opts := checker.Options{Definition: def, Now: now, File: "log.jsonl"}
				res, err := checker.Check(strings.NewReader(log), opts)
				if err != nil {
					t.Fatal(err)
				}
				full := res.Report.Violations
				switch {
				case c.full == "" && len(full) != 0:
					t.Fatalf("a full check breaks\n%s", violationLines(full))
				case c.full != "" && (len(full) != 1 || full[0].Rule != c.full || full[0].Line != line):
					t.Fatalf("a full check breaks\n%s\nwant %s on line %d", violationLines(full), c.full, line)
				}
				opts.Window = checker.Window{Duration: 24 * time.Hour}
				res, err = checker.Check(strings.NewReader(log), opts)
				if err != nil {
					t.Fatal(err)
				}
				want := ""
				if c.want != "" {
					want = fmt.Sprintf("%d %s\n", line, c.want)
				}
				if got := violationLines(res.Report.Violations); got != want {
					t.Fatalf("with --window 1d\n%s\nwant\n%s", got, want)
				}
				if c.same && c.want != "" && full[0].Message != res.Report.Violations[0].Message {
					t.Errorf("the message differs from a full check's: %s", full[0].Message)
				}
			})
		}
	}
}

// TestWindowNeverFoldsOpenRuns: a run in progress, a stall candidate, one
// with an unknown outcome, and one that ended unhealthy (incomplete: stage
// 3 never started) stay listed however old they are; one that succeeded
// is folded.
func TestWindowNeverFoldsOpenRuns(t *testing.T) {
	def := definitionFile(t, "testdata/window/linear.yaml")
	log := `{"run_id":"stalled","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"unknown","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"unknown","stage":1,"attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"the worker vanished"}
{"run_id":"done","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"done","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"done","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"done","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}
{"run_id":"ok","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}
{"run_id":"ok","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:01:00Z"}
{"run_id":"ok","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:02:00Z"}
{"run_id":"ok","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:03:00Z"}
{"run_id":"ok","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:04:00Z"}
{"run_id":"ok","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:05:00Z"}
{"run_id":"closing","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}
{"run_id":"closing","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:01:00Z"}
{"run_id":"closing","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:02:00Z"}
{"run_id":"closing","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:03:00Z"}
{"run_id":"closing","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:04:00Z"}
{"run_id":"closing","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:05:00Z"}
{"run_id":"closing","status":"closed","timestamp_utc":"2026-01-01T11:06:00Z","result_code":"LOCK_CONFLICT"}
{"run_id":"archived","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}
{"run_id":"archived","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:01:00Z"}
{"run_id":"archived","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:02:00Z"}
{"run_id":"archived","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:03:00Z"}
{"run_id":"archived","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:04:00Z"}
{"run_id":"archived","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T11:05:00Z"}
{"run_id":"archived","status":"closed","timestamp_utc":"2026-01-01T11:06:00Z","result_code":"RUN_ARCHIVED"}
{"run_id":"new","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-09T10:00:00Z"}
{"run_id":"new","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-09T10:01:00Z"}
`
	// A run whose stages succeeded but whose close is not RUN_ARCHIVED
	// (closing) is unhealthy and never folds; one closed RUN_ARCHIVED
	// (archived) folds like any success.
	opts := checker.Options{Definition: def, Now: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), File: "log.jsonl", Window: checker.Window{Duration: time.Hour}}
	res, _, _ := checkJSON(t, []byte(log), opts)
	var ids []string
	for _, h := range heads(res.Snapshot) {
		ids = append(ids, h.RunID)
	}
	if got := strings.Join(ids, " "); got != "stalled unknown done closing new" {
		t.Errorf("listed runs %s, want stalled unknown done closing new", got)
	}
	w := res.Snapshot.Window
	if w.FoldedRunCount != 2 || w.FoldedStateCounts.Succeeded != 2 || *w.Cutoff != "2026-01-09T09:01:00Z" {
		t.Errorf("window %+v", *w)
	}
	if res.Snapshot.RunCount != 7 || res.Snapshot.StateCounts.Incomplete != 3 ||
		res.Snapshot.StateCounts.Stalled != 1 || res.Snapshot.StateCounts.Unknown != 1 {
		t.Errorf("run_count %d, state_counts %+v", res.Snapshot.RunCount, res.Snapshot.StateCounts)
	}
}

// TestWindowRefusals: a window cannot serve a job log or a Feed
// (OpenLineage); a checkpoint keeps it (TestCheckpointSplitWindow).
func TestWindowRefusals(t *testing.T) {
	def := definitionFile(t, "testdata/window/linear.yaml")
	base := checker.Options{Definition: def, Now: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), Window: checker.Window{Runs: 10}}
	for _, c := range []struct {
		name string
		edit func(*checker.Options)
		want string
	}{
		{"job log", func(o *checker.Options) { o.JobLog = strings.NewReader("") }, "checker: Options.Window cannot be combined with Options.JobLog: the reconciliation compares every attempt"},
		{"both sizes", func(o *checker.Options) { o.Window.Duration = time.Hour }, "checker: a Window is a duration or a run count, not both"},
		{"a fraction of a second", func(o *checker.Options) { o.Window = checker.Window{Duration: 1500 * time.Millisecond} }, "checker: Window 1.5s is not whole seconds up to 36500 days or a run count up to 1073741824"},
	} {
		opts := base
		c.edit(&opts)
		_, err := checker.Check(strings.NewReader(""), opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.name, err, c.want)
		}
	}
	if _, err := checker.NewFeed(base); err == nil || err.Error() != "checker: Options.Window reads native event logs only, not OpenLineage run events (Feed)" {
		t.Errorf("NewFeed: error %v", err)
	}
}

// BenchmarkCheckWindow is BenchmarkCheck with a window of an hour (the
// log's 22,000 runs span about eight days, so nearly all are folded), or
// of GREENLIGHT_BENCH_WINDOW: the cost of folding beside the check's.
func BenchmarkCheckWindow(b *testing.B) {
	log := benchLog(22000)
	win, err := checker.ParseWindow(cmp.Or(os.Getenv("GREENLIGHT_BENCH_WINDOW"), "1h"))
	if err != nil {
		b.Fatal(err)
	}
	opts := checker.Options{Definition: benchDefinition(b), Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Window: win}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := checker.Check(bytes.NewReader(log), opts)
		if err != nil || !res.Report.Valid {
			b.Fatal(err, res.Report.Violations)
		}
	}
}

// FuzzWindow: a check with a window is never greener than a full check.
// A log a full check rejects, a windowed one rejects too; a log a full
// check accepts, a windowed one accepts with the same verdict, run_count,
// state_counts and latest run, or rejects first with folded_run_event (an
// event its compact record cannot judge). Interesting inputs are kept under testdata/fuzz/FuzzWindow.
func FuzzWindow(f *testing.F) {
	f.Add([]byte(lateBase), uint16(24*60))
	f.Add([]byte(lateBase+`{"run_id":"r-4","stage":1,"attempt":2,"status":"started","timestamp_utc":"2026-01-06T00:00:00Z"}`+"\n"), uint16(60))
	f.Add([]byte(lateBase+`{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:05:00Z"}`+"\n"), uint16(1))
	f.Add(genLog(7, 40, 2, 2, 90*time.Second, false), uint16(5))
	f.Add([]byte(lateBase+`{"run_id":"r-2","status":"closed","timestamp_utc":"2026-01-06T00:00:00Z","result_code":"RUN_ARCHIVED"}`+"\n"+`{"run_id":"r-1","status":"closed","timestamp_utc":"2026-01-06T00:01:00Z","result_code":"LOCK_CONFLICT"}`+"\n"), uint16(60))
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, log []byte, size uint16) {
		opts := checker.Options{Definition: def, Now: now, MaxLineBytes: 4096}
		full, err := checker.Check(bytes.NewReader(log), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []checker.Window{{Duration: time.Duration(size) * time.Minute}, {Runs: int(size%64) + 1}} {
			if w == (checker.Window{}) {
				continue
			}
			opts.Window = w
			got, err := checker.Check(bytes.NewReader(log), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !full.Report.Valid {
				if got.Report.Valid {
					t.Fatalf("window %s accepts a log a full check rejects:\n%s", checker.WindowText(w), violationLines(full.Report.Violations))
				}
				continue
			}
			if !got.Report.Valid {
				// Only an event the record cannot judge may reject a valid
				// log; later events of its run then meet the record
				// without it.
				if v := got.Report.Violations[0]; v.Rule != checker.RuleFoldedRunEvent {
					t.Fatalf("window %s rejects a valid log with %s on line %d: %s", checker.WindowText(w), v.Rule, v.Line, v.Message)
				}
				continue
			}
			a, b := full.Snapshot, got.Snapshot
			latest := func(s *checker.Snapshot) string {
				if s.LatestRunID == nil {
					return "(none)"
				}
				return *s.LatestRunID
			}
			if a.Verdict != b.Verdict || a.RunCount != b.RunCount || a.StateCounts != b.StateCounts || latest(a) != latest(b) {
				t.Fatalf("window %s: %s %d %+v %s, full: %s %d %+v %s", checker.WindowText(w), b.Verdict, b.RunCount, b.StateCounts, latest(b), a.Verdict, a.RunCount, a.StateCounts, latest(a))
			}
		}
	})
}

// TestWindowLatestFolded: when the run whose first event is latest was
// folded (it ended early, while an earlier run went on past the window),
// Snapshot.Latest still gives its report, the one a full check gives: with
// and without a schedule, where the report carries its slot.
func TestWindowLatestFolded(t *testing.T) {
	ev := func(run string, stage int, status, at, extra string) string {
		more := ""
		switch status {
		case "succeeded":
			more = `,"returncode":0`
		case "failed":
			more = `,"returncode":1,"error":"exit 1"`
		}
		return fmt.Sprintf(`{"run_id":"%s","stage":%d,"attempt":1,"status":"%s","timestamp_utc":"2026-01-01T%sZ"%s%s}`+"\n", run, stage, status, at, more, extra)
	}
	// r1Last is how r-1's last stage ends: r-1 is listed, r-2 folded.
	log := func(stages int, slots bool, r1Last string) []byte {
		slot := func(s string) string {
			if !slots {
				return ""
			}
			return `,"scheduled_for":"2026-01-01T` + s + `Z"`
		}
		var b strings.Builder
		b.WriteString(ev("r-1", 1, "started", "00:00:00", slot("00:00:00")))
		for st := 1; st <= stages; st++ {
			b.WriteString(ev("r-2", st, "started", fmt.Sprintf("00:01:%02d", 2*st), slot("00:01:00")))
			b.WriteString(ev("r-2", st, "succeeded", fmt.Sprintf("00:01:%02d", 2*st+1), slot("00:01:00")))
		}
		end := func(st int) string {
			if st == stages {
				return r1Last
			}
			return "succeeded"
		}
		b.WriteString(ev("r-1", 1, end(1), "00:50:00", slot("00:00:00")))
		for st := 2; st <= stages; st++ {
			b.WriteString(ev("r-1", st, "started", fmt.Sprintf("00:5%d:00", st), slot("00:00:00")))
			b.WriteString(ev("r-1", st, end(st), fmt.Sprintf("00:5%d:30", st), slot("00:00:00")))
		}
		return []byte(b.String())
	}
	// With r-1 failed, the gates differ without a schedule: all is
	// unhealthy, latest asks about the folded r-2 and is healthy. The
	// schedule has a slot a minute, and the slots after 00:01 are missed
	// (the latest judged slot too), so both gates are unhealthy with it,
	// whichever way r-1 ends, with the window as in full.
	for _, c := range []struct {
		name    string
		def     string
		stages  int
		slots   bool
		r1Last  string
		gate    checker.Gate
		verdict checker.Verdict
	}{
		{"no schedule", "testdata/window/linear.yaml", 3, false, "succeeded", checker.GateAll, checker.VerdictHealthy},
		{"a schedule", "testdata/window/scheduled.yaml", 2, true, "succeeded", checker.GateAll, checker.VerdictUnhealthy},
		{"no schedule, r-1 failed, gate all", "testdata/window/linear.yaml", 3, false, "failed", checker.GateAll, checker.VerdictUnhealthy},
		{"no schedule, r-1 failed, gate latest", "testdata/window/linear.yaml", 3, false, "failed", checker.GateLatest, checker.VerdictHealthy},
		{"a schedule, r-1 failed, gate all", "testdata/window/scheduled.yaml", 2, true, "failed", checker.GateAll, checker.VerdictUnhealthy},
		{"a schedule, gate latest", "testdata/window/scheduled.yaml", 2, true, "succeeded", checker.GateLatest, checker.VerdictUnhealthy},
		{"a schedule, r-1 failed, gate latest", "testdata/window/scheduled.yaml", 2, true, "failed", checker.GateLatest, checker.VerdictUnhealthy},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := checker.Options{Definition: definitionFile(t, c.def), Now: time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC), File: "log.jsonl", Gate: c.gate}
			full, _, _ := checkJSON(t, log(c.stages, c.slots, c.r1Last), opts)
			opts.Window = checker.Window{Duration: 10 * time.Minute}
			win, _, runs := checkJSON(t, log(c.stages, c.slots, c.r1Last), opts)
			if full.Snapshot.Verdict != c.verdict || win.Snapshot.Verdict != c.verdict {
				t.Fatalf("verdicts: full check %s, with the window %s; want %s", full.Snapshot.Verdict, win.Snapshot.Verdict, c.verdict)
			}
			if len(runs) != 1 || win.Snapshot.Window == nil || win.Snapshot.Window.FoldedRunCount != 1 {
				t.Fatalf("the window lists %d runs and folded %+v, want r-2 folded and r-1 listed", len(runs), win.Snapshot.Window)
			}
			want, got := views(full.Snapshot).Latest(), views(win.Snapshot).Latest()
			if want == nil || want.RunID != "r-2" {
				t.Fatalf("the full check's latest run is %+v, want r-2", want)
			}
			if got == nil {
				t.Fatal("Latest() is nil when the window folded the latest run")
			}
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(got)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("Latest() with the window:\n%s\nwant the full check's:\n%s", gotJSON, wantJSON)
			}
			// OpenMetrics names the latest run's state, and the time of the
			// latest success (r-2's, folded, when r-1 failed), as the full
			// check does.
			metric := func(res *checker.Result, name string) string {
				var b bytes.Buffer
				if err := render.WriteOpenMetrics(&b, []render.Log{{Pipeline: "p", Result: res}}, render.OpenMetricsOptions{}); err != nil {
					t.Fatal(err)
				}
				var lines []string
				for _, l := range strings.Split(b.String(), "\n") {
					if strings.HasPrefix(l, name+"{") {
						lines = append(lines, l)
					}
				}
				return strings.Join(lines, "\n")
			}
			if got, want := metric(win, "greenlight_latest_run_state"), metric(full, "greenlight_latest_run_state"); got != want || !strings.Contains(want, `state="succeeded"} 1`) {
				t.Errorf("greenlight_latest_run_state with the window:\n%s\nwant:\n%s", got, want)
			}
			// r-1's last event: 00:53:30 of three stages, 00:52:30 of two;
			// r-2's, folded: 00:01:07, 00:01:05.
			lastSuccess := map[bool]map[int]string{false: {3: "1767228810", 2: "1767228750"}, true: {3: "1767225667", 2: "1767225665"}}[c.r1Last == "failed"][c.stages]
			wantLine := `greenlight_last_success_timestamp_seconds{pipeline="p"} ` + lastSuccess
			if got, full := metric(win, "greenlight_last_success_timestamp_seconds"), metric(full, "greenlight_last_success_timestamp_seconds"); got != wantLine || full != wantLine {
				t.Errorf("greenlight_last_success_timestamp_seconds: with the window %q, in full %q; want %q", got, full, wantLine)
			}
		})
	}
}
