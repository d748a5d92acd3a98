package emit

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/schemas"
)

var at = time.Date(2026, 1, 1, 10, 0, 0, 123456789, time.UTC)

// pipeline is the definition of the tests: load depends on extract, and the
// retry brake is enforced at two same-kind failures.
const pipeline = `pipeline: t
retry_brake: {threshold: 2, enforce: true}
stages:
  - {id: extract}
  - {id: load}
`

func testLog(t *testing.T, content string) *Log {
	t.Helper()
	def, err := checker.ParseDefinition([]byte(pipeline))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Log{Path: path, Options: checker.Options{Definition: def}, Clock: func() time.Time { return at }}
}

func ptr[T any](v T) *T { return &v }

// TestEncode: the line's bytes, field order and escaping.
func TestEncode(t *testing.T) {
	for _, c := range []struct {
		name string
		ev   Event
		want string
	}{
		{"started with lease", Event{RunID: "r-1", Stage: checker.StrStage("load"), Status: "started", Owner: "local-pid://h/1", AttemptID: "A1", Lease: 90 * time.Second},
			`{"run_id":"r-1","stage":"load","attempt":2,"status":"started","timestamp_utc":"2026-01-01T10:00:00.123456789Z","owner":"local-pid://h/1","attempt_id":"A1","lease_expires_at":"2026-01-01T10:01:30.123456789Z"}`},
		{"failed, hostile text", Event{RunID: "r<&>\u2028", Stage: checker.IntStage(3), Status: "failed", Returncode: ptr(int64(-1)), Error: ptr("line 1\n\x1b[31mred\xff\"")},
			`{"run_id":"r<&>\u2028","stage":3,"attempt":2,"status":"failed","timestamp_utc":"2026-01-01T10:00:00.123456789Z","returncode":-1,"error":"line 1\n\u001b[31mred\ufffd\""}`},
		{"extra fields in order", Event{RunID: "r", Stage: checker.IntStage(1), Status: "heartbeat", Fields: []Field{{"rerun_from", json.RawMessage("true")}, {"note", json.RawMessage(`"x"`)}}},
			`{"run_id":"r","stage":1,"attempt":2,"status":"heartbeat","timestamp_utc":"2026-01-01T10:00:00.123456789Z","rerun_from":true,"note":"x"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(Encode(c.ev, 2, at)); got != c.want+"\n" {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestEncodedEventsMatchSchema: every line emit writes validates against
// schemas/event.schema.json with the JSON Schema validator.
func TestEncodedEventsMatchSchema(t *testing.T) {
	sch, err := schemas.Compile("event")
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []Event{
		{RunID: "r", Stage: checker.StrStage("extract"), Status: "started", Owner: "local-pid://h/1", AttemptID: "ABC", Lease: time.Second},
		{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat", Owner: "local-pid://h/1", AttemptID: "ABC", Lease: 3 * time.Second},
		{RunID: "r", Stage: checker.StrStage("extract"), Status: "succeeded", Returncode: ptr(int64(0))},
		{RunID: "r", Stage: checker.IntStage(1), Status: "failed", Returncode: ptr(int64(4294967295)), Error: ptr("boom\n\xff")},
		{RunID: "r", Stage: checker.IntStage(1), Status: "failed", Error: ptr("killed by SIGTERM")},
	} {
		inst, err := schemas.Instance(Encode(ev, 1, at))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", Encode(ev, 1, at), err)
		}
	}
}

// TestParseFields: key=value is a string, key:=JSON a JSON value; the
// command's own fields and repeated keys are refused.
func TestParseFields(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  []Field
		err   string
	}{
		{[]string{"error_code=OOM", "rerun_from:=true", "n:= 1.5 ", "eq=a=b"}, []Field{{"error_code", json.RawMessage(`"OOM"`)}, {"rerun_from", json.RawMessage(`true`)}, {"n", json.RawMessage(`1.5`)}, {"eq", json.RawMessage(`"a=b"`)}}, ""},
		{[]string{"novalue"}, nil, `--field "novalue": use key=value (a string) or key:=JSON`},
		{[]string{":=1"}, nil, `--field ":=1": use key=value (a string) or key:=JSON`},
		{[]string{"Status=x"}, nil, `--field "Status=x": status is set by the command's own flags, not by --field`},
		{[]string{"owner=x"}, nil, `--field "owner=x": owner is set by the command's own flags, not by --field`},
		{[]string{"a=1", "a:=2"}, nil, `--field "a:=2": field a is given twice`},
		{[]string{"a:=nope"}, nil, `--field "a:=nope": the value after := is not one JSON value (write key=value for a string)`},
	} {
		got, err := ParseFields(c.specs, []string{"run_id", "stage", "attempt", "status", "owner"})
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.specs, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, %v", c.specs, got, err)
		}
	}
}

