package checker_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// ev writes one event line; extra is appended inside the object verbatim.
func ev(run string, stage any, attempt int, status, ts string, extra ...string) string {
	st := fmt.Sprint(stage)
	if s, ok := stage.(string); ok {
		st = fmt.Sprintf("%q", s)
	}
	line := fmt.Sprintf(`{"run_id":%q,"stage":%s,"attempt":%d,"status":%q,"timestamp_utc":%q`, run, st, attempt, status, ts)
	for _, e := range extra {
		line += "," + e
	}
	return line + "}"
}

func t0(min int) string {
	return time.Date(2026, 1, 1, 10, min, 0, 0, time.UTC).Format(time.RFC3339)
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

type want struct {
	line int
	rule checker.RuleID
}

func runCheck(t *testing.T, log string, mod func(*checker.Options)) *checker.Result {
	t.Helper()
	opts := checker.Options{Definition: corpusDefinition(t), Now: corpusNow, File: "log.jsonl"}
	if mod != nil {
		mod(&opts)
	}
	res, err := checker.Check(strings.NewReader(log), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRules gives every contract rule of DESIGN.md §2 a log that breaks it,
// and asserts the exact rule ids and line numbers reported.
func TestRules(t *testing.T) {
	started := ev("r-1", 1, 1, "started", t0(0))
	cases := []struct {
		name string
		log  string
		mod  func(*checker.Options)
		want []want
	}{
		{"invalid_json/truncated last line", lines(started) + `{"run_id":"r-1","stage":1`, nil, []want{{2, checker.RuleInvalidJSON}}},
		{"invalid_json/not json", lines("hello", started), nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/blank line in the middle", lines(started, "", ev("r-1", 1, 1, "succeeded", t0(1))), nil, []want{{2, checker.RuleInvalidJSON}}},
		{"invalid_json/byte-order mark", "\ufeff" + lines(started), nil, []want{{1, checker.RuleInvalidJSON}}},
		// The mark is one violation; the first line's event still counts,
		// so the attempt's outcome is no terminal_without_start.
		{"invalid_json/byte-order mark, no cascade", "\ufeff" + lines(started, ev("r-1", 1, 1, "succeeded", t0(1))), nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/byte-order mark in the middle", lines(started, "\ufeff"+ev("r-1", 1, 1, "succeeded", t0(1))), nil, []want{{2, checker.RuleInvalidJSON}}},
		{"invalid_json/gzip file", "\x1f\x8b\x08\x00\x00\x00\x00\x00\n\x00\xff\n", nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/zstd file", "\x28\xb5\x2f\xfd\x00\n\n\n", nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/invalid UTF-8", lines(ev("r-1", 1, 1, "started", t0(0), "\"note\":\"\xff\"")), nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/trailing data", lines(started + ` {}`), nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/array", lines(`[` + started + `]`), nil, []want{{1, checker.RuleInvalidJSON}}},
		{"invalid_json/CRLF endings are fine, a lone CR line is not", "\r\n" + started + "\r\n", nil, []want{{1, checker.RuleInvalidJSON}}},
		{"line_too_long/reading goes on", lines(ev("r-1", 1, 1, "started", t0(0), `"pad":"`+strings.Repeat("x", 200)+`"`), "nope"),
			func(o *checker.Options) { o.MaxLineBytes = 150 }, []want{{1, checker.RuleLineTooLong}, {2, checker.RuleInvalidJSON}}},
		{"duplicate_key/top level", lines(`{"run_id":"r-1","run_id":"r-2","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`), nil, []want{{1, checker.RuleDuplicateKey}}},
		{"duplicate_key/nested", lines(ev("r-1", 1, 1, "started", t0(0), `"meta":{"a":1,"a":2}`)), nil, []want{{1, checker.RuleDuplicateKey}}},
		{"schema/missing run_id", lines(`{"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/unknown status", lines(ev("r-1", 1, 1, "done", t0(0))), nil, []want{{1, checker.RuleSchema}}},
		{"schema/timestamp without offset", lines(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/timestamp with a zone name", lines(`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z[Europe/Berlin]"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/attempt as a string", lines(`{"run_id":"r-1","stage":1,"attempt":"1","status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/attempt 1.5", lines(`{"run_id":"r-1","stage":1,"attempt":1.5,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/attempt too large for an integer", lines(`{"run_id":"r-1","stage":1,"attempt":1e400,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`), nil, []want{{1, checker.RuleSchema}}},
		{"schema/stage 0", lines(ev("r-1", 0, 1, "started", t0(0))), nil, []want{{1, checker.RuleSchema}}},
		{"schema/failed without error", lines(started, ev("r-1", 1, 1, "failed", t0(1))), nil, []want{{2, checker.RuleSchema}}},
		{"schema/failed with a blank error", lines(started, ev("r-1", 1, 1, "failed", t0(1), `"error":"  "`)), nil, []want{{2, checker.RuleSchema}}},
		{"schema/a key in another letter case", lines(ev("r-1", 1, 1, "started", t0(0), `"Status":"failed"`)), nil, []want{{1, checker.RuleSchema}}},
		{"unknown_field/only with strict", lines(ev("r-1", 1, 1, "started", t0(0), `"host":"a"`)), func(o *checker.Options) { o.Strict = true }, []want{{1, checker.RuleUnknownField}}},
		{"unknown_stage", lines(ev("r-1", 9, 1, "started", t0(0))), nil, []want{{1, checker.RuleUnknownStage}}},
		{"out_of_order", lines(ev("r-1", 1, 1, "started", t0(5)), ev("r-1", 1, 1, "succeeded", t0(4))), nil, []want{{2, checker.RuleOutOfOrder}}},
		{"timestamp_in_future/beyond 300 s of skew", lines(ev("r-1", 1, 1, "started", "2026-01-01T12:05:01Z")), nil, []want{{1, checker.RuleTimestampInFuture}}},
		{"schema/scheduled_for without offset", lines(ev("r-1", 1, 1, "started", t0(0), `"scheduled_for":"2026-01-01T10:00:00"`)), nil, []want{{1, checker.RuleSchema}}},
		{"conflicting_scheduled_for", lines(ev("r-1", 1, 1, "started", t0(0), `"scheduled_for":"2026-01-01T10:00:00Z"`), ev("r-1", 1, 1, "succeeded", t0(1), `"scheduled_for":null`),
			ev("r-1", 2, 1, "started", t0(2), `"scheduled_for":"2026-01-01T11:00:00+01:00"`), ev("r-1", 2, 1, "succeeded", t0(3), `"scheduled_for":"2026-01-01T11:00:00Z"`)), nil, []want{{4, checker.RuleConflictingScheduledFor}}},
		{"duplicate_start", lines(started, started), nil, []want{{2, checker.RuleDuplicateStart}}},
		{"skipped_attempt", lines(ev("r-1", 1, 2, "started", t0(0))), nil, []want{{1, checker.RuleSkippedAttempt}}},
		{"retry_without_failure/previous running", lines(started, ev("r-1", 1, 2, "started", t0(1))), nil, []want{{2, checker.RuleRetryWithoutFailure}}},
		{"retry_without_failure/previous succeeded", lines(started, ev("r-1", 1, 1, "succeeded", t0(1)), ev("r-1", 1, 2, "started", t0(2))), nil, []want{{3, checker.RuleRetryWithoutFailure}}},
		{"stage_before_dependency/never started", lines(ev("r-1", 2, 1, "started", t0(0))), nil, []want{{1, checker.RuleStageBeforeDependency}}},
		{"stage_before_dependency/still running", lines(started, ev("r-1", 2, 1, "started", t0(1))), nil, []want{{2, checker.RuleStageBeforeDependency}}},
		{"terminal_without_start", lines(ev("r-1", 1, 1, "succeeded", t0(0))), nil, []want{{1, checker.RuleTerminalWithoutStart}}},
		{"duplicate_terminal", lines(started, ev("r-1", 1, 1, "failed", t0(1), `"error":"x"`), ev("r-1", 1, 1, "succeeded", t0(2))), nil, []want{{3, checker.RuleDuplicateTerminal}}},
		{"success_with_nonzero_returncode", lines(started, ev("r-1", 1, 1, "succeeded", t0(1), `"returncode":3`)), nil, []want{{2, checker.RuleSuccessWithNonzeroReturncode}}},
		{"failure_with_zero_returncode", lines(started, ev("r-1", 1, 1, "failed", t0(1), `"returncode":0`, `"error":"x"`)), nil, []want{{2, checker.RuleFailureWithZeroReturncode}}},
		{"all violations are reported, not just the first", lines("x", started, started, "y"), nil, []want{{1, checker.RuleInvalidJSON}, {3, checker.RuleDuplicateStart}, {4, checker.RuleInvalidJSON}}},
	}
	covered := map[checker.RuleID]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCheck(t, tc.log, tc.mod)
			var got []want
			for _, v := range res.Report.Violations {
				got = append(got, want{v.Line, v.Rule})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("violations = %v, want %v\n%v", got, tc.want, res.Report.Violations)
			}
			if res.Snapshot != nil {
				t.Fatal("an invalid log produced a snapshot")
			}
		})
		for _, w := range tc.want {
			covered[w.rule] = true
		}
	}
	// The recovery model's rules have their cases in TestRecoveryRules.
	for _, tc := range recoveryRuleCases() {
		for _, w := range tc.want {
			covered[w.rule] = true
		}
	}
	for _, r := range checker.Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no case in TestRules or TestRecoveryRules", r.ID)
		}
	}
}

// TestMessages pins the wording of messages people act on.
func TestMessages(t *testing.T) {
	cases := []struct {
		log, want string
	}{
		{lines(ev("r-17", 1, 1, "started", t0(0)), ev("r-17", 1, 1, "failed", t0(1), `"error":"x"`), ev("r-17", 1, 3, "started", t0(2))),
			"attempt 3 of stage 1 in run r-17 started, but attempt 2 never started"},
		{lines(ev("r-17", 2, 1, "started", t0(0))),
			"stage 2 started in run r-17 before stage 1, which it depends on, succeeded (stage 1 has not started)"},
		{lines(ev("r-17", 1, 1, "started", t0(0)), ev("r-17", 1, 2, "started", t0(1))),
			"attempt 2 of stage 1 in run r-17 started, but attempt 1 is still running; a retry follows a failed attempt"},
		{lines(ev("r-17", 1, 1, "started", t0(0)), ev("r-17", 1, 1, "succeeded", t0(1)), ev("r-17", 1, 1, "failed", t0(2), `"error":"x"`)),
			"attempt 1 of stage 1 in run r-17 failed, but it already succeeded on line 2"},
		{lines(ev("r-17", 1, 1, "started", t0(0), `"attempt":2`)),
			"duplicate key /attempt: JSON readers disagree on which value wins"},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1e999999,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			"the event does not match event.schema.json: at /attempt: the number 1e999999 is far outside every range the contract allows"},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"status":"bogus","timestamp_utc":"2026-01-01T10:00:00Z","returncode":0e999999}`),
			`the event does not match event.schema.json: at /status: found "bogus", expected one of "started", "succeeded", "failed", "heartbeat", "unknown" or "resolved"`},
		{lines(ev("r-17", 1, 1, "bogus", t0(0))),
			`the event does not match event.schema.json: at /status: found "bogus", expected one of "started", "succeeded", "failed", "heartbeat", "unknown" or "resolved"`},
		{"\x1f\x8b\x08\x00\n\n", "this is a gzip file (it starts with the bytes 1f 8b), not a JSON Lines event log: decompress it (gunzip) and check the .jsonl it holds; the rest of the file was not read"},
		{"\x28\xb5\x2f\xfd\x00\n", "this is a zstd file (it starts with the bytes 28 b5 2f fd), not a JSON Lines event log: decompress it (zstd -d) and check the .jsonl it holds; the rest of the file was not read"},
		{"\ufeff" + lines(ev("r-17", 1, 1, "started", t0(0)), ev("r-17", 1, 1, "succeeded", t0(1))),
			"the file starts with a byte-order mark; write UTF-8 without a BOM (the first line is read without it)"},
		// A slip in an enum value or a contract key names the one meant.
		{lines(ev("r-17", 1, 1, "succeded", t0(0))),
			`the event does not match event.schema.json: at /status: found "succeded", expected one of "started", "succeeded", "failed", "heartbeat", "unknown" or "resolved"; did you mean "succeeded"?`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"Status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /Status: "Status" differs from the contract field "status" only in case and would shadow it: write "status"`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"stauts":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /: the required field "status" is missing; the event has "stauts": did you mean "status"?`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /: the required field "status" is missing`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"status":7,"timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /status: found 7, expected one of "started", "succeeded", "failed", "heartbeat", "unknown" or "resolved"`},
	}
	for _, tc := range cases {
		res := runCheck(t, tc.log, nil)
		if len(res.Report.Violations) != 1 || res.Report.Violations[0].Message != tc.want {
			t.Errorf("got %+v\nwant message %q", res.Report.Violations, tc.want)
		}
	}
}

// TestStates walks the state transitions of DESIGN.md §3 and asserts each
// run's state and the verdict.
func TestStates(t *testing.T) {
	ok1 := []string{ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "succeeded", t0(1))}
	ok2 := []string{ev("r-1", 2, 1, "started", t0(2)), ev("r-1", 2, 1, "succeeded", t0(3))}
	cases := []struct {
		name    string
		log     []string
		now     time.Time
		gate    checker.Gate
		states  []string
		verdict string
	}{
		{"succeeded", append(ok1, ok2...), corpusNow, "", []string{"r-1=succeeded"}, "healthy"},
		{"retry then success", []string{ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "failed", t0(1), `"error":"x"`, `"returncode":null`), ev("r-1", 1, 2, "started", t0(2)), ev("r-1", 1, 2, "succeeded", t0(3)), ev("r-1", 2, 1, "started", t0(4)), ev("r-1", 2, 1, "succeeded", t0(5))}, corpusNow, "", []string{"r-1=succeeded"}, "healthy"},
		{"permanent failure", append(ok1, ev("r-1", 2, 1, "started", t0(2)), ev("r-1", 2, 1, "failed", t0(3), `"error":"x"`)), corpusNow, "", []string{"r-1=failed"}, "unhealthy"},
		{"running while recent", []string{ev("r-1", 1, 1, "started", t0(0))}, time.Date(2026, 1, 1, 10, 10, 0, 0, time.UTC), "", []string{"r-1=running"}, "unhealthy"},
		{"stalled once silent past 600 s", []string{ev("r-1", 1, 1, "started", t0(0))}, time.Date(2026, 1, 1, 10, 10, 1, 0, time.UTC), "", []string{"r-1=stalled"}, "unhealthy"},
		{"incomplete", ok1, corpusNow, "", []string{"r-1=incomplete"}, "unhealthy"},
		{"empty log proves nothing", nil, corpusNow, "", nil, "unhealthy"},
		{"gate all: an old failure counts", append(append([]string{ev("r-0", 1, 1, "started", t0(0)), ev("r-0", 1, 1, "failed", t0(1), `"error":"x"`)}, strings.Replace(strings.Join(ok1, "\n"), "10:0", "11:0", -1)), strings.Replace(strings.Join(ok2, "\n"), "10:0", "11:0", -1)), corpusNow, checker.GateAll, []string{"r-0=failed", "r-1=succeeded"}, "unhealthy"},
		{"gate latest: only the latest run counts", append(append([]string{ev("r-0", 1, 1, "started", t0(0)), ev("r-0", 1, 1, "failed", t0(1), `"error":"x"`)}, strings.Replace(strings.Join(ok1, "\n"), "10:0", "11:0", -1)), strings.Replace(strings.Join(ok2, "\n"), "10:0", "11:0", -1)), corpusNow, checker.GateLatest, []string{"r-0=failed", "r-1=succeeded"}, "healthy"},
		{"gate latest: the latest run failed", append(append([]string{ev("r-0", 1, 1, "started", t0(30)), ev("r-0", 1, 1, "failed", t0(31), `"error":"x"`)}, ok1...), ok2...), corpusNow, checker.GateLatest, []string{"r-0=failed", "r-1=succeeded"}, "unhealthy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := ""
			if len(tc.log) > 0 {
				log = lines(tc.log...)
			}
			res := runCheck(t, log, func(o *checker.Options) { o.Now = tc.now; o.Gate = tc.gate })
			if !res.Report.Valid {
				t.Fatalf("unexpected violations: %+v", res.Report.Violations)
			}
			var states []string
			for _, r := range res.Snapshot.Runs {
				states = append(states, r.RunID+"="+r.State)
			}
			if fmt.Sprint(states) != fmt.Sprint(tc.states) || res.Snapshot.Verdict != tc.verdict {
				t.Fatalf("states %v verdict %s, want %v %s", states, res.Snapshot.Verdict, tc.states, tc.verdict)
			}
		})
	}
}
