package checker_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// logFiles gives the files of a log as CheckFiles takes them, named
// part-1.jsonl, part-2.jsonl and so on; stored, when not empty, makes the
// file of that index compressed as far as the checker can tell.
func logFiles(parts [][]byte, stored ...int) []checker.LogFile {
	files := make([]checker.LogFile, len(parts))
	for i, p := range parts {
		files[i] = checker.LogFile{Path: fmt.Sprintf("part-%d.jsonl", i+1), R: bytes.NewReader(p)}
		for _, s := range stored {
			if s == i {
				files[i].Path += ".gz"
				files[i].Stored = func() checker.SourceFile {
					return checker.SourceFile{SHA256: strings.Repeat("ab", 32), Size: 99, Compression: checker.CompressionGzip}
				}
			}
		}
	}
	return files
}

// withAt gives each file of files stored as read (not compressed) its
// bytes at any offset too (LogFile.At), as the shell gives a regular file:
// a check resumed from a checkpoint then proves the last file's old part on
// a goroutine of its own while it decodes the rest.
func withAt(files []checker.LogFile) []checker.LogFile {
	out := append([]checker.LogFile(nil), files...)
	for i := range out {
		if r, ok := out[i].R.(*bytes.Reader); ok && out[i].Stored == nil {
			out[i].At = r
		}
	}
	return out
}

// brakeLog is a log of runs that each retry stage 1 past the retry brake
// (threshold 3, not enforced): every run leaves a retry_past_brake warning,
// which a checkpoint keeps and a resumed check must place in its file.
func brakeLog(runs int) (*checker.Definition, []byte) {
	def, err := checker.ParseDefinition([]byte("pipeline: brake\nretry_brake: {threshold: 3, enforce: false}\nstages:\n  - {id: 1}\n  - {id: 2}\n"))
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	minute := 0
	at := func() string { minute++; return fmt.Sprintf("2026-01-01T%02d:%02d:00Z", minute/60, minute%60) }
	for r := 1; r <= runs; r++ {
		for a := 1; a <= 3; a++ {
			fmt.Fprintf(&b, `{"run_id":"b-%d","stage":1,"attempt":%d,"status":"started","timestamp_utc":%q}`+"\n", r, a, at())
			fmt.Fprintf(&b, `{"run_id":"b-%d","stage":1,"attempt":%d,"status":"failed","timestamp_utc":%q,"returncode":1,"error":"killed","error_code":"OOM"}`+"\n", r, a, at())
		}
		fmt.Fprintf(&b, `{"run_id":"b-%d","stage":1,"attempt":4,"status":"started","timestamp_utc":%q}`+"\n", r, at())
		fmt.Fprintf(&b, `{"run_id":"b-%d","stage":1,"attempt":4,"status":"succeeded","timestamp_utc":%q,"returncode":0}`+"\n", r, at())
	}
	return def, []byte(b.String())
}

// cutAt cuts log into files at the given byte offsets (ascending).
func cutAt(log []byte, cuts ...int) [][]byte {
	var parts [][]byte
	from := 0
	for _, c := range cuts {
		parts = append(parts, log[from:c])
		from = c
	}
	return append(parts, log[from:])
}

// checkFilesSplit checks the log of files parts (those of index gz
// compressed), cut to its first k files with the k-th cut to its first at
// bytes, with a checkpoint and then all
// of parts resumed from it, and requires the resumed outputs (the
// checkpoint's bytes included) to equal full's. It reports whether the
// prefix left a checkpoint.
func checkFilesSplit(t *testing.T, sc splitCase, parts [][]byte, gz []int, full checked, k, at int) bool {
	t.Helper()
	day1 := append([][]byte(nil), parts[:k]...)
	day1[k-1] = day1[k-1][:at]
	opts := sc.options()
	rd := reading(nil)
	res, err := checker.CheckFiles(logFiles(day1, gz...), opts, rd)
	if err != nil {
		t.Fatalf("%s: %d files, the last cut at %d: %v", sc.name, k, at, err)
	}
	if res.Checkpoint == nil {
		return false
	}
	cp := reread(t, res.Checkpoint)
	for _, readAt := range []bool{false, true} {
		opts = sc.options()
		rd := reading(cp)
		files := logFiles(parts, gz...)
		if readAt {
			files = withAt(files)
		}
		res, err = checker.CheckFiles(files, opts, rd)
		if err != nil {
			t.Fatalf("%s: %d files, the last cut at %d (At %t): resuming: %v", sc.name, k, at, readAt, err)
		}
		got := outputsOf(t, res)
		where := fmt.Sprintf("%s (files of %v bytes) resumed from %d files, the last cut at %d (At %t)", sc.name, lens(parts), k, at, readAt)
		if !bytes.Equal(got.doc, full.doc) {
			t.Fatalf("%s: the document differs from a full check's:\n%s\nvs\n%s", where, got.doc, full.doc)
		}
		if !bytes.Equal(got.text, full.text) {
			t.Fatalf("%s: the text differs from a full check's:\n%s\nvs\n%s", where, got.text, full.text)
		}
		if !bytes.Equal(got.state, full.state) || got.why != full.why {
			t.Fatalf("%s: the checkpoint (%d bytes, %q) differs from a full check's (%d bytes, %q)", where, len(got.state), got.why, len(full.state), full.why)
		}
	}
	return true
}

