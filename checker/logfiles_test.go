package checker_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

const (
	dayOne = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
`
	// dayTwo ends without its newline: the file's end ends the line.
	dayTwo = `{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}`
	again = `{"run_id":"r-1","stage":2,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:04:00Z","error":"x"}
`
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func checkFiles(t *testing.T, files ...checker.LogFile) *checker.Result {
	t.Helper()
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.CheckFiles(files, checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), File: "the log", ToolVersion: "v9.9.9"}, checker.Reading{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCheckFilesOneRun: a run that spans two files is one run; the snapshot
// lists each file, hashes the text of both, counts lines across them, and
// matches the snapshot schema.
func TestCheckFilesOneRun(t *testing.T) {
	stored := checker.SourceFile{SHA256: strings.Repeat("ab", 32), Size: 77, Compression: checker.CompressionGzip}
	res := checkFiles(t,
		checker.LogFile{Path: "day1.jsonl.gz", R: strings.NewReader(dayOne), Stored: func() checker.SourceFile { return stored }},
		checker.LogFile{Path: "day2.jsonl", R: strings.NewReader(dayTwo)})
	s := res.Snapshot
	if s == nil {
		t.Fatalf("invalid: %+v", res.Report.Violations)
	}
	if s.RunCount != 1 || s.Verdict != checker.VerdictHealthy {
		t.Errorf("%d runs, %s; want 1 run, healthy", s.RunCount, s.Verdict)
	}
	want := checker.Source{Path: "the log", SHA256: sha(dayOne + dayTwo), EventCount: 4, LineCount: 4, Files: []checker.SourceFile{
		{Path: "day1.jsonl.gz", SHA256: stored.SHA256, Size: 77, LineCount: 2, Compression: checker.CompressionGzip},
		{Path: "day2.jsonl", SHA256: sha(dayTwo), Size: int64(len(dayTwo)), LineCount: 2, Compression: checker.CompressionNone},
	}}
	if got := s.Source; got.Path != want.Path || got.SHA256 != want.SHA256 || got.EventCount != want.EventCount || got.LineCount != want.LineCount || len(got.Files) != 2 || got.Files[0] != want.Files[0] || got.Files[1] != want.Files[1] {
		t.Errorf("source %+v, want %+v", got, want)
	}
	if s.Tool != (checker.Tool{Name: "greenlight", Version: "v9.9.9"}) {
		t.Errorf("tool %+v", s.Tool)
	}
	for _, c := range []struct {
		line     int
		file     string
		fileLine int
		text     string
	}{{1, "day1.jsonl.gz", 1, "line 1 of day1.jsonl.gz"}, {2, "day1.jsonl.gz", 2, "line 2 of day1.jsonl.gz"}, {3, "day2.jsonl", 1, "line 1 of day2.jsonl"}, {4, "day2.jsonl", 2, "line 2 of day2.jsonl"}} {
		if f, n := s.Source.Locate(c.line); f != c.file || n != c.fileLine {
			t.Errorf("Locate(%d) = %s:%d, want %s:%d", c.line, f, n, c.file, c.fileLine)
		}
		if got := s.Source.LineText(c.line); got != c.text {
			t.Errorf("LineText(%d) = %q, want %q", c.line, got, c.text)
		}
	}
	var b bytes.Buffer
	if err := render.WriteSnapshotJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	schema, err := schemas.Compile("snapshot")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := schemas.Instance(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("the snapshot breaks its schema: %v", err)
	}
}

// TestCheckFilesViolations: a violation names its file and its line in
// it, and a message that points at another line names that line's file.
func TestCheckFilesViolations(t *testing.T) {
	res := checkFiles(t,
		checker.LogFile{Path: "a.jsonl", R: strings.NewReader(dayOne + dayTwo + "\n")},
		checker.LogFile{Path: "b.jsonl", R: strings.NewReader(again)},
		checker.LogFile{Path: "c.gz", R: strings.NewReader(again[:30]), Stored: func() checker.SourceFile { return checker.SourceFile{} }})
	var got []string
	for _, v := range res.Report.Violations {
		got = append(got, v.File+":"+itoa(v.Line)+": "+string(v.Rule)+": "+v.Message)
	}
	want := []string{
		"b.jsonl:1: duplicate_terminal: attempt 1 of stage 2 in run r-1 failed, but it already succeeded on line 4 of a.jsonl; a.jsonl and b.jsonl may be separate pipelines' logs, which can share run ids (Airflow's scheduled__2026-12-04T02:00:00+00:00 is one in every DAG): check each on its own, then merge the snapshots",
		"c.gz:1: invalid_json: truncated JSON: the object ends before it is closed (a raw line break inside a string splits an event in two: write it as \\n)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckFilesBrokenStream: a file whose reader breaks off with a
// BrokenStreamError is an invalid_json violation on the line after the
// last whole one, and the next file is still read.
func TestCheckFilesBrokenStream(t *testing.T) {
	broken := &brokenReader{text: dayOne, err: &checker.BrokenStreamError{Msg: "the gzip stream is cut short"}}
	res := checkFiles(t,
		checker.LogFile{Path: "a.gz", R: broken, Stored: func() checker.SourceFile { return checker.SourceFile{} }},
		checker.LogFile{Path: "b.jsonl", R: strings.NewReader("{}\n")})
	var got []string
	for _, v := range res.Report.Violations {
		got = append(got, v.File+":"+itoa(v.Line)+": "+string(v.Rule)+": "+v.Message)
	}
	want := "a.gz:3: invalid_json: the gzip stream is cut short; the rest of the file cannot be read, and a log cut short is no evidence\n" +
		"b.jsonl:1: schema: "
	if res.Report.Valid || len(got) != 2 || !strings.HasPrefix(strings.Join(got, "\n"), want) {
		t.Errorf("violations\n%s\nwant them to start\n%s", strings.Join(got, "\n"), want)
	}
}

type brokenReader struct {
	text string
	err  error
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if b.text == "" {
		return 0, b.err
	}
	n := copy(p, b.text)
	b.text = b.text[n:]
	return n, nil
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestCheckFilesLineWords: in a log of several files, every line the
// checker and the renderers name in words (violations, recovery steps, a
// run's detail) is the line within its file, with the file's name, while
// the snapshot's numbers stay counted across the log; a log of one file
// names the plain line.
func TestCheckFilesLineWords(t *testing.T) {
	const (
		extract = `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
`
		requested = `{"run_id":"r-1","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","requested_by":"bo"}
{"run_id":"r-1","stage":"load","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:03:00Z","reason":"result file missing"}
`
		approvedByRequester = `{"run_id":"r-1","stage":"load","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:04:00Z","resolution":"succeeded","reason":"checked","resolved_by":"ana","evidence_ref":"INC-7","manual_completion":true,"approved_by":"bo"}
`
		approvedByCy = `{"run_id":"r-1","stage":"load","attempt":1,"status":"resolved","timestamp_utc":"2026-01-01T10:04:00Z","resolution":"succeeded","reason":"checked","resolved_by":"ana","evidence_ref":"INC-7","manual_completion":true,"approved_by":"cy"}
`
		requestedByCy = `{"run_id":"r-1","stage":"publish","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:05:00Z","requested_by":"cy"}
`
		loadFailed = `{"run_id":"r-2","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-2","stage":"extract","attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-2","stage":"load","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z"}
{"run_id":"r-2","stage":"load","attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:03:00Z","error":"x"}
`
		stalled = `{"run_id":"r-3","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
`
		unknown = `{"run_id":"r-4","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-4","stage":"extract","attempt":1,"status":"unknown","timestamp_utc":"2026-01-01T10:01:00Z","reason":"lost"}
`
	)
	def, err := checker.ParseDefinition([]byte("stages:\n  - {id: extract}\n  - {id: load, idempotent: false}\n  - {id: publish, depends_on: [load]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	type file struct{ path, text string }
	for _, c := range []struct {
		name  string
		files []file
		want  []string // violations, or each run's detail and recovery steps
	}{
		{name: "approved by the requester of an earlier file",
			files: []file{{"a.jsonl", extract + requested}, {"b.jsonl", approvedByRequester}},
			want:  []string{`b.jsonl:1: self_approved_resolution: attempt 1 of stage load in run r-1 was approved by "bo", who requested the run on line 3 of a.jsonl; the approver must be someone else; a.jsonl and b.jsonl may be separate pipelines' logs, which can share run ids (Airflow's scheduled__2026-12-04T02:00:00+00:00 is one in every DAG): check each on its own, then merge the snapshots`}},
		{name: "requested by an approver of an earlier file",
			files: []file{{"a.jsonl", extract + requested}, {"b.jsonl", approvedByCy}, {"c.jsonl", requestedByCy}},
			want:  []string{`c.jsonl:1: self_approved_resolution: run r-1 was requested by "cy", who approved the resolution on line 1 of b.jsonl; the approver must be someone else; b.jsonl and c.jsonl may be separate pipelines' logs, which can share run ids (Airflow's scheduled__2026-12-04T02:00:00+00:00 is one in every DAG): check each on its own, then merge the snapshots`}},
		{name: "a violation within one file of several adds no hint",
			files: []file{{"a.jsonl", stalled}, {"b.jsonl", extract + requested + approvedByRequester}},
			want:  []string{`b.jsonl:5: self_approved_resolution: attempt 1 of stage load in run r-1 was approved by "bo", who requested the run on line 3 of b.jsonl; the approver must be someone else`}},
		{name: "a log of one file names the plain line in a violation",
			files: []file{{"a.jsonl", extract + requested + approvedByCy + requestedByCy}},
			want:  []string{`a.jsonl:6: self_approved_resolution: run r-1 was requested by "cy", who approved the resolution on line 5; the approver must be someone else`}},
		{name: "recovery steps and details name the line within its file",
			files: []file{{"a.jsonl", loadFailed}, {"b.jsonl", stalled}, {"c.jsonl", unknown}},
			want: []string{
				"r-2 (line 1): stage load attempt 1 failed",
				"r-2 step: Attempt 1 of stage load in run r-2 failed (line 4 of a.jsonl) and the stage is not idempotent: it may have left partial effects.",
				"r-3 (line 5): stage extract attempt 1 silent for 2h0m0s since line 1 of b.jsonl: a stall candidate, not proof",
				"r-3 step: Attempt 1 of stage extract in run r-3 has been silent for 2h0m0s since line 1 of b.jsonl: a stall candidate, not proof that its owner stopped.",
				"r-4 (line 6): stage extract attempt 1 outcome unknown (line 2 of c.jsonl)",
				"r-4 step: Attempt 1 of stage extract in run r-4 has an unknown outcome (line 2 of c.jsonl): lost.",
			}},
		{name: "a log of one file names the plain line",
			files: []file{{"a.jsonl", loadFailed + stalled}},
			want: []string{
				"r-2 (line 1): stage load attempt 1 failed",
				"r-2 step: Attempt 1 of stage load in run r-2 failed (line 4) and the stage is not idempotent: it may have left partial effects.",
				"r-3 (line 5): stage extract attempt 1 silent for 2h0m0s since line 5: a stall candidate, not proof",
				"r-3 step: Attempt 1 of stage extract in run r-3 has been silent for 2h0m0s since line 5: a stall candidate, not proof that its owner stopped.",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var files []checker.LogFile
			for _, f := range c.files {
				files = append(files, checker.LogFile{Path: f.path, R: strings.NewReader(f.text)})
			}
			res, err := checker.CheckFiles(files, checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), File: "the log"}, checker.Reading{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Report.Violations {
				got = append(got, v.File+":"+itoa(v.Line)+": "+string(v.Rule)+": "+v.Message)
			}
			if s := res.Snapshot; s != nil {
				for r := range s.EachRun {
					if r.State == checker.RunSucceeded {
						continue
					}
					got = append(got, r.RunID+" (line "+itoa(r.FirstLine)+"): "+render.Detail(&s.Source, r).Summary)
					for _, step := range r.Recovery.Steps[:1] {
						got = append(got, r.RunID+" step: "+step)
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
