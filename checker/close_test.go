package checker_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestCloseVerdict: a run's close decides its health with its stages
// (docs/recovery.md, The run's close): only RUN_ARCHIVED leaves a run whose
// stages succeeded healthy; another code makes it incomplete, or leaves the
// state its stages give; a plain second close request does not complete a
// pending audit, a completion does; a lock problem stays outstanding,
// whatever closes come between, until a RUN_ARCHIVED close releases it,
// with its own finish_close; finish_close comes after the stages'
// actions, and waits while a lease is live; in an archived run the
// stages' actions are redo_in_new_run.
func TestCloseVerdict(t *testing.T) {
	const ok = `{"run_id":"r","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r","stage":"load","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}
`
	const failed = `{"run_id":"r","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":"boom"}
`
	const live = `{"run_id":"r","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:58:00Z","lease_expires_at":"2026-01-01T12:30:00Z"}
`
	const stop = `"stop_confirmed_by":"ana","stop_evidence_ref":"ps: lock holder gone","stop_method":"local_pid"`
	closed := func(at, rest string) string {
		return `{"run_id":"r","status":"closed","timestamp_utc":"2026-01-01T` + at + `Z",` + rest + "}\n"
	}
	def, err := checker.ParseDefinition([]byte("pipeline: p\nstages:\n  - {id: extract}\n  - {id: load, depends_on: [extract]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, log string
		state     checker.RunState
		code      string // the close's result_code and lock_problem_code; "" for none
		actions   string // the recovery actions, in order
	}{
		{"no close", ok, checker.RunSucceeded, "", ""},
		{"archived", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED"`), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"lock conflict", ok + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`), checker.RunIncomplete, "LOCK_CONFLICT LOCK_CONFLICT", "finish_close"},
		{"closed again", ok + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED",`+stop), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"a lock problem after a pending audit is kept", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) + closed("10:06:00", `"result_code":"LOCK_CONFLICT"`),
			checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING LOCK_CONFLICT", "finish_close finish_close"},
		{"the lock released, the audit still pending", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED_LOCK_UNRELEASED"`) +
			closed("10:07:00", `"result_code":"RUN_ARCHIVED",`+stop), checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING", "finish_close"},
		{"the completion with the proof ends both", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) + closed("10:06:00", `"result_code":"LOCK_CONFLICT"`) +
			closed("10:07:00", `"result_code":"RUN_ARCHIVED","audit_event_id":"a-1","audit_completed_by":"ana","evidence_ref":"AUD-1",`+stop), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"the archive unconfirmed, then read", ok + closed("10:05:00", `"result_code":"ARCHIVE_UNCONFIRMED"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED","evidence_ref":"archive: r ARCHIVED"`),
			checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"a lock conflict, then the archive unconfirmed", ok + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`) + closed("10:06:00", `"result_code":"ARCHIVE_UNCONFIRMED"`),
			checker.RunIncomplete, "ARCHIVE_UNCONFIRMED LOCK_CONFLICT", "finish_close"},
		{"audit pending", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`), checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING", "finish_close"},
		{"a second close request", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED"`),
			checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING", "finish_close"},
		{"an audit completed", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) +
			closed("10:06:00", `"result_code":"RUN_ARCHIVED","audit_event_id":"a-1","audit_completed_by":"ana","evidence_ref":"AUD-1"`), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"a failed stage comes first", failed + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`), checker.RunFailed, "LOCK_CONFLICT LOCK_CONFLICT", "rerun finish_close"},
		{"an archived failed stage is redone in a new run", failed + closed("10:05:00", `"result_code":"ARCHIVE_UNCONFIRMED"`), checker.RunFailed, "ARCHIVE_UNCONFIRMED", "redo_in_new_run finish_close"},
		{"archived for good, failed", failed + closed("10:05:00", `"result_code":"RUN_ARCHIVED"`), checker.RunFailed, "RUN_ARCHIVED", "redo_in_new_run"},
		{"a live lease: wait", live + closed("11:59:00", `"result_code":"LOCK_CONFLICT"`), checker.RunRunning, "LOCK_CONFLICT LOCK_CONFLICT", "wait wait"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := checker.Check(strings.NewReader(c.log), checker.Options{Definition: def, Now: corpusNow})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Report.Valid {
				t.Fatalf("violations: %+v", res.Report.Violations)
			}
			r := res.Snapshot.At(0)
			code := ""
			if r.Close != nil {
				code = r.Close.ResultCode
				if r.Close.LockProblemCode != nil {
					code += " " + *r.Close.LockProblemCode
				}
			}
			var acts []string
			for _, a := range r.Recovery.Actions {
				acts = append(acts, string(a.Action))
			}
			if r.State != c.state || code != c.code || strings.Join(acts, " ") != c.actions {
				t.Errorf("state %s, close %q, actions %q; want %s, %q, %q", r.State, code, acts, c.state, c.code, c.actions)
			}
		})
	}
}
