package checker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

// TestCallerSHA256: a digest given by the caller is recorded as it is, in
// place of hashing the log, and one that is not lowercase hex is refused.
func TestCallerSHA256(t *testing.T) {
	log := lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "succeeded", t0(1)))
	sum := sha256.Sum256([]byte(log))
	own := runCheck(t, log, nil)
	if got, want := own.Snapshot.Source.SHA256, hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hashed digest %s, want %s", got, want)
	}
	given := strings.Repeat("ab", 32)
	res, err := checkRead(strings.NewReader(log), checker.Options{Definition: corpusDefinition(t), Now: corpusNow, File: "log.jsonl"}, checker.Reading{SHA256: given})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Snapshot.Source.SHA256; got != given {
		t.Errorf("digest %s, want the caller's %s", got, given)
	}
	for _, bad := range []string{strings.Repeat("AB", 32), strings.Repeat("a", 63), strings.Repeat("g", 64)} {
		_, err := checkRead(strings.NewReader(log), checker.Options{Definition: corpusDefinition(t), Now: corpusNow}, checker.Reading{SHA256: bad})
		want := `checker: Reading.SHA256 "` + bad + `" is not 64 lowercase hex digits`
		if err == nil || err.Error() != want {
			t.Errorf("SHA256 %q: error %v, want %s", bad, err, want)
		}
	}
}

// TestProgress: Progress hears about every ProgressEvery bytes, in order,
// and last of all the log's whole size.
func TestProgress(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 5*checker.ProgressEvery/2; i++ {
		run := fmt.Sprintf("r-%d", i)
		b.WriteString(lines(ev(run, 1, 1, "started", t0(0)), ev(run, 1, 1, "succeeded", t0(1))))
	}
	log := b.String()
	var calls []int64
	rd := checker.Reading{Progress: func(n int64) { calls = append(calls, n) }}
	if res, err := checkRead(strings.NewReader(log), checker.Options{Definition: corpusDefinition(t), Now: corpusNow, File: "log.jsonl"}, rd); err != nil {
		t.Fatal(err)
	} else if !res.Report.Valid {
		t.Fatalf("the log is invalid: %v", res.Report.Violations[0])
	}
	if len(calls) < 3 {
		t.Fatalf("progress called %d times for %d bytes: %v", len(calls), len(log), calls)
	}
	if last := calls[len(calls)-1]; last != int64(len(log)) {
		t.Errorf("last progress %d, want the log's size %d", last, len(log))
	}
	for i := 1; i < len(calls)-1; i++ {
		if calls[i]-calls[i-1] < checker.ProgressEvery {
			t.Errorf("progress %d then %d: less than ProgressEvery apart", calls[i-1], calls[i])
		}
	}
}

// TestSchemaMessageOrder: a line that breaks the schema in two properties
// gets one message, its parts sorted, however the validator ordered them.
func TestSchemaMessageOrder(t *testing.T) {
	log := `{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z","attempt_id":" ","resolution":"maybe"}` + "\n"
	want := `at /attempt_id: must hold a character other than white space and characters that render as nothing; at /resolution: found "maybe", expected one of "succeeded", "failed", "cancelled" or null`
	for range 30 {
		res := runCheck(t, log, nil)
		if len(res.Report.Violations) != 1 {
			t.Fatalf("violations %+v", res.Report.Violations)
		}
		if got := res.Report.Violations[0].Message; !strings.HasSuffix(got, want) {
			t.Fatalf("message %q, want it to end with %q", got, want)
		}
	}
}

