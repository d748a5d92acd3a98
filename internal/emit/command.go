package emit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/osfile"
)

// The ranges of the numeric flags, as the event schema bounds the fields.
const (
	MaxAttempt    = 2147483647
	MinReturncode = -2147483648
	MaxReturncode = 4294967295
)

// Flags are the flags emit and run share: the log, the pipeline definition
// it is checked with, the event's run, stage and attempt, the clock and the
// extra fields.
type Flags struct {
	Log, RunID, Stage string
	Pipeline, Stages  string
	Now               string
	ScheduledFor      string
	Attempt           *cli.RangedInt
	Fields            []string
	// RequestID is --request-id: the request_id of a request event, or of
	// the request that started the run on a run's events.
	RequestID string
	reserved  []string // fields the command sets itself
	command   string
	// RunLevel says the event is about its run as a whole (status
	// closed): it names no stage and no attempt.
	RunLevel bool
	// request says the event is a request event (requested, claimed): it
	// takes --request-id, and no --stage or --attempt; --run-id is
	// optional.
	request bool
}

// Register defines the shared flags on fs. reserved lists the event fields
// the command sets itself besides the contract's, which --field may not set.
func (f *Flags) Register(fs *pflag.FlagSet, command string, reserved ...string) {
	f.reserved = append([]string{"run_id", "stage", "attempt", "status", "timestamp_utc", "returncode", "error", "request_id"}, reserved...)
	f.command = command
	fs.StringVar(&f.Log, "log", "", "the JSON Lines event log `FILE` to append to (created when missing; locked through FILE.lock)")
	fs.StringVar(&f.RunID, "run-id", "", "the run `ID` (run_id)")
	fs.StringVar(&f.Stage, "stage", "", "the `stage` id, e.g. 2 or silver; the pipeline definition must declare it")
	f.Attempt = cli.AddRangedInt(fs, "attempt", 0, 1, MaxAttempt, "the attempt `N` (default: the next attempt of the stage in the run for started, else its latest)")
	fs.StringVar(&f.Pipeline, "pipeline", "", "pipeline definition `FILE` (YAML or JSON) the log is checked with")
	fs.StringVar(&f.Stages, "stages", "", "shorthand for a linear pipeline: comma-separated stage `ids`, e.g. 1,2 or bronze,silver")
	fs.StringVar(&f.Now, "now", "", "write every event at this RFC 3339 `time` instead of the wall clock (for tests)")
	fs.StringVar(&f.ScheduledFor, "scheduled-for", "", "the slot the run stands for, its logical date: an RFC 3339 `time` written as scheduled_for (a backfill names its older date, so it never clears a newer failure)")
	fs.StringVar(&f.RequestID, "request-id", "", "the request `ID` (request_id): a request event's, or on a run's events the request that started the run (docs/recovery.md, Claimed requests)")
	fs.StringArrayVar(&f.Fields, "field", nil, "an extra field of the event: `key=value` (a string) or key:=JSON (any JSON value, e.g. rerun_from:=true); repeatable")
}

