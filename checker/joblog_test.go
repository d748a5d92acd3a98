package checker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// job writes one job-log record at 10:<min> UTC.
func job(id, result string, min int) string {
	return fmt.Sprintf(`{"attempt_id":%q,"result":%q,"timestamp_utc":%q}`, id, result, t0(min))
}

// jobAt writes one job-log record at the RFC 3339 time ts.
func jobAt(id, result, ts string) string {
	return fmt.Sprintf(`{"attempt_id":%q,"result":%q,"timestamp_utc":%q}`, id, result, ts)
}

// TestJobLog reconciles event logs with job logs: adoption of attempts with
// no outcome, mismatch, orphan and conflict, with the run states they give.
func TestJobLog(t *testing.T) {
	id := func(s string) string { return `"attempt_id":"` + s + `"` }
	stalled := []string{rev("extract", 1, "started", 0, id("ex-1"))}
	leased := []string{rev("extract", 1, "started", 0, id("ex-1"), `"lease_expires_at":"2026-01-01T13:00:00Z"`)}
	unknown := []string{rev("extract", 1, "started", 0, id("ex-1")), rev("extract", 1, "unknown", 1, reason)}
	succeeded := append(extractOK()[:0:0], rev("extract", 1, "started", 0, id("ex-1")), rev("extract", 1, "succeeded", 1))
	cases := []struct {
		name     string
		log      []string
		jobLog   []string
		state    string
		stage    string // extract's state and its attempt 1 status
		adopted  int
		incs     string // code@job-log lines
		mismatch bool
	}{
		{"stalled attempt adopted as succeeded", stalled, []string{job("ex-1", "SUCCESS", 5)}, "incomplete", "succeeded/succeeded", 1, "", false},
		{"NO_DATA is a success", stalled, []string{job("ex-1", "NO_DATA", 5)}, "incomplete", "succeeded/succeeded", 1, "", false},
		{"unknown attempt adopted as failed", unknown, []string{job("ex-1", "TIMEOUT", 5)}, "failed", "failed/failed", 1, "", false},
		{"CANCELLED adopts as cancelled", unknown, []string{job("ex-1", "CANCELLED", 5)}, "cancelled", "cancelled/cancelled", 1, "", false},
		{"agreeing outcome: nothing to report", succeeded, []string{job("ex-1", "SUCCESS", 2)}, "incomplete", "succeeded/succeeded", 0, "", false},
		{"mismatch makes the run unknown", succeeded, []string{job("ex-1", "FAILED", 2)}, "unknown", "succeeded/succeeded", 0, "OUTCOME_MISMATCH@[1]", true},
		{"mismatch with a resolution", append(append([]string{}, unknown...), resolvedEv("extract", 1, 2, "succeeded", evidence, manual)), []string{job("ex-1", "ABORTED", 2)}, "unknown", "succeeded/unknown", 0, "OUTCOME_MISMATCH@[1]", true},
		{"orphan record", succeeded, []string{job("zz-9", "SUCCESS", 2)}, "incomplete", "succeeded/succeeded", 0, "JOB_LOG_ORPHAN@[1]", false},
		{"conflicting records are not adopted", stalled, []string{job("ex-1", "SUCCESS", 2), job("ex-1", "FAILED", 3)}, "stalled", "stalled/stalled", 0, "JOB_LOG_CONFLICT@[1 2]", false},
		{"repeated agreeing records are one adoption", stalled, []string{job("ex-1", "SUCCESS", 2), job("ex-1", "SUCCESS", 3)}, "incomplete", "succeeded/succeeded", 1, "", false},
		// A record is evidence only from the attempt's start to now plus the
		// clock skew (outside review): now is 12:00, the skew 300 s.
		{"record at the attempt's start is adopted", stalled, []string{job("ex-1", "SUCCESS", 0)}, "incomplete", "succeeded/succeeded", 1, "", false},
		{"record at now plus the skew is adopted", stalled, []string{jobAt("ex-1", "SUCCESS", "2026-01-01T12:05:00Z")}, "incomplete", "succeeded/succeeded", 1, "", false},
		{"record a nanosecond before the start is not adopted", stalled, []string{jobAt("ex-1", "SUCCESS", "2026-01-01T09:59:59.999999999Z")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"record of the day before is not adopted", stalled, []string{jobAt("ex-1", "SUCCESS", "2025-12-31T10:00:00Z")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"record past now plus the skew is not adopted", stalled, []string{jobAt("ex-1", "SUCCESS", "2026-01-01T12:05:00.000000001Z")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"record from 2099 is not adopted", stalled, []string{jobAt("ex-1", "SUCCESS", "2099-01-01T00:00:00Z")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"record from 2099 leaves a running attempt running", leased, []string{jobAt("ex-1", "SUCCESS", "2099-01-01T00:00:00Z")}, "running", "running/running", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"record from before the start leaves an unknown attempt unknown", unknown, []string{jobAt("ex-1", "SUCCESS", "2026-01-01T09:00:00+00:00")}, "unknown", "unknown/unknown", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"an offset counts: 10:30+01:00 is before a 10:00Z start", stalled, []string{jobAt("ex-1", "SUCCESS", "2026-01-01T10:30:00+01:00")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"one record out of time: the agreeing one is not adopted either", stalled, []string{job("ex-1", "SUCCESS", 2), jobAt("ex-1", "SUCCESS", "2099-01-01T00:00:00Z")}, "stalled", "stalled/stalled", 0, "JOB_LOG_OUT_OF_TIME@[2]", false},
		{"a record out of time is no mismatch either", succeeded, []string{jobAt("ex-1", "FAILED", "2025-12-31T10:00:00Z")}, "incomplete", "succeeded/succeeded", 0, "JOB_LOG_OUT_OF_TIME@[1]", false},
		{"disagreeing records stay a conflict, whatever their times", stalled, []string{jobAt("ex-1", "SUCCESS", "2099-01-01T00:00:00Z"), job("ex-1", "FAILED", 3)}, "stalled", "stalled/stalled", 0, "JOB_LOG_CONFLICT@[1 2]", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCheck(t, lines(tc.log...), func(o *checker.Options) {
				o.Definition = recoveryDefinition(t)
				o.JobLog, o.JobLogFile = strings.NewReader(lines(tc.jobLog...)), "job.jsonl"
			})
			if !res.Report.Valid {
				t.Fatalf("unexpected violations: %+v", res.Report.Violations)
			}
			rec := res.Snapshot.Reconciliation
			var incs []string
			for _, i := range rec.Inconsistencies {
				incs = append(incs, fmt.Sprintf("%s@%v", i.Code, i.JobLogLines))
			}
			r := res.Snapshot.Collect()[0]
			a := r.Stages[0].Attempts[0]
			got := fmt.Sprintf("%s %s/%s adopted=%d [%s]", r.State, r.Stages[0].State, a.Status, rec.AdoptedCount, strings.Join(incs, " "))
			want := fmt.Sprintf("%s %s adopted=%d [%s]", tc.state, tc.stage, tc.adopted, tc.incs)
			if got != want {
				t.Fatalf("got  %s\nwant %s\n%+v", got, want, rec.Inconsistencies)
			}
			if tc.adopted > 0 && (a.AdjudicatedFrom == nil || *a.AdjudicatedFrom != "job_log" || a.JobLogLine == nil || *a.JobLogLine != 1) {
				t.Fatalf("an adopted attempt is not marked adjudicated_from job_log line 1: %+v", a)
			}
			if (r.Recovery.Action == checker.ActionInvestigateInconsistency) != tc.mismatch {
				t.Fatalf("recovery action %s", r.Recovery.Action)
			}
		})
	}
}

// TestJobLogOutOfTimeMessages pins the wording of JOB_LOG_OUT_OF_TIME, with
// the bound the record breaks.
func TestJobLogOutOfTimeMessages(t *testing.T) {
	log := lines(rev("extract", 1, "started", 0, `"attempt_id":"ex-1"`))
	cases := []struct {
		job  []string
		want string
	}{
		{[]string{jobAt("ex-1", "SUCCESS", "2025-12-31T10:00:00Z")},
			"job log line 1 records attempt_id ex-1 (SUCCESS) at 2025-12-31T10:00:00Z, before attempt 1 of stage extract in run r-1 started (2026-01-01T10:00:00Z, line 1); a record is evidence only from the attempt's start to now plus the clock skew, so it is not adopted"},
		{[]string{job("ex-1", "SUCCESS", 5), jobAt("ex-1", "SUCCESS", "2099-01-01T00:00:00Z")},
			"job log line 2 records attempt_id ex-1 (SUCCESS) at 2099-01-01T00:00:00Z, more than 300 s after now (2026-01-01T12:00:00Z), the allowed clock skew; a record is evidence only from the attempt's start to now plus the clock skew, so no record of this attempt_id is adopted"},
	}
	for _, tc := range cases {
		res := runCheck(t, log, func(o *checker.Options) {
			o.Definition = recoveryDefinition(t)
			o.JobLog, o.JobLogFile = strings.NewReader(lines(tc.job...)), "job.jsonl"
		})
		incs := res.Snapshot.Reconciliation.Inconsistencies
		if len(incs) != 1 || incs[0].Code != checker.JobLogOutOfTime || incs[0].Message != tc.want || *incs[0].Line != 1 {
			t.Errorf("got %+v\nwant %s", incs, tc.want)
		}
	}
}

// TestJobLogInvalid: a job log that breaks its schema or the reading rules
// is an error naming the file and line; nothing is guessed.
func TestJobLogInvalid(t *testing.T) {
	cases := []struct{ job, want string }{
		{lines(job("ex-1", "SUCCESS", 1), `{"attempt_id":"ex-2","result":"DONE","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`job.jsonl:2: invalid job log record: it does not match joblog.schema.json: at /result: value must be one of "SUCCESS", "NO_DATA", "FAILED", "ABORTED", "TIMEOUT", "CANCELLED"`},
		{lines(`{"attempt_id":"ex-1","result":"SUCCESS","result":"FAILED","timestamp_utc":"2026-01-01T10:00:00Z"}`),
			`job.jsonl:1: invalid job log record: duplicate key /result: JSON readers disagree on which value wins`},
		{lines(job("ex-1", "SUCCESS", 1), ""), `job.jsonl:2: invalid job log record: blank line: every line must hold one JSON object`},
		// A returncode over MaxNumberChars is refused before the validator,
		// whatever its value, as in the event log.
		{lines(withCode(job("ex-1", "FAILED", 1), "1"+strings.Repeat("0", checker.MaxNumberChars))),
			`job.jsonl:1: invalid job log record: at /returncode: a number is written with at most 64 characters, and this one has 65 (100000000000000000000000…)`},
		{lines(withCode(job("ex-1", "FAILED", 1), "1."+strings.Repeat("0", 900_000))),
			`job.jsonl:1: invalid job log record: at /returncode: a number is written with at most 64 characters, and this one has 900002 (1.0000000000000000000000…)`},
	}
	for _, tc := range cases {
		_, err := checker.Check(strings.NewReader(lines(rev("extract", 1, "started", 0))), checker.Options{
			Definition: recoveryDefinition(t), Now: corpusNow, JobLog: strings.NewReader(tc.job), JobLogFile: "job.jsonl"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v\nwant %s", err, tc.want)
		}
	}
}

// withCode adds "returncode": lit to a job-log record.
func withCode(rec, lit string) string {
	return strings.TrimSuffix(rec, "}") + `,"returncode":` + lit + "}"
}

// TestJobLogEvidence: the reconciliation names the job log it read by the
// SHA-256 and length of its bytes, CRLF line ends and a missing final line
// end included; a returncode of exactly MaxNumberChars characters is read.
func TestJobLogEvidence(t *testing.T) {
	started := lines(rev("extract", 1, "started", 0, `"attempt_id":"ex-1"`))
	for _, jobLog := range []string{
		"",
		lines(job("ex-1", "SUCCESS", 5)),
		job("zz-1", "SUCCESS", 5) + "\r\n" + job("ex-1", "SUCCESS", 5),
		lines(withCode(job("ex-1", "SUCCESS", 5), "0."+strings.Repeat("0", checker.MaxNumberChars-2))),
	} {
		res := runCheck(t, started, func(o *checker.Options) {
			o.Definition = recoveryDefinition(t)
			o.JobLog, o.JobLogFile = strings.NewReader(jobLog), "job.jsonl"
		})
		if !res.Report.Valid {
			t.Fatalf("unexpected violations: %+v", res.Report.Violations)
		}
		rec := res.Snapshot.Reconciliation
		sum := sha256.Sum256([]byte(jobLog))
		if want := hex.EncodeToString(sum[:]); rec.SHA256 != want || rec.ByteCount != int64(len(jobLog)) {
			t.Errorf("job log %q: sha256 %s, %d bytes; want %s, %d", jobLog, rec.SHA256, rec.ByteCount, want, len(jobLog))
		}
	}
}