func lens(parts [][]byte) []int {
	n := make([]int, len(parts))
	for i, p := range parts {
		n[i] = len(p)
	}
	return n
}

// TestCheckpointSplitFiles cuts each log into two or three files at random
// line ends (a rotated log, about a third of its files compressed), then takes a checkpoint of a prefix of those
// files, the last of them cut at a random line end, a random byte, its
// start or its end (a file boundary), and requires the check of all the
// files resumed from it to give a full check's snapshot, violations, text
// and next checkpoint, byte for byte. The brake log puts retry-brake
// warnings, which a checkpoint keeps, in every file.
func TestCheckpointSplitFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	brakeDef, brake := brakeLog(12)
	cases := append(splitCases(t), splitCase{name: "brake", log: brake, opts: checker.Options{Definition: brakeDef, Now: corpusNow, File: "brake"}})
	resumed, boundaries, warned := 0, 0, 0
	for _, sc := range cases {
		var ends []int
		for i, c := range sc.log {
			if c == '\n' && i+1 < len(sc.log) {
				ends = append(ends, i+1)
			}
		}
		if len(ends) < 2 {
			continue
		}
		for range 4 {
			var cuts []int
			for range 1 + rng.IntN(2) {
				cuts = append(cuts, ends[rng.IntN(len(ends))])
			}
			if len(cuts) == 2 && cuts[0] > cuts[1] {
				cuts[0], cuts[1] = cuts[1], cuts[0]
			}
			parts := cutAt(sc.log, cuts...)
			var gz []int // files compressed, as far as the checker can tell
			for i := range parts {
				if rng.IntN(3) == 0 {
					gz = append(gz, i)
				}
			}
			opts := sc.options()
			opts.File = "rotated"
			rd := reading(nil)
			res, err := checker.CheckFiles(logFiles(parts, gz...), opts, rd)
			if err != nil {
				t.Fatal(err)
			}
			full := outputsOf(t, res)
			if res.Snapshot != nil && len(res.Snapshot.Warnings) > 0 {
				warned++
			}
			sc := sc
			sc.opts.File = "rotated"
			for k := 1; k <= len(parts); k++ {
				last := parts[k-1]
				points := []int{0, len(last), rng.IntN(len(last) + 1)}
				from := rng.IntN(len(last) + 1)
				if i := bytes.IndexByte(last[from:], '\n'); i >= 0 {
					points = append(points, from+i+1) // a line end
				}
				for _, at := range points {
					if checkFilesSplit(t, sc, parts, gz, full, k, at) {
						resumed++
						if at == len(last) && k < len(parts) {
							boundaries++
						}
					}
				}
			}
		}
	}
	if resumed < 500 || boundaries < 200 || warned < 4 {
		t.Fatalf("%d splits resumed, %d at a file boundary, %d logs with warnings: too few to show anything", resumed, boundaries, warned)
	}
}

