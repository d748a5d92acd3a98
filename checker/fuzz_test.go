package checker_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/schemas"
)

// FuzzCheck feeds arbitrary bytes to the reader and validator: Check must
// never panic or fail to answer, and no log holding a line that
// event.schema.json rejects may ever yield a snapshot, let alone a healthy
// verdict; and a check resumed from the checkpoint of a prefix gives the
// bytes of a full check (split-point mode), with a window of a minute too.
// Interesting inputs are kept under testdata/fuzz/FuzzCheck.
//
// One input costs a dozen checks, so give -fuzzminimizetime 2s: with the
// default of 60 s the engine spends its time minimizing each new input and
// reports 0 execs/s (30 s gave 441 execs that way and 15,714 with 2 s).
func FuzzCheck(f *testing.F) {
	f.Add([]byte(lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "succeeded", t0(1)), ev("r-1", 2, 1, "started", t0(2)), ev("r-1", 2, 1, "succeeded", t0(3)))))
	f.Add([]byte(lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "failed", t0(1), `"error":"x"`), ev("r-1", 1, 2, "started", t0(2)))))
	f.Add([]byte("{\"run_id\":\"r\",\"stage\":1,\"attempt\":1,\"status\":\"started\",\"timestamp_utc\":\"2026-01-01T10:00:00Z\"}\r\n\r\n"))
	f.Add([]byte("\xef\xbb\xbf{}\n"))
	f.Add([]byte(`{"run_id":"r","stage":1,"attempt":1e999999999,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`))
	// Short lines the compiled check refuses, more of them than are listed.
	f.Add([]byte(strings.Repeat("{}\n", 3) + `{"run_id":"r","stage":1,"attempt":0,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
		`{"run_id":"r","stage":1,"attempt":1,"Status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n"))
	// A resolution whose resolver and evidence render as nothing.
	f.Add([]byte(lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "unknown", t0(1), `"reason":"gone"`),
		ev("r-1", 1, 1, "resolved", t0(2), `"resolution":"failed","reason":"\u200b","resolved_by":"\u200b","evidence_ref":"\u00ad\ufe0f"`))))
	// Requests: a stale claim, a request settled by a reconciled one, a run
	// that links itself to its request (docs/recovery.md, Claimed requests).
	f.Add([]byte(`{"request_id":"q1","status":"requested","timestamp_utc":"2026-01-01T08:00:00Z","scheduled_for":"2026-01-01T00:00:00Z"}
{"request_id":"q1","status":"claimed","timestamp_utc":"2026-01-01T08:01:00Z","claimed_by":"p","claimed_at":"2026-01-01T08:01:00Z"}
{"request_id":"q2","status":"requested","timestamp_utc":"2026-01-01T10:00:00Z","stale_request_reconciled":"INC-1"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:01:00Z","request_id":"q2"}
{"request_id":"q3","status":"requested","timestamp_utc":"2026-01-01T10:02:00Z","run_id":"r-2"}
`))
	schema, err := schemas.Compile("event")
	if err != nil {
		f.Fatal(err)
	}
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, log []byte) {
		opts := checker.Options{Definition: def, Now: corpusNow, MaxLineBytes: 4096}
		rd := reading(nil)
		res, err := checkRead(bytes.NewReader(log), opts, rd)
		if err != nil {
			t.Fatalf("Check failed to answer: %v", err)
		}
		// Split-point mode: resumed from the checkpoint of a prefix that
		// ends a line (the first, the middle and the last line end), the
		// check gives a full check's bytes.
		full := outputsOf(t, res)
		var ends []int
		for i, c := range log {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
		if len(ends) > 0 {
			for _, at := range []int{ends[0], ends[len(ends)/2], ends[len(ends)-1]} {
				checkSplit(t, splitCase{name: "fuzz", log: log, opts: opts}, full, at)
			}
			// With a window of a minute, which folds the runs that ended a
			// minute before the newest event, the checkpoint holds the
			// window's state too.
			wopts := opts
			wopts.Window = checker.Window{Duration: time.Minute}
			wres, err := checkRead(bytes.NewReader(log), wopts, rd)
			if err != nil {
				t.Fatalf("Check with a window failed to answer: %v", err)
			}
			wfull := outputsOf(t, wres)
			for _, at := range []int{ends[len(ends)/2], ends[len(ends)-1]} {
				checkSplit(t, splitCase{name: "fuzz, a window", log: log, opts: wopts}, wfull, at)
			}
			// Rotated: the log as two files cut at its middle line end,
			// resumed from a checkpoint of the first file whole (a file
			// boundary) and of the first file and the second's first line.
			if cut := ends[len(ends)/2]; cut < len(log) {
				parts := cutAt(log, cut)
				sc := splitCase{name: "fuzz, two files", log: log, opts: opts}
				res, err := checker.CheckFiles(logFiles(parts), opts, rd)
				if err != nil {
					t.Fatalf("CheckFiles failed to answer: %v", err)
				}
				fullFiles := outputsOf(t, res)
				checkFilesSplit(t, sc, parts, nil, fullFiles, 1, len(parts[0]))
				if i := bytes.IndexByte(parts[1], '\n'); i >= 0 {
					checkFilesSplit(t, sc, parts, nil, fullFiles, 2, i+1)
				}
			}
		}
		if res.Snapshot == nil {
			if res.Report.Valid {
				t.Fatal("no snapshot for a valid log")
			}
			// With one violation listed, the one listed is the same (the
			// validator words it) and the rest are counted alike (the
			// compiled check counts the schema violations it does not word).
			one, err := checker.Check(bytes.NewReader(log), checker.Options{Definition: def, Now: corpusNow, MaxLineBytes: 4096, MaxViolations: 1})
			if err != nil {
				t.Fatalf("Check with one violation listed failed to answer: %v", err)
			}
			r, o := res.Report, one.Report
			if o.ViolationCount != r.ViolationCount || len(o.Violations) != 1 || !reflect.DeepEqual(o.Violations[0], r.Violations[0]) {
				t.Fatalf("with one violation listed: %d violations, first %+v; want %d, first %+v", o.ViolationCount, o.Violations, r.ViolationCount, r.Violations[0])
			}
			return
		}
		if !res.Report.Valid {
			t.Fatal("a snapshot for an invalid log")
		}
		// Every line of a log that yields a snapshot matches the schema.
		for i, line := range strings.Split(strings.TrimSuffix(string(log), "\n"), "\n") {
			if len(log) == 0 {
				break
			}
			line = strings.TrimSuffix(line, "\r")
			inst, err := schemas.Instance([]byte(line))
			if err != nil {
				t.Fatalf("line %d is not JSON but the log was accepted: %q", i+1, line)
			}
			func() {
				defer func() {
					if recover() != nil {
						t.Fatalf("line %d has a number the schema cannot read but was accepted: %q", i+1, line)
					}
				}()
				if err := schema.Validate(inst); err != nil {
					t.Fatalf("line %d breaks event.schema.json but the log was accepted (verdict %s): %v", i+1, res.Snapshot.Verdict, err)
				}
			}()
		}
	})
}