// Lines of the refusal cases, at 09:00 (before the clock of the tests).
const (
	extractStarted = `{"run_id":"r","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T09:00:00Z"}` + "\n"
	extractOK      = `{"run_id":"r","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T09:01:00Z"}` + "\n"
	oom1           = `{"run_id":"r","stage":"extract","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T09:01:00Z","error":"oom","error_code":"OOM"}` + "\n"
	extract2       = `{"run_id":"r","stage":"extract","attempt":2,"status":"started","timestamp_utc":"2026-01-01T09:02:00Z"}` + "\n"
	oom2           = `{"run_id":"r","stage":"extract","attempt":2,"status":"failed","timestamp_utc":"2026-01-01T09:03:00Z","error":"oom","error_code":"OOM"}` + "\n"
)

// TestAppendRefuses: an event that would make the log invalid is refused
// with the violations check gives for the log with that event as its last
// line, and the log is left byte for byte.
func TestAppendRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		log  string
		ev   Event
		rule checker.RuleID
	}{
		{"retry past the brake", extractStarted + oom1 + extract2 + oom2,
			Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"}, checker.RuleRetryPastBrake},
		{"retry without failure", extractStarted, Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"}, checker.RuleRetryWithoutFailure},
		{"dependency not succeeded", extractStarted, Event{RunID: "r", Stage: checker.StrStage("load"), Status: "started"}, checker.RuleStageBeforeDependency},
		{"second start", extractStarted, Event{RunID: "r", Stage: checker.StrStage("extract"), Attempt: 1, Status: "started"}, checker.RuleDuplicateStart},
		{"terminal without start", "", Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "succeeded"}, checker.RuleTerminalWithoutStart},
		{"schema: failed without error", extractStarted, Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "failed"}, checker.RuleSchema},
		{"unknown status", extractStarted, Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "done"}, checker.RuleSchema},
		{"unknown stage", "", Event{RunID: "r", Stage: checker.StrStage("publish"), Status: "started"}, checker.RuleUnknownStage},
		{"success after success", extractStarted + extractOK, Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "succeeded"}, checker.RuleDuplicateTerminal},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := testLog(t, c.log)
			_, err := l.Append(c.ev)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("error %v, want a refusal", err)
			}
			if refused.Violations[0].Rule != c.rule {
				t.Errorf("rule %s, want %s", refused.Violations[0].Rule, c.rule)
			}
			after, _ := os.ReadFile(l.Path)
			if string(after) != c.log {
				t.Errorf("the log changed:\n%s", after)
			}
			// check, on the log with the event as its last line, gives
			// the same violations.
			attempt := c.ev.Attempt
			if attempt == 0 {
				res, err := checker.Check(strings.NewReader(c.log), checker.Options{Definition: l.Options.Definition, Now: at, File: l.Path})
				if err != nil || !res.Report.Valid {
					t.Fatal("the case's log is not valid", err)
				}
				attempt = chooseAttempt(res.Snapshot, c.ev)
			}
			res, err := checker.Check(strings.NewReader(c.log+string(Encode(c.ev, attempt, at))), checker.Options{Definition: l.Options.Definition, Now: at, File: l.Path})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Report.Violations, refused.Violations) {
				t.Errorf("refused with %+v\ncheck gives %+v", refused.Violations, res.Report.Violations)
			}
		})
	}
}

