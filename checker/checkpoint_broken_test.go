package checker_test

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// brokenOnce gives text and then, once, a *checker.BrokenStreamError with
// its last bytes (a compressed file whose next member is cut short), and
// io.EOF after it: a reader that does not repeat its error.
type brokenOnce struct {
	text []byte
	told bool
}

func (b *brokenOnce) Read(p []byte) (int, error) {
	if b.told {
		return 0, io.EOF
	}
	n := copy(p, b.text)
	b.text = b.text[n:]
	if len(b.text) == 0 {
		b.told = true
		return n, &checker.BrokenStreamError{Msg: "the gzip stream is cut short"}
	}
	return n, nil
}

// TestCheckpointBrokenAfterPrefix: a compressed last file whose text breaks
// off exactly where the checkpoint stopped (its next member or frame cut
// short or corrupt) fits the checkpoint, and the resumed check reports the
// broken stream as a full check does, on the line after the last whole one,
// whether or not the file's reader repeats its error; in a file before the
// checkpoint's last one it is a misfit.
func TestCheckpointBrokenAfterPrefix(t *testing.T) {
	def := corpusDefinition(t)
	log := generatedLog(6)
	cut := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	parts := cutAt(log, cut)
	opts := checker.Options{Definition: def, Now: corpusNow, File: "rotated"}
	rd := checker.Reading{Checkpoint: true}
	stored := func() checker.SourceFile {
		return checker.SourceFile{SHA256: "", Size: 99, Compression: checker.CompressionGzip}
	}
	for _, tc := range []struct {
		name  string
		parts [][]byte // the files the checkpoint read; the last is the broken one
	}{
		{"one file", [][]byte{log}},
		{"the last of two files", parts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := func(broken bool) []checker.LogFile {
				out := logFiles(tc.parts, len(tc.parts)-1)
				last := &out[len(out)-1]
				if broken {
					last.R = &brokenOnce{text: tc.parts[len(tc.parts)-1]}
				}
				last.Stored = stored
				return out
			}
			first, err := checker.CheckFiles(files(false), opts, rd)
			if err != nil || first.Checkpoint == nil {
				t.Fatalf("no checkpoint: %v %s", err, first.NoCheckpoint)
			}
			full, err := checker.CheckFiles(files(true), opts, rd)
			if err != nil {
				t.Fatal(err)
			}
			o, ro := opts, checker.Reading{Checkpoint: true, Resume: reread(t, first.Checkpoint)}
			resumed, err := checker.CheckFiles(files(true), o, ro)
			if err != nil {
				t.Fatalf("resumed: %v", err)
			}
			lastLines := bytes.Count(tc.parts[len(tc.parts)-1], []byte("\n"))
			want := []checker.Violation{{
				File: fmt.Sprintf("part-%d.jsonl.gz", len(tc.parts)), Line: lastLines + 1, Rule: checker.RuleInvalidJSON,
				Message: "the gzip stream is cut short; the rest of the file cannot be read, and a log cut short is no evidence",
			}}
			if full.Report.Valid || !reflect.DeepEqual(full.Report.Violations, want) {
				t.Fatalf("full check: %+v, want %+v", full.Report.Violations, want)
			}
			if !reflect.DeepEqual(resumed.Report, full.Report) || resumed.Snapshot != nil || resumed.Checkpoint != nil {
				t.Fatalf("resumed: %+v (snapshot %v, checkpoint %v), want the full check's %+v", resumed.Report, resumed.Snapshot != nil, resumed.Checkpoint != nil, full.Report)
			}
		})
	}
	// In a file before the checkpoint's last one, a misfit.
	first, err := checker.CheckFiles(logFiles(parts), opts, rd)
	if err != nil || first.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	files := logFiles(parts, 0)
	files[0].R = &brokenOnce{text: parts[0]}
	o, ro := opts, checker.Reading{Checkpoint: true, Resume: reread(t, first.Checkpoint)}
	_, err = checker.CheckFiles(files, o, ro)
	want := fmt.Sprintf("the checkpoint does not fit part-1.jsonl.gz at byte offset %d: its text breaks off after %d bytes: the gzip stream is cut short", cut, cut)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
