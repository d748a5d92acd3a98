package checker_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// recoveryDefinition reads testdata/recovery/pipeline.yaml: extract
// (idempotent), load (not idempotent, after extract), publish (after load)
// and audit (independent, stale after 300 s); retry brake threshold 3.
func recoveryDefinition(t *testing.T) *checker.Definition {
	t.Helper()
	return definitionFile(t, "../testdata/recovery/pipeline.yaml")
}

// rev writes one event of run r-1 at 10:<min> UTC.
func rev(stage string, attempt int, status string, min int, extra ...string) string {
	return ev("r-1", stage, attempt, status, t0(min), extra...)
}

// resolvedEv writes a resolved event by ana with a reason; extra adds the rest.
func resolvedEv(stage string, attempt, min int, resolution string, extra ...string) string {
	return rev(stage, attempt, "resolved", min, append([]string{`"resolution":"` + resolution + `"`, `"reason":"checked the row counts"`, `"resolved_by":"ana"`}, extra...)...)
}

const (
	evidence = `"evidence_ref":"INC-7"`
	manual   = `"manual_completion":true`
	comp     = `"compensated":true`
	reason   = `"reason":"result file missing"`
)

// extractOK is extract attempt 1 started and succeeded at minutes 0 and 1.
func extractOK() []string {
	return []string{rev("extract", 1, "started", 0), rev("extract", 1, "succeeded", 1)}
}

func enforceBrake(d *checker.Definition) { d.RetryBrake.Enforce = true }

// TestRecoveryMessages pins the wording of recovery violations.
func TestRecoveryMessages(t *testing.T) {
	s1 := rev("extract", 1, "started", 0)
	cases := []struct {
		log  []string
		want string
	}{
		{append(extractOK(), rev("load", 1, "started", 2), rev("load", 1, "failed", 3, `"error":"x"`), rev("load", 2, "started", 4)),
			"attempt 2 of stage load in run r-1 started, but stage load is not idempotent and failed attempt 1 has no resolved event; adjudicate it before a retry"},
		{[]string{s1, rev("extract", 1, "unknown", 1, reason), rev("extract", 2, "started", 2)},
			"attempt 2 of stage extract in run r-1 started, but attempt 1 has an unknown outcome that nobody resolved; a retry follows a failed attempt"},
		{[]string{s1, rev("extract", 1, "failed", 1, `"error":"x"`), rev("extract", 1, "heartbeat", 2)},
			"attempt 1 of stage extract in run r-1 sent a heartbeat, but it already ended failed on line 2"},
	}
	for _, tc := range cases {
		res := runCheck(t, lines(tc.log...), func(o *checker.Options) { o.Definition = recoveryDefinition(t) })
		if len(res.Report.Violations) != 1 || res.Report.Violations[0].Message != tc.want {
			t.Errorf("got %+v\nwant message %q", res.Report.Violations, tc.want)
		}
	}
}

// clock is 2026-01-01 at h:m:s UTC.
func clock(h, m, s int) time.Time { return time.Date(2026, 1, 1, h, m, s, 0, time.UTC) }