// TestCheckpointFilesMismatch lists what does not fit a checkpoint of a log
// of several files, with the exact error, and what leaves no checkpoint.
func TestCheckpointFilesMismatch(t *testing.T) {
	def := corpusDefinition(t)
	log := generatedLog(20)
	cut := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	parts := cutAt(log, cut)
	opts := checker.Options{Definition: def, Now: corpusNow, File: "rotated"}
	rd := checker.Reading{Checkpoint: true}
	res, err := checker.CheckFiles(logFiles(parts), opts, rd)
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	cp := reread(t, res.Checkpoint)
	more := []byte(`{"run_id":"new","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}` + "\n")
	grown := append(bytes.Clone(parts[0]), more...)
	rewritten := bytes.Clone(parts[1])
	rewritten[3] = 'X'
	for _, tc := range []struct {
		name  string
		files []checker.LogFile
		want  string
	}{
		{"fewer files", logFiles(parts[1:]),
			fmt.Sprintf("the checkpoint does not fit part-2.jsonl at byte offset %d: it read 2 files, and the log has 1 now (rotated away)", len(parts[1]))},
		{"the last file gone", logFiles(parts[:1]),
			fmt.Sprintf("the checkpoint does not fit part-2.jsonl at byte offset %d: it read 2 files, and the log has 1 now (rotated away)", len(parts[1]))},
		{"an earlier file grew", logFiles([][]byte{grown, parts[1], more}),
			fmt.Sprintf("the checkpoint does not fit part-1.jsonl at byte offset %d: the file grew after the checkpoint, and only the last file it read may (the log's later lines would move)", cut)},
		{"a file rewritten", logFiles([][]byte{parts[0], rewritten, more}),
			fmt.Sprintf("the checkpoint does not fit part-2.jsonl at byte offset %d: its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", len(parts[1]), len(parts[1]))},
		{"a file truncated", logFiles([][]byte{parts[0][:cut-1], parts[1]}),
			fmt.Sprintf("the checkpoint does not fit part-1.jsonl at byte offset %d: the file has only %d bytes (truncated, or rotated away)", cut, cut-1)},
		{"a file compressed since, its text rewritten", logFiles([][]byte{parts[0], rewritten, more}, 1),
			fmt.Sprintf("the checkpoint does not fit part-2.jsonl.gz at byte offset %d: its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", len(parts[1]), len(parts[1]))},
		{"the last file truncated", logFiles([][]byte{parts[0], parts[1][:len(parts[1])-1]}),
			fmt.Sprintf("the checkpoint does not fit part-2.jsonl at byte offset %d: the file has only %d bytes (truncated, or rotated away)", len(parts[1]), len(parts[1])-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, files := range [][]checker.LogFile{tc.files, withAt(tc.files)} {
				for _, f := range files {
					f.R.(*bytes.Reader).Seek(0, io.SeekStart) // read afresh
				}
				o, ro := opts, checker.Reading{Checkpoint: true, Resume: cp}
				_, err := checker.CheckFiles(files, o, ro)
				var mis *checker.CheckpointError
				if !errors.As(err, &mis) || !mis.Mismatch || err.Error() != tc.want {
					t.Fatalf("err = %v (At %t), want the mismatch %q", err, files[0].At != nil, tc.want)
				}
			}
		})
	}
	// A log of one file, read at an offset: rewritten, truncated, or
	// damaged in its fold state (a damaged checkpoint, never a mismatch).
	one, err := checker.CheckFiles(logFiles(parts[:1]), opts, rd)
	if err != nil || one.Checkpoint == nil {
		t.Fatalf("no checkpoint of one file: %v", err)
	}
	var oneFile bytes.Buffer
	if _, err := one.Checkpoint.WriteTo(&oneFile); err != nil {
		t.Fatal(err)
	}
	oneCP, err := checker.ParseCheckpoint(oneFile.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	rewritten0 := append(bytes.Clone(parts[0]), more...)
	rewritten0[5] = 'Y'
	for _, tc := range []struct {
		name string
		log  []byte
		want string
	}{
		{"rewritten", rewritten0, fmt.Sprintf("the checkpoint does not fit rotated at byte offset %d: its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", cut, cut)},
		{"truncated", parts[0][:cut-2], fmt.Sprintf("the checkpoint does not fit rotated at byte offset %d: the log has only %d bytes (truncated, or rotated away)", cut, cut-2)},
	} {
		o, ro := opts, checker.Reading{Checkpoint: true, Resume: oneCP}
		_, err := checker.CheckFiles(withAt([]checker.LogFile{{Path: "rotated", R: bytes.NewReader(tc.log)}}), o, ro)
		if err == nil || err.Error() != tc.want {
			t.Errorf("one file %s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A file compressed since the checkpoint, and a compressed file after
	// the checkpoint's, resume: the text is what a checkpoint proves. The
	// result is a full check's of the same files, checkpoint included.
	now := logFiles([][]byte{parts[0], parts[1], more}, 0, 2)
	full, err := checker.CheckFiles(now, opts, rd)
	if err != nil {
		t.Fatal(err)
	}
	o, ro := opts, checker.Reading{Checkpoint: true, Resume: cp}
	res, err = checker.CheckFiles(logFiles([][]byte{parts[0], parts[1], more}, 0, 2), o, ro)
	if err != nil {
		t.Fatal(err)
	}
	got, want := outputsOf(t, res), outputsOf(t, full)
	if !bytes.Equal(got.doc, want.doc) || !bytes.Equal(got.state, want.state) || got.why != "" {
		t.Fatalf("resumed with compressed files: document or checkpoint differs from a full check's (%q):\n%s\nvs\n%s", got.why, got.doc, want.doc)
	}
	if !bytes.Contains(got.doc, []byte(`"path": "part-1.jsonl.gz",`)) || !bytes.Contains(got.doc, []byte(`"compression": "gzip"`)) {
		t.Fatalf("source.files does not list part-1.jsonl.gz as gzip:\n%s", got.doc)
	}
}