// TestContractOnly: a check that hashes nothing (greenlight validate)
// gives the report and the snapshot of a check that hashes, byte for
// byte, but for the source digests it leaves empty (a compressed file's,
// which its LogFile gives, stays); the snapshot schema refuses such a
// snapshot, which is why it is never written out. ContractOnly cannot be
// combined with a digest given, nor with a checkpoint.
func TestContractOnly(t *testing.T) {
	def := corpusDefinition(t)
	stored := checker.SourceFile{SHA256: strings.Repeat("ab", 32), Size: 77, Compression: checker.CompressionGzip}
	one := lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "succeeded", t0(1)))
	two := lines(ev("r-1", 2, 1, "started", t0(2)), ev("r-1", 2, 1, "succeeded", t0(3)))
	bad := lines(ev("r-1", 1, 1, "succeeded", t0(0)))
	check := func(contractOnly bool, texts ...string) *checker.Result {
		t.Helper()
		var files []checker.LogFile
		for i, text := range texts {
			f := checker.LogFile{Path: fmt.Sprintf("day%d.jsonl", i+1), R: strings.NewReader(text)}
			if i == 0 && len(texts) > 1 {
				f.Stored = func() checker.SourceFile { return stored }
			}
			files = append(files, f)
		}
		res, err := checker.CheckFiles(files, checker.Options{Definition: def, Now: corpusNow, File: "the log"}, checker.Reading{ContractOnly: contractOnly})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	snapshotJSON := func(s *checker.Snapshot) string {
		t.Helper()
		var b strings.Builder
		if err := render.WriteSnapshotJSON(&b, s); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	schema, err := schemas.Compile("snapshot")
	if err != nil {
		t.Fatal(err)
	}
	for _, texts := range [][]string{{one + two}, {one, two}} {
		full, only := check(false, texts...), check(true, texts...)
		if full.Snapshot == nil || only.Snapshot == nil {
			t.Fatalf("%d files: invalid: %+v", len(texts), only.Report.Violations)
		}
		if got, want := only.Snapshot.Source.SHA256, ""; got != want {
			t.Errorf("%d files: source.sha256 %q, want %q", len(texts), got, want)
		}
		// The check that hashes, with the digests ContractOnly leaves out
		// taken out, is the same snapshot.
		full.Snapshot.Source.SHA256 = ""
		for i := range full.Snapshot.Source.Files {
			if full.Snapshot.Source.Files[i].Compression == checker.CompressionNone {
				full.Snapshot.Source.Files[i].SHA256 = ""
			}
		}
		if got, want := snapshotJSON(only.Snapshot), snapshotJSON(full.Snapshot); got != want {
			t.Errorf("%d files: snapshot\n%s\nwant\n%s", len(texts), got, want)
		}
		if len(texts) == 2 && only.Snapshot.Source.Files[0].SHA256 != stored.SHA256 {
			t.Errorf("the compressed file's sha256 %q, want its LogFile's %q", only.Snapshot.Source.Files[0].SHA256, stored.SHA256)
		}
		inst, err := schemas.Instance([]byte(snapshotJSON(only.Snapshot)))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err == nil {
			t.Errorf("%d files: the snapshot schema accepts a snapshot without its digest", len(texts))
		}
		// A report rendered from it names no digest (and does not panic).
		const head = "log the log (4 events)."
		if md := render.MarkdownReport(only.Snapshot, render.MarkdownOptions{}); !strings.Contains(md, head) {
			t.Errorf("%d files: the Markdown report does not say %q:\n%s", len(texts), head, md)
		}
	}
	full, only := check(false, bad), check(true, bad)
	if only.Report.Valid || !reflect.DeepEqual(only.Report, full.Report) {
		t.Errorf("report %+v, want %+v", only.Report, full.Report)
	}
	const want = "checker: Reading.ContractOnly hashes nothing: it cannot be combined with SHA256, Checkpoint or Resume"
	for name, rd := range map[string]checker.Reading{
		"SHA256":     {SHA256: strings.Repeat("ab", 32)},
		"Checkpoint": {Checkpoint: true},
		"Resume":     {Resume: &checker.Checkpoint{}},
	} {
		rd.ContractOnly = true
		if _, err := checkRead(strings.NewReader(one), checker.Options{Definition: def, Now: corpusNow}, rd); err == nil || err.Error() != want {
			t.Errorf("with %s: error %v, want %s", name, err, want)
		}
	}
}
