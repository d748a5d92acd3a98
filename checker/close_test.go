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
// pending audit, a completion does; finish_close comes after the stages'
// actions, and waits while a lease is live.
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
		code      string // the close's result_code; "" for none
		actions   string // the recovery actions, in order
	}{
		{"no close", ok, checker.RunSucceeded, "", ""},
		{"archived", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED"`), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"lock conflict", ok + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`), checker.RunIncomplete, "LOCK_CONFLICT", "finish_close"},
		{"closed again", ok + closed("10:05:00", `"result_code":"LOCK_CONFLICT"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED"`), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"audit pending", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`), checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING", "finish_close"},
		{"a second close request", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) + closed("10:06:00", `"result_code":"RUN_ARCHIVED"`),
			checker.RunIncomplete, "RUN_ARCHIVED_AUDIT_PENDING", "finish_close"},
		{"an audit completed", ok + closed("10:05:00", `"result_code":"RUN_ARCHIVED_AUDIT_PENDING","audit_event_id":"a-1"`) +
			closed("10:06:00", `"result_code":"RUN_ARCHIVED","audit_event_id":"a-1","audit_completed_by":"ana","evidence_ref":"AUD-1"`), checker.RunSucceeded, "RUN_ARCHIVED", ""},
		{"a failed stage comes first", failed + closed("10:05:00", `"result_code":"ARCHIVE_UNCONFIRMED"`), checker.RunFailed, "ARCHIVE_UNCONFIRMED", "rerun finish_close"},
		{"a live lease: wait", live + closed("11:59:00", `"result_code":"RUN_ARCHIVED_LOCK_UNRELEASED"`), checker.RunRunning, "RUN_ARCHIVED_LOCK_UNRELEASED", "wait wait"},
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