// TestAppendChoosesAttempt: started takes the next attempt, other statuses
// the latest; the log grows by whole lines and stays valid.
func TestAppendChoosesAttempt(t *testing.T) {
	l := testLog(t, "")
	steps := []struct {
		ev      Event
		attempt int64
	}{
		{Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"}, 1},
		{Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat", Lease: time.Minute}, 1},
		{Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "failed", Error: ptr("x")}, 1},
		{Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"}, 2},
		{Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "succeeded"}, 2},
		{Event{RunID: "r", Stage: checker.StrStage("load"), Status: "started"}, 1},
		{Event{RunID: "other", Stage: checker.StrStage("extract"), Status: "started"}, 1},
	}
	for i, s := range steps {
		a, err := l.Append(s.ev)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if a.Attempt != s.attempt || a.Line != i+1 || !a.Time.Equal(at) {
			t.Errorf("step %d: attempt %d line %d at %v, want attempt %d line %d", i+1, a.Attempt, a.Line, a.Time, s.attempt, i+1)
		}
	}
	data, _ := os.ReadFile(l.Path)
	res, err := checker.Check(bytes.NewReader(data), checker.Options{Definition: l.Options.Definition, Now: at})
	if err != nil || !res.Report.Valid || res.Snapshot.RunCount != 2 {
		t.Errorf("the log written is not valid with 2 runs: %v %+v", err, res.Report)
	}
}

// TestAppendTornLine: a log whose last line has no newline is refused with
// how to fix it; nothing is appended.
func TestAppendTornLine(t *testing.T) {
	torn := extractStarted + `{"run_id":"r","stage":"extract","att`
	l := testLog(t, torn)
	_, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat"})
	var te *TornLineError
	if !errors.As(err, &te) || te.Line != 2 {
		t.Fatalf("error %v, want a torn line at line 2", err)
	}
	p := l.Path
	want := "refused: the last line of " + p + " (line 2) has no newline, so a writer may have stopped in the middle of it; greenlight does not guess. " +
		"Look at that line (tail -n 1 " + p + "): if it is a whole event, end it with a newline (printf '\\n' >> " + p + "); if it is cut off, move it out of the log and record what happened to its attempt. Then append again"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	if after, _ := os.ReadFile(p); string(after) != torn {
		t.Errorf("the log changed: %q", after)
	}
}

// TestAppendInvalidLog: a log that is already invalid is refused whole,
// with check's violations.
func TestAppendInvalidLog(t *testing.T) {
	bad := "{not json}\n" + extractStarted
	for _, attempt := range []int64{0, 1} {
		l := testLog(t, bad)
		_, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Attempt: attempt, Status: "heartbeat"})
		var inv *InvalidLogError
		if !errors.As(err, &inv) || inv.Report.Violations[0].Line != 1 || inv.Report.Violations[0].Rule != checker.RuleInvalidJSON {
			t.Fatalf("attempt %d: error %v, want the log invalid at line 1", attempt, err)
		}
		if !strings.HasSuffix(err.Error(), "refused: "+l.Path+" is already invalid (1 contract violation), and greenlight appends only to a valid log; see \"greenlight check\" and fix it first") {
			t.Errorf("message: %s", err)
		}
	}
}

// TestAppendWarnsAtTheBrake: without enforce, a retry past the brake is
// appended with check's warning.
func TestAppendWarnsAtTheBrake(t *testing.T) {
	l := testLog(t, extractStarted+oom1+extract2+oom2)
	def, err := checker.ParseDefinition([]byte(strings.Replace(pipeline, "enforce: true", "enforce: false", 1)))
	if err != nil {
		t.Fatal(err)
	}
	l.Options.Definition = def
	a, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Attempt != 3 || len(a.Warnings) != 1 || a.Warnings[0].Rule != checker.RuleRetryPastBrake || a.Warnings[0].Line != 5 {
		t.Errorf("appended %+v, want attempt 3 with a retry_past_brake warning on line 5", a)
	}
}

