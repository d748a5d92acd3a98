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
			`the event does not match event.schema.json: at /status: found "bogus", expected one of "started", "succeeded", "failed", "heartbeat", "unknown", "resolved", "skipped", "closed", "requested" or "claimed"`},
		{lines(ev("r-17", 1, 1, "bogus", t0(0))),
			`the event does not match event.schema.json: at /status: found "bogus", expected one of "started", "succeeded", "failed", "heartbeat", "unknown", "resolved", "skipped", "closed", "requested" or "claimed"`},
		{"\x1f\x8b\x08\x00\n\n", "this is a gzip file (it starts with the bytes 1f 8b), not a JSON Lines event log: decompress it (gunzip) and check the .jsonl it holds; the rest of the file was not read"},
		{"\x28\xb5\x2f\xfd\x00\n", "this is a zstd file (it starts with the bytes 28 b5 2f fd), not a JSON Lines event log: decompress it (zstd -d) and check the .jsonl it holds; the rest of the file was not read"},
		{"\ufeff" + lines(ev("r-17", 1, 1, "started", t0(0)), ev("r-17", 1, 1, "succeeded", t0(1))),
			"the file starts with a byte-order mark; write UTF-8 without a BOM (the first line is read without it)"},
		// A slip in an enum value or a contract key names the one meant.
		{lines(ev("r-17", 1, 1, "succeded", t0(0))),
			`the event does not match event.schema.json: at /status: found "succeded", expected one of "started", "succeeded", "failed", "heartbeat", "unknown", "resolved", "skipped", "closed", "requested" or "claimed"; did you mean "succeeded"?`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"Status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /Status: "Status" differs from the contract field "status" only in case and would shadow it: write "status"`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"stauts":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /: the required field "status" is missing; the event has "stauts": did you mean "status"?`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /: the required field "status" is missing`},
		{lines(`{"run_id":"r-17","stage":1,"attempt":1,"status":7,"timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`the event does not match event.schema.json: at /status: found 7, expected one of "started", "succeeded", "failed", "heartbeat", "unknown", "resolved", "skipped", "closed", "requested" or "claimed"`},
	}
	for _, tc := range cases {
		res := runCheck(t, tc.log, nil)
		if len(res.Report.Violations) != 1 || res.Report.Violations[0].Message != tc.want {
			t.Errorf("got %+v\nwant message %q", res.Report.Violations, tc.want)
		}
	}
}

// TestStates walks the state transitions of docs/contract.md (States) and asserts each
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
			for _, r := range res.Snapshot.Collect() {
				states = append(states, r.RunID+"="+string(r.State))
			}
			if fmt.Sprint(states) != fmt.Sprint(tc.states) || string(res.Snapshot.Verdict) != tc.verdict {
				t.Fatalf("states %v verdict %s, want %v %s", states, res.Snapshot.Verdict, tc.states, tc.verdict)
			}
		})
	}
}