// Resolve checks the shared flags and returns the log and the event they
// describe. now is the wall clock, used unless --now is given; a --now
// more than limits.ClockSkewSeconds after it is an error, since a
// check before that time would find the events in its future.
func (f *Flags) Resolve(now func() (t time.Time)) (*Log, Event, error) {
	var stage checker.StageID
	var attempt int
	if f.RunLevel {
		// A run-level event (closed) names no stage and no attempt.
		if f.Log == "" || f.RunID == "" {
			return nil, Event{}, fmt.Errorf("%s needs --log FILE and --run-id ID", f.command)
		}
		if f.Stage != "" || f.Attempt.Changed() {
			return nil, Event{}, errors.New("a closed event is run-level: give no --stage and no --attempt")
		}
	} else if f.request {
		// A request event (requested, claimed) names a request: no stage,
		// no attempt, and --run-id only when the run is known.
		if f.Log == "" || f.RequestID == "" {
			return nil, Event{}, fmt.Errorf("%s of a request event needs --log FILE and --request-id ID", f.command)
		}
		if f.Stage != "" || f.Attempt.Changed() {
			return nil, Event{}, errors.New("a request event (status requested or claimed) names a request, not an attempt: give no --stage or --attempt")
		}
	} else {
		if f.Log == "" || f.RunID == "" || f.Stage == "" {
			return nil, Event{}, fmt.Errorf("%s needs --log FILE, --run-id ID and --stage S", f.command)
		}
		ids, err := checker.ParseStageList(f.Stage)
		if err != nil || len(ids) != 1 {
			return nil, Event{}, fmt.Errorf("--stage %s: give one stage id: an integer from 1, or a name matching ^[A-Za-z][A-Za-z0-9_.-]{0,127}$", strconv.Quote(f.Stage))
		}
		stage = ids[0]
		if attempt, err = f.Attempt.Value(); err != nil {
			return nil, Event{}, err
		}
	}
	fields, err := ParseFields(f.Fields, f.reserved)
	if err != nil {
		return nil, Event{}, err
	}
	if f.ScheduledFor != "" {
		if _, err := checker.ParseTime(f.ScheduledFor); err != nil {
			return nil, Event{}, fmt.Errorf("--scheduled-for %s: %v", strconv.Quote(f.ScheduledFor), err)
		}
		for _, fd := range fields {
			if strings.EqualFold(fd.Key, "scheduled_for") {
				return nil, Event{}, errors.New("--scheduled-for and --field scheduled_for both name the slot: give one")
			}
		}
		fields = append(fields, Field{Key: "scheduled_for", Value: appendString(nil, f.ScheduledFor)})
	}
	req := checker.Request{Knob: cli.Flag, PipelineName: render.Terminal(f.Pipeline), Stages: f.Stages, File: f.Log}
	if f.Pipeline != "" && f.Stages == "" {
		data, err := osfile.ReadFile(f.Pipeline)
		if err != nil {
			return nil, Event{}, fmt.Errorf("cannot read the pipeline definition: %s", osfile.Describe(err))
		}
		req.Pipeline = data
	}
	opts, err := req.Options()
	if err != nil {
		return nil, Event{}, err
	}
	clock := now
	if f.Now != "" {
		t, err := checker.ParseTime(f.Now)
		if err != nil {
			return nil, Event{}, fmt.Errorf("--now %s: %v", strconv.Quote(f.Now), err)
		}
		// Events written later than the wall clock plus the checker's skew
		// would be timestamp_in_future to every check until then.
		if wall := now(); t.After(wall.Add(limits.ClockSkewSeconds * time.Second)) {
			return nil, Event{}, fmt.Errorf("--now %s is %d s after the wall clock (%s), more than the %d s a check allows: a check before then would call the events timestamp_in_future",
				strconv.Quote(f.Now), t.Unix()-wall.Unix(), wall.UTC().Format(time.RFC3339), limits.ClockSkewSeconds)
		}
		clock = func() time.Time { return t }
	}
	log := &Log{Path: f.Log, Options: opts, Clock: clock}
	return log, Event{RunID: f.RunID, Stage: stage, Attempt: int64(attempt), Fields: fields, RequestID: f.RequestID}, nil
}

// ParseFields reads --field values: key=value is a string field and
// key:=JSON a field holding that JSON value. A key may be given once, and
// none of reserved (in any letter case: the schema refuses a contract
// field's name in another case) may be set this way.
func ParseFields(specs []string, reserved []string) ([]Field, error) {
	var fields []Field
	seen := map[string]bool{}
	for _, spec := range specs {
		i := strings.IndexByte(spec, '=')
		if i <= 0 || (i == 1 && spec[0] == ':') {
			return nil, fmt.Errorf("--field %s: use key=value (a string) or key:=JSON", strconv.Quote(spec))
		}
		key, value, raw := spec[:i], spec[i+1:], false
		if strings.HasSuffix(key, ":") {
			key, raw = key[:len(key)-1], true
		}
		for _, r := range reserved {
			if strings.EqualFold(key, r) {
				return nil, fmt.Errorf("--field %s: %s is set by the command's own flags, not by --field", strconv.Quote(spec), r)
			}
		}
		if seen[key] {
			return nil, fmt.Errorf("--field %s: field %s is given twice", strconv.Quote(spec), render.Terminal(key))
		}
		seen[key] = true
		var v json.RawMessage
		if raw {
			if !json.Valid([]byte(value)) {
				return nil, fmt.Errorf("--field %s: the value after := is not one JSON value (write key=value for a string)", strconv.Quote(spec))
			}
			v = compact(value)
		} else {
			v = appendString(nil, value)
		}
		fields = append(fields, Field{Key: key, Value: v})
	}
	return fields, nil
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(s)) // s is valid JSON
	return b.Bytes()
}