// stageStates renders a run's stage states as "extract=failed load=blocked ...".
func stageStates(r checker.RunReport) string {
	var parts []string
	for _, s := range r.Stages {
		p := s.Stage.String() + "=" + string(s.State)
		if s.StatusReason != nil {
			p += "(" + *s.StatusReason + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// TestRecoveryStates walks the recovery model's states: leases with and
// without the margin, heartbeats, unknown and each resolution, blocked
// stages, the run precedence and the retry brake around its threshold.
func TestRecoveryStates(t *testing.T) {
	s1 := rev("extract", 1, "started", 0)
	unk1 := rev("extract", 1, "unknown", 1, reason)
	fail := func(n, min int, extra ...string) []string {
		return []string{rev("extract", n, "started", min), rev("extract", n, "failed", min+1, append([]string{`"error":"x"`}, extra...)...)}
	}
	oomTimes := func(k int) []string {
		var l []string
		for n := 1; n <= k; n++ {
			l = append(l, fail(n, 2*n, `"error_code":"OOM"`)...)
		}
		return l
	}
	cat := func(parts ...[]string) []string {
		var l []string
		for _, p := range parts {
			l = append(l, p...)
		}
		return l
	}
	leased := func(lease string) []string {
		return []string{ev("r-1", "extract", 1, "started", "2026-01-01T11:00:00Z", `"owner":"local-pid://host-a/4242"`, `"lease_expires_at":"`+lease+`"`)}
	}
	cases := []struct {
		name     string
		log      []string
		now      time.Time
		mod      func(*checker.Definition)
		state    string
		stages   string
		action   string
		warnings int
	}{
		{"lease valid: running despite long silence", leased("2026-01-01T11:59:30Z"), clock(12, 0, 0), nil, "running", "extract=running load=pending publish=pending audit=pending", "wait", 0},
		{"lease expired but within the margin: running", leased("2026-01-01T11:59:00Z"), clock(12, 0, 0), nil, "running", "extract=running load=pending publish=pending audit=pending", "wait", 0},
		{"lease expired past the margin: stall candidate", leased("2026-01-01T11:58:59Z"), clock(12, 0, 0), nil, "stalled", "extract=stalled load=pending publish=pending audit=pending", "confirm_stopped", 0},
		{"lease without margin (0)", leased("2026-01-01T11:59:59Z"), clock(12, 0, 0), func(d *checker.Definition) { d.LeaseMarginSeconds = 0 }, "stalled", "extract=stalled load=pending publish=pending audit=pending", "confirm_stopped", 0},
		{"heartbeat renews liveness", []string{s1, rev("extract", 1, "heartbeat", 50)}, clock(11, 0, 0), nil, "running", "extract=running load=pending publish=pending audit=pending", "wait", 0},
		{"silence past stale_after_seconds", []string{s1, rev("extract", 1, "heartbeat", 30)}, clock(11, 0, 0), nil, "stalled", "extract=stalled load=pending publish=pending audit=pending", "confirm_stopped", 0},
		{"per-stage stale_after_seconds", []string{rev("audit", 1, "started", 54)}, clock(11, 0, 0), nil, "stalled", "extract=pending load=pending publish=pending audit=stalled", "confirm_stopped", 0},
		{"unknown blocks its dependants", []string{s1, unk1}, corpusNow, nil, "unknown", "extract=unknown load=blocked publish=blocked audit=pending", "adjudicate_unknown", 0},
		{"unknown resolved succeeded", []string{s1, unk1, resolvedEv("extract", 1, 2, "succeeded", evidence, manual)}, corpusNow, nil, "incomplete", "extract=succeeded load=pending publish=pending audit=pending", "rerun", 0},
		{"unknown resolved failed, then a retry", []string{s1, unk1, resolvedEv("extract", 1, 2, "failed", evidence), rev("extract", 2, "started", 3), rev("extract", 2, "succeeded", 4)}, corpusNow, nil, "incomplete", "extract=succeeded load=pending publish=pending audit=pending", "rerun", 0},
		{"unknown resolved cancelled", []string{s1, unk1, resolvedEv("extract", 1, 2, "cancelled", evidence, comp)}, corpusNow, nil, "cancelled", "extract=cancelled load=blocked publish=blocked audit=pending", "none", 0},
		{"unknown outranks failed", []string{s1, unk1, rev("audit", 1, "started", 2), rev("audit", 1, "failed", 3, `"error":"x"`)}, corpusNow, nil, "unknown", "extract=unknown load=blocked publish=blocked audit=failed", "adjudicate_unknown", 0},
		{"failed outranks cancelled", []string{s1, unk1, resolvedEv("extract", 1, 2, "cancelled", evidence, comp), rev("audit", 1, "started", 3), rev("audit", 1, "failed", 4, `"error":"x"`)}, corpusNow, nil, "failed", "extract=cancelled load=blocked publish=blocked audit=failed", "rerun", 0},
		{"non-idempotent failure", cat(extractOK(), []string{rev("load", 1, "started", 2), rev("load", 1, "failed", 3, `"error":"x"`)}), corpusNow, nil, "failed", "extract=succeeded load=failed publish=blocked audit=pending", "resolve_non_idempotent", 0},
		{"non-idempotent failure resolved failed, then retried", cat(extractOK(), []string{rev("load", 1, "started", 2), rev("load", 1, "failed", 3, `"error":"x"`), resolvedEv("load", 1, 4, "failed", evidence), rev("load", 2, "started", 5), rev("load", 2, "succeeded", 6)}), corpusNow, nil, "incomplete", "extract=succeeded load=succeeded publish=pending audit=pending", "rerun", 0},
		{"non-idempotent unknown resolved succeeded with a second approver", cat(extractOK(), []string{rev("load", 1, "started", 2, `"requested_by":"bo"`), rev("load", 1, "unknown", 3, reason), resolvedEv("load", 1, 4, "succeeded", evidence, manual, `"approved_by":"cy"`), rev("publish", 1, "started", 5)}), corpusNow, nil, "stalled", "extract=succeeded load=succeeded publish=stalled audit=pending", "confirm_stopped", 0},
		{"brake: threshold-1", oomTimes(2), corpusNow, nil, "failed", "extract=failed load=blocked publish=blocked audit=pending", "rerun", 0},
		{"brake: threshold", oomTimes(3), corpusNow, nil, "failed", "extract=failed(RETRY_BRAKE:OOMx3) load=blocked publish=blocked audit=pending", "fix_then_rerun_from", 0},
		{"brake: threshold+1 with rerun_from, enforced", cat(oomTimes(3), []string{rev("extract", 4, "started", 9, `"rerun_from":true`), rev("extract", 4, "failed", 10, `"error":"x"`, `"error_code":"OOM"`)}), corpusNow, enforceBrake, "failed", "extract=failed(RETRY_BRAKE:OOMx4) load=blocked publish=blocked audit=pending", "fix_then_rerun_from", 0},
		{"brake: threshold+1 without rerun_from, not enforced: a warning", cat(oomTimes(3), fail(4, 9, `"error_code":"OOM"`)), corpusNow, nil, "failed", "extract=failed(RETRY_BRAKE:OOMx4) load=blocked publish=blocked audit=pending", "fix_then_rerun_from", 1},
		{"brake: mixed failure kinds do not trip it", cat(oomTimes(2), fail(3, 6, `"error_code":"SQL_ERROR"`)), corpusNow, nil, "failed", "extract=failed load=blocked publish=blocked audit=pending", "rerun", 0},
		{"brake: returncode is the kind without error_code", cat(fail(1, 2, `"returncode":137`), fail(2, 4, `"returncode":137`), fail(3, 6, `"returncode":137`)), corpusNow, nil, "failed", "extract=failed(RETRY_BRAKE:returncode:137x3) load=blocked publish=blocked audit=pending", "fix_then_rerun_from", 0},
		{"brake: a failure with no kind ends the count", cat(fail(1, 2, `"error_code":"OOM"`), fail(2, 4), fail(3, 6, `"error_code":"OOM"`), fail(4, 8, `"error_code":"OOM"`)), corpusNow, nil, "failed", "extract=failed load=blocked publish=blocked audit=pending", "rerun", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def := recoveryDefinition(t)
			if tc.mod != nil {
				tc.mod(def)
			}
			res := runCheck(t, lines(tc.log...), func(o *checker.Options) { o.Definition = def; o.Now = tc.now })
			if !res.Report.Valid {
				t.Fatalf("unexpected violations: %+v", res.Report.Violations)
			}
			r := res.Snapshot.Collect()[0]
			if string(r.State) != tc.state || stageStates(r) != tc.stages || string(r.Recovery.Action) != tc.action || len(res.Snapshot.Warnings) != tc.warnings {
				t.Fatalf("got %s [%s] %s, %d warnings; want %s [%s] %s, %d warnings\n%q",
					r.State, stageStates(r), r.Recovery.Action, len(res.Snapshot.Warnings), tc.state, tc.stages, tc.action, tc.warnings, r.Recovery.Steps)
			}
			if r.State == checker.RunStalled {
				a := r.Stages[0].Attempts
				for _, s := range r.Stages {
					if s.State == checker.StageStalled {
						a = s.Attempts
					}
				}
				if !a[len(a)-1].StaleCandidate {
					t.Fatal("a stalled attempt is not marked stale_candidate")
				}
			}
		})
	}
}

// TestRecoveryIdentifiers asserts the identifiers and steps an operator copies
// for a stall candidate with an owner and an attempt id.
func TestRecoveryIdentifiers(t *testing.T) {
	log := lines(ev("r-9", "extract", 1, "started", "2026-01-01T11:00:00Z", `"owner":"local-pid://host-a/4242"`, `"attempt_id":"ex-9-1"`, `"lease_expires_at":"2026-01-01T11:30:00Z"`))
	res := runCheck(t, log, func(o *checker.Options) { o.Definition = recoveryDefinition(t) })
	rec := res.Snapshot.Collect()[0].Recovery
	got := fmt.Sprintf("%s %s %v %d %s %s\n%s", rec.Action, rec.RunID, rec.Stage, *rec.Attempt, *rec.AttemptID, *rec.Owner, strings.Join(rec.Steps, "\n"))
	want := `confirm_stopped r-9 extract 1 ex-9-1 local-pid://host-a/4242
Attempt 1 of stage extract in run r-9 has been silent for 1h0m0s since line 1: a stall candidate, not proof that its owner stopped.
Confirm on host host-a that PID 4242 of the owner local-pid://host-a/4242 has stopped: the PID is gone, or it is another process (compare its start time and command line with the attempt's start at 2026-01-01T11:00:00Z: PIDs are reused); check the host's boot time too (a reboot after 2026-01-01T11:00:00Z ended the process). Keep the output (ps -o lstart=,args= -p 4242) as the evidence.
Then record the takeover with that evidence (stop_method is local_pid, host_down, console or other; write --status unknown with --field reason=... instead of failed when what the attempt did cannot be confirmed): greenlight emit --log EVENTS.jsonl --pipeline PIPELINE.yaml --run-id r-9 --stage extract --attempt 1 --status failed --error 'taken over: STOP_REASON' --owner YOUR_OWNER_ID --stop-confirmed-by YOUR_NAME --stop-evidence-ref EVIDENCE_REF --stop-method local_pid
Then follow the action the recorded outcome calls for; if the owner's heartbeat comes after the takeover, the owner was alive (HEARTBEAT_ADVANCED) and the attempt needs a person's adjudication.`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestConfirmStoppedQuoting: the emit line of confirm_stopped copies the
// run id as one shell word, whatever it holds, and an owner that is not a
// local-pid:// address gets no host or PID, and a method placeholder.
func TestConfirmStoppedQuoting(t *testing.T) {
	log := lines(ev("r 1'; rm -rf ~ #", "extract", 1, "started", "2026-01-01T11:00:00Z", `"owner":"k8s://pod/etl-7"`))
	res := runCheck(t, log, func(o *checker.Options) { o.Definition = recoveryDefinition(t) })
	steps := res.Snapshot.Collect()[0].Recovery.Steps
	if len(steps) != 4 {
		t.Fatalf("got %d steps: %q", len(steps), steps)
	}
	if want := "Confirm, with evidence, that the owner k8s://pod/etl-7 has stopped (its process, its host or the scheduler's console), and keep the evidence."; steps[1] != want {
		t.Errorf("step 2: got %q, want %q", steps[1], want)
	}
	if want := ` --run-id 'r 1'\''; rm -rf ~ #' --stage extract --attempt 1 `; !strings.Contains(steps[2], want) || !strings.HasSuffix(steps[2], "--stop-method STOP_METHOD") {
		t.Errorf("step 3: got %q, want it to hold %q and end in --stop-method STOP_METHOD", steps[2], want)
	}
}

// TestRecoveryOverdue: with a schedule (docs/schedule.md), a run in progress past
// max_runtime_seconds is overdue (between stalled and running) and its
// recovery is to wait while checking for progress.
func TestRecoveryOverdue(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("schedule: {every_seconds: 86400, max_runtime_seconds: 3600}\nstages: [{id: extract}]"))
	if err != nil {
		t.Fatal(err)
	}
	log := lines(ev("r-1", "extract", 1, "started", "2026-01-01T00:05:00Z", `"owner":"local-pid://h/9"`), ev("r-1", "extract", 1, "heartbeat", "2026-01-01T02:58:00Z"))
	res := runCheck(t, log, func(o *checker.Options) { o.Definition = def; o.Now = clock(3, 0, 0) })
	if !res.Report.Valid {
		t.Fatalf("unexpected violations: %+v", res.Report.Violations)
	}
	r := res.Snapshot.Collect()[0]
	got := string(r.State) + " " + string(r.Recovery.Action) + "\n" + strings.Join(r.Recovery.Steps, "\n")
	want := `overdue wait
Run r-1 has been in progress 1h55m0s longer than the schedule's max_runtime_seconds; attempt 1 of stage extract in run r-1 is still running, its last sign of life 2m0s ago (line 2).
Check with the owner local-pid://h/9 that it is making progress; do not start another attempt while this one may be alive.`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRerunFromRerunsDescendants: a started with rerun_from on extract
// reruns extract and every stage downstream of it (load, publish), also
// after they succeeded; audit, which does not depend on extract, is not
// rerun. Until a downstream stage runs again it is pending, so the run is
// judged by the rerun's attempts (docs/recovery.md, Rerun from a node).
func TestRerunFromRerunsDescendants(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("stages:\n  - {id: extract}\n  - {id: load}\n  - {id: publish, depends_on: [load]}\n  - {id: audit, depends_on: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	first := []string{
		ev("r-1", "extract", 1, "started", "2026-01-01T10:00:00Z"), ev("r-1", "extract", 1, "succeeded", "2026-01-01T10:01:00Z"),
		ev("r-1", "load", 1, "started", "2026-01-01T10:02:00Z"), ev("r-1", "load", 1, "succeeded", "2026-01-01T10:03:00Z"),
		ev("r-1", "publish", 1, "started", "2026-01-01T10:04:00Z"), ev("r-1", "publish", 1, "succeeded", "2026-01-01T10:05:00Z"),
		ev("r-1", "audit", 1, "started", "2026-01-01T10:06:00Z"), ev("r-1", "audit", 1, "succeeded", "2026-01-01T10:07:00Z"),
		ev("r-1", "extract", 2, "started", "2026-01-01T11:55:00Z", `"rerun_from":true`),
	}
	steps := [][]string{
		nil,
		{ev("r-1", "extract", 2, "succeeded", "2026-01-01T11:56:00Z")},
		{ev("r-1", "load", 2, "started", "2026-01-01T11:57:00Z"), ev("r-1", "load", 2, "succeeded", "2026-01-01T11:57:30Z"),
			ev("r-1", "publish", 2, "started", "2026-01-01T11:58:00Z"), ev("r-1", "publish", 2, "succeeded", "2026-01-01T11:58:30Z")},
	}
	wants := []string{
		"running [extract=running load=pending publish=pending audit=succeeded] wait",
		"incomplete [extract=succeeded load=pending publish=pending audit=succeeded] rerun",
		"succeeded [extract=succeeded load=succeeded publish=succeeded audit=succeeded] none",
	}
	log := first
	for k, more := range steps {
		log = append(log, more...)
		res := runCheck(t, lines(log...), func(o *checker.Options) { o.Definition = def })
		if !res.Report.Valid {
			t.Fatalf("step %d: unexpected violations: %+v", k, res.Report.Violations)
		}
		r := res.Snapshot.Collect()[0]
		if got := fmt.Sprintf("%s [%s] %s", r.State, stageStates(r), r.Recovery.Action); got != wants[k] {
			t.Errorf("step %d: got %s, want %s\n%q", k, got, wants[k], r.Recovery.Steps)
		}
	}
}

// TestRecoveryRunbookOrder: every unhealthy stage's action is listed,
// numbered in the runbook's order of work (docs/recovery.md §10), and a
// live lease turns every other action into wait.
func TestRecoveryRunbookOrder(t *testing.T) {
	s1 := rev("extract", 1, "started", 0)
	unkAudit := []string{rev("audit", 1, "started", 1), rev("audit", 1, "unknown", 2, reason)}
	cat := func(parts ...[]string) []string { return slices.Concat(parts...) }
	oomTimes := func(k int) []string {
		var l []string
		for n := 1; n <= k; n++ {
			l = append(l, rev("extract", n, "started", 2*n), rev("extract", n, "failed", 2*n+1, `"error":"x"`, `"error_code":"OOM"`))
		}
		return l
	}
	cases := []struct {
		name string
		log  []string
		now  time.Time
		want string // action@stage, in order
	}{
		{"a live lease: everything waits", cat([]string{rev("extract", 1, "started", 0, `"lease_expires_at":"2026-01-01T12:30:00Z"`)}, unkAudit), corpusNow, "wait@extract wait@audit"},
		{"a stale lease, then the unknown sibling", cat([]string{s1}, unkAudit), corpusNow, "confirm_stopped@extract adjudicate_unknown@audit"},
		{"unknown before a rerun, in stage order within a step", cat([]string{s1, rev("extract", 1, "failed", 1, `"error":"x"`)}, unkAudit), corpusNow, "adjudicate_unknown@audit rerun@extract"},
		{"the brake before a rerun", cat(oomTimes(3), []string{rev("audit", 1, "started", 8), rev("audit", 1, "failed", 9, `"error":"x"`)}), corpusNow, "fix_then_rerun_from@extract rerun@audit"},
		{"a non-idempotent failure and a stage never started", cat(extractOK(), []string{rev("load", 1, "started", 2), rev("load", 1, "failed", 3, `"error":"x"`)}), corpusNow, "resolve_non_idempotent@load rerun@audit"},
		{"a cancelled run is not resumed", []string{s1, rev("extract", 1, "unknown", 1, reason), resolvedEv("extract", 1, 2, "cancelled", evidence, comp)}, corpusNow, "none@extract"},
		{"a stage never started waits for the live lease", []string{s1}, clock(10, 5, 0), "wait@extract"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCheck(t, lines(tc.log...), func(o *checker.Options) { o.Definition = recoveryDefinition(t); o.Now = tc.now })
			if !res.Report.Valid {
				t.Fatalf("unexpected violations: %+v", res.Report.Violations)
			}
			rec := res.Snapshot.Collect()[0].Recovery
			var got []string
			for i, a := range rec.Actions {
				if a.Order != i+1 {
					t.Errorf("action %d has order %d", i, a.Order)
				}
				got = append(got, string(a.Action)+"@"+a.Stage.String())
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("actions %q, want %q\n%+v", got, tc.want, rec.Actions)
			}
			if first := rec.Actions[0]; rec.Action != first.Action || rec.Stage != first.Stage || len(rec.Steps) != len(first.Steps) {
				t.Errorf("the run's action %s is not its first, %s", rec.Action, first.Action)
			}
		})
	}
}

// TestRecoveryActionsInvariants checks every run of the logs of
// testdata/recovery against the runbook's order of work (docs/recovery.md
// §10): actions numbered from 1, the run's action is the first, a wait
// leaves only waits (and none), the rest in the runbook's steps, and every
// running, stalled, unknown, failed or cancelled stage has one action.
func TestRecoveryActionsInvariants(t *testing.T) {
	step := map[checker.Action]int{
		checker.ActionWait: 0, checker.ActionConfirmStopped: 1, checker.ActionInvestigateInconsistency: 2, checker.ActionAdjudicateUnknown: 2,
		checker.ActionFixThenRerunFrom: 3, checker.ActionResolveNonIdempotent: 4, checker.ActionRerun: 4, checker.ActionNone: 5,
	}
	for _, name := range []string{"orders_daily", "takeover", "heartbeat_advanced", "brake_nights", "live_lease"} {
		log, err := os.ReadFile("../testdata/recovery/" + name + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		res := runCheck(t, string(log), func(o *checker.Options) { o.Definition = recoveryDefinition(t); o.Now = corpusNow })
		for _, r := range res.Snapshot.Collect() {
			rec := &r.Recovery
			if len(rec.Actions) == 0 {
				if rec.Action != checker.ActionNone || len(rec.Steps) != 0 {
					t.Errorf("%s: run %s has no actions but action %s", name, r.RunID, rec.Action)
				}
				continue
			}
			waits, last := false, -1
			staged := map[string]int{}
			for i, a := range rec.Actions {
				if a.Order != i+1 || len(a.Steps) == 0 {
					t.Errorf("%s: run %s action %d: order %d, %d steps", name, r.RunID, i, a.Order, len(a.Steps))
				}
				waits = waits || a.Action == checker.ActionWait
				if waits && a.Action != checker.ActionWait && a.Action != checker.ActionNone {
					t.Errorf("%s: run %s: %s after a wait", name, r.RunID, a.Action)
				}
				if step[a.Action] < last {
					t.Errorf("%s: run %s: %s out of the runbook's order", name, r.RunID, a.Action)
				}
				last = step[a.Action]
				if a.Stage != nil && a.Action != checker.ActionInvestigateInconsistency {
					staged[a.Stage.String()]++
				}
			}
			if first := rec.Actions[0]; rec.Action != first.Action || fmt.Sprint(rec.Steps) != fmt.Sprint(first.Steps) {
				t.Errorf("%s: run %s: action %s is not its first, %s", name, r.RunID, rec.Action, first.Action)
			}
			for _, s := range r.Stages {
				switch s.State {
				case checker.StageRunning, checker.StageStalled, checker.StageUnknown, checker.StageFailed, checker.StageCancelled:
					if staged[s.Stage.String()] != 1 {
						t.Errorf("%s: run %s: stage %s (%s) has %d actions", name, r.RunID, s.Stage, s.State, staged[s.Stage.String()])
					}
				}
			}
		}
	}
}