// TestTimeLayout: the layout parses back with the checker's own rules, with
// nanoseconds.
func TestTimeLayout(t *testing.T) {
	s := at.Format(TimeLayout)
	got, err := checker.ParseTime(s)
	if err != nil || !got.Equal(at) || s != "2026-01-01T10:00:00.123456789Z" {
		t.Errorf("%s -> %v, %v", s, got, err)
	}
}

// TestAppendLockTimeout: while another writer holds the lock, an append
// waits, then gives up with an error and appends nothing.
func TestAppendLockTimeout(t *testing.T) {
	l := testLog(t, extractStarted)
	other := flock.New(l.Path + LockSuffix)
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	l.LockTimeout = 100 * time.Millisecond
	_, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat"})
	if want := "cannot lock " + l.Path + ".lock within 100ms: another writer holds it; nothing was appended"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	other.Unlock()
	if _, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat"}); err != nil {
		t.Errorf("after the other writer let go: %v", err)
	}
}

// TestAppendShortWrite: a write that stops part-way (a full disk, or
// RLIMIT_FSIZE) or fails, and a failed sync, truncate the log back to the
// size checked under the lock and say so: the log stays valid, and the
// next writer appends.
func TestAppendShortWrite(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(f *os.File, b []byte) (int, error)
		want  string
	}{
		{"short", func(f *os.File, b []byte) (int, error) { return f.Write(b[:len(b)/2]) },
			"cannot append to PATH: wrote 57 of 115 bytes; nothing was appended: the log was truncated back to the 103 bytes checked"},
		{"error after part", func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:10])
			return n, errors.New("file too large")
		}, "cannot append to PATH: file too large; nothing was appended: the log was truncated back to the 103 bytes checked"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := testLog(t, extractStarted)
			appendWrite = c.write
			_, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat"})
			appendWrite = writeOnce
			if want := strings.ReplaceAll(c.want, "PATH", l.Path); err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant %s", err, want)
			}
			if got, _ := os.ReadFile(l.Path); string(got) != extractStarted {
				t.Fatalf("the log is %q, want it as it was", got)
			}
			if _, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "heartbeat"}); err != nil {
				t.Fatalf("the next writer: %v", err)
			}
		})
	}
}

// TestAppendLockFollowsLinks: two writers that name one log by two
// spellings (a symbolic link to it, a path through a linked directory,
// a link whose target does not exist yet) take one lock, beside the file
// itself: while one holds it, the other waits and gives up.
func TestAppendLockFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "logs", "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct{ name, target string }{
		{"current.jsonl", "logs/events.jsonl"},
		{"logdir", "logs"},
		{"later.jsonl", "logs/later.jsonl"},
	} {
		if err := os.Symlink(link.target, filepath.Join(dir, link.name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	for _, c := range []struct{ spelling, real string }{
		{"current.jsonl", "logs/events.jsonl"},
		{"logdir/events.jsonl", "logs/events.jsonl"},
		{"later.jsonl", "logs/later.jsonl"},
	} {
		t.Run(c.spelling, func(t *testing.T) {
			if got, want := LockPath(filepath.Join(dir, c.spelling)), filepath.Join(dir, c.real)+LockSuffix; got != want {
				t.Errorf("LockPath = %s, want %s", got, want)
			}
			other := flock.New(filepath.Join(dir, c.real) + LockSuffix)
			if err := other.Lock(); err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			l := testLog(t, "")
			l.Path = filepath.Join(dir, c.spelling)
			l.LockTimeout = 50 * time.Millisecond
			_, err := l.Append(Event{RunID: "r", Stage: checker.StrStage("extract"), Status: "started"})
			if err == nil || !strings.Contains(err.Error(), "another writer holds it") {
				t.Fatalf("error %v, want the lock held by the other writer", err)
			}
		})
	}
}