// Failed prints err as greenlight's one-line error (or, for a refusal, the
// violations in check's FILE:LINE: rule: message form and then the reason)
// and returns exit 2; --help is exit 0.
func Failed(env cli.Env, err error) int {
	if errors.Is(err, pflag.ErrHelp) {
		return cli.ExitOK
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(env.Stderr, "greenlight: %s\n", cli.ErrorLine(errors.New(line)))
	}
	return cli.ExitInvalid
}

// PrintWarnings prints the checker's warnings about an appended event.
func PrintWarnings(env cli.Env, a Appended) {
	for _, w := range a.Warnings {
		fmt.Fprintf(env.Stderr, "greenlight: warning: %s:%d: %s: %s\n", render.Terminal(w.File), w.Line, w.Rule, render.TerminalMessage(w.Message))
	}
}

// Command is "greenlight emit": it builds one event from its flags and
// appends it when the log stays valid (docs/emit.md). Exit 0 appended, 2
// refused or failed, with the reason on stderr.
func Command(args []string, env cli.Env) int {
	fs := cli.NewFlagSet("emit")
	var f Flags
	f.Register(fs, "emit", "owner", "stop_confirmed_by", "stop_evidence_ref", "stop_method", "claimed_by", "claimed_at", "stale_request_reconciled")
	status := fs.String("status", "", "the event's `status`: started, succeeded, failed, heartbeat, unknown, resolved, skipped, or closed (the run's close: no --stage, no --attempt); requested or claimed for a request event (no --stage, no --attempt)")
	resultCode := fs.String("result-code", "", "on closed: how far the run's close got, `CODE` (result_code): RUN_ARCHIVED, RUN_ARCHIVED_AUDIT_PENDING, RUN_ARCHIVED_LOCK_UNRELEASED, ARCHIVE_UNCONFIRMED or LOCK_CONFLICT")
	auditID := fs.String("audit-event-id", "", "on closed: the `ID` of the close's audit record (audit_event_id; required with RUN_ARCHIVED_AUDIT_PENDING and to complete it)")
	auditBy := fs.String("audit-completed-by", "", "on closed: who completed the pending audit record, `NAME` (audit_completed_by; with --result-code RUN_ARCHIVED, --audit-event-id and --evidence-ref)")
	evidenceRef := fs.String("evidence-ref", "", "where the evidence is, `REF` (evidence_ref: of a resolution, or of a completed audit record)")
	claimedBy := fs.String("claimed-by", "", "on claimed: the poller that claims the request, `ID` (claimed_by)")
	claimedAt := fs.String("claimed-at", "", "on claimed: when the poller claimed it, an RFC 3339 `time` (claimed_at; default: the event's time)")
	reconciled := fs.String("stale-request-reconciled", "", "on requested: where the reconciliation of a stale earlier request for the same work is recorded, `REF` (stale_request_reconciled)")
	owner := fs.String("owner", "", "who writes the event, `ID` (owner): on an outcome, another owner than the attempt's start takes the attempt over and needs the three --stop-* flags")
	stopBy := fs.String("stop-confirmed-by", "", "on a takeover: who confirmed that the attempt's owner stopped, `NAME` (stop_confirmed_by)")
	stopRef := fs.String("stop-evidence-ref", "", "on a takeover: where the proof that the owner stopped is kept, `REF` (stop_evidence_ref: ps output, a console log)")
	stopMethod := fs.String("stop-method", "", "on a takeover: how the owner was confirmed stopped, `METHOD`: local_pid, host_down, console or other (stop_method)")
	// The schema's range passes a 32-bit int: the flag keeps it in int64,
	// so every target takes and refuses the same codes.
	returncode := cli.AddRangedInt64(fs, "returncode", 0, MinReturncode, MaxReturncode, "the process exit `code` (returncode)")
	errText := fs.String("error", "", "what went wrong, `TEXT` (error; required, not blank, for failed)")
	reason := fs.String("reason", "", "why, `TEXT` (reason; required, not blank, for skipped, unknown and resolved; the same as --field reason=TEXT)")
	if err := cli.ParseFlags(fs, args, env); err != nil {
		return Failed(env, err)
	}
	if fs.NArg() != 0 {
		return Failed(env, fmt.Errorf("emit takes no arguments besides its flags (got %s)", strconv.Quote(fs.Arg(0))))
	}
	if *status == "" {
		return Failed(env, errors.New("emit needs --status STATUS (started, succeeded, failed, heartbeat, unknown, resolved, skipped or closed; requested or claimed)"))
	}
	if err := flagsFit(fs, *status); err != nil {
		return Failed(env, err)
	}
	f.request = *status == checker.StatusRequested.String() || *status == checker.StatusClaimed.String()
	f.RunLevel = *status == checker.StatusClosed.String()
	log, ev, err := f.Resolve(env.Now)
	if err != nil {
		return Failed(env, err)
	}
	ev.Status = *status
	ev.ClaimedBy, ev.StaleRequestReconciled = *claimedBy, *reconciled
	if *claimedAt != "" {
		t, err := checker.ParseTime(*claimedAt)
		if err != nil {
			return Failed(env, fmt.Errorf("--claimed-at %s: %v", strconv.Quote(*claimedAt), err))
		}
		ev.ClaimedAt = &t
	}
	if returncode.Changed() {
		code, err := returncode.Value64()
		if err != nil {
			return Failed(env, err)
		}
		ev.Returncode = &code
	}
	if fs.Changed("error") {
		ev.Error = errText
	}
	ev.Owner, ev.StopConfirmedBy, ev.StopEvidenceRef, ev.StopMethod = *owner, *stopBy, *stopRef, *stopMethod
	if fs.Changed("reason") {
		for _, f := range ev.Fields {
			if strings.EqualFold(f.Key, "reason") {
				return Failed(env, errors.New("--reason and --field reason both give the reason; give it once"))
			}
		}
		ev.Fields = append(ev.Fields, Field{Key: "reason", Value: appendString(nil, *reason)})
	}
	for _, fl := range [...]struct{ flag, key, value string }{
		{"result-code", "result_code", *resultCode}, {"audit-event-id", "audit_event_id", *auditID},
		{"audit-completed-by", "audit_completed_by", *auditBy}, {"evidence-ref", "evidence_ref", *evidenceRef},
	} {
		if !fs.Changed(fl.flag) {
			continue
		}
		for _, f := range ev.Fields {
			if strings.EqualFold(f.Key, fl.key) {
				return Failed(env, fmt.Errorf("--%s and --field %s both give %s; give it once", fl.flag, fl.key, fl.key))
			}
		}
		ev.Fields = append(ev.Fields, Field{Key: fl.key, Value: appendString(nil, fl.value)})
	}
	a, err := log.Append(ev)
	if err != nil {
		return Failed(env, err)
	}
	PrintWarnings(env, a)
	return cli.ExitOK
}

// flagsFit refuses the flags that do not fit the event, the first rule of
// flagRules that a given flag breaks: an attempt's (--owner, --stop-*,
// --returncode, --error, --reason) or a close's (--result-code, --audit-*,
// --evidence-ref) on a request event; a claim's (--claimed-by,
// --claimed-at) on a requested event, whose claim they are not; the
// reconciliation of a stale request (--stale-request-reconciled) on a
// claim, where no check reads it: it settles a stale request only on the
// new request; a request event's flags on any other event; a close's own
// flags on any event but a close, where a reader of the log would take
// them for a close's.
func flagsFit(fs *pflag.FlagSet, status string) error {
	request := status == checker.StatusRequested.String() || status == checker.StatusClaimed.String()
	for _, r := range []struct {
		on    bool
		flags []string
		msg   string // a format for the flag's name
	}{
		{request, []string{"owner", "stop-confirmed-by", "stop-evidence-ref", "stop-method", "returncode", "error", "reason",
			"result-code", "audit-event-id", "audit-completed-by", "evidence-ref"},
			"--%s is an attempt's or a close's, and a request event (status requested or claimed) is neither"},
		{status == checker.StatusClaimed.String(), []string{"stale-request-reconciled"},
			"--%s belongs on the new request (--status requested), not on a claim"},
		{status == checker.StatusRequested.String(), []string{"claimed-by", "claimed-at"},
			"--%s belongs on a claim (--status claimed), not on a requested event"},
		{!request, []string{"claimed-by", "claimed-at", "stale-request-reconciled"},
			"--%s belongs on a request event (--status requested or claimed)"},
		{status != checker.StatusClosed.String(), []string{"result-code", "audit-event-id", "audit-completed-by"},
			"--%s belongs on a close (--status closed)"},
	} {
		if !r.on {
			continue
		}
		for _, n := range r.flags {
			if fs.Changed(n) {
				return fmt.Errorf(r.msg, n)
			}
		}
	}
	return nil
}
