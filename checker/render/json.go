package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// JSON encodes a snapshot, a violations report or any document greenlight
// writes: keys in struct order, two-space indent, HTML characters escaped,
// one trailing newline. Same value, same bytes, on every platform. A
// snapshot is written as WriteSnapshotJSON writes it, with one compact
// line per run.
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if s, ok := v.(*checker.Snapshot); ok {
		if err := WriteSnapshotJSON(&b, s); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteSnapshotJSON writes the health snapshot document: its keys indented
// by two spaces, as JSON writes any document, except the runs, which are
// one compact JSON object per line (a snapshot can hold hundreds of
// thousands of runs: a line per run halves its size and keeps it easy to
// grep and diff). The runs are encoded one at a time through the snapshot's run views,
// so a snapshot of millions of runs is never held in memory as one
// document. It returns the first write error.
func WriteSnapshotJSON(w io.Writer, s *checker.Snapshot) error {
	return writeSnapshot(w, s, func(item func(dst []byte, i int, r *checker.RunReport) []byte, flush func([]byte) error) error {
		return views(s).EncodeRuns(item, flush)
	})
}

// WriteSnapshotSubset writes the snapshot document as WriteSnapshotJSON
// does, but lists only the runs keep accepts; keep sees every run, in
// order, on the calling goroutine. The result is a view of the snapshot,
// not the snapshot: run_count and state_counts still count every run. The
// browser viewer asks for one, since it lists a few hundred runs at most.
func WriteSnapshotSubset(w io.Writer, s *checker.Snapshot, keep func(*checker.RunReport) bool) error {
	return writeSnapshot(w, s, func(item func(dst []byte, i int, r *checker.RunReport) []byte, flush func([]byte) error) error {
		var err error
		var b []byte
		n := 0
		for r := range s.Runs() {
			if keep(r) {
				b = item(b[:0], n, r)
				if err = flush(b); err != nil {
					return err
				}
				n++
			}
		}
		return err
	})
}

// directWrite is the size from which writeSnapshot hands the bytes of
// runs to its writer as they are instead of through its buffer (32 KiB).
const directWrite = 32 << 10

// writeSnapshot writes the document's keys, then has runs write the runs:
// item appends run r's bytes as the i-th item of the list to dst (it may
// be called on several goroutines at once), and runs hands them to flush
// in order.
func writeSnapshot(w io.Writer, s *checker.Snapshot, runs func(item func(dst []byte, i int, r *checker.RunReport) []byte, flush func([]byte) error) error) error {
	head := *s
	runview.SetRuns(&head, []checker.RunReport(nil))
	doc, err := JSON(head)
	if err != nil {
		return err
	}
	const tail = "[]\n}\n"
	if !bytes.HasSuffix(doc, []byte(tail)) {
		return fmt.Errorf("render: the snapshot document does not end with its runs")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:len(doc)-len(tail)])
	n := 0
	err = runs(func(b []byte, i int, r *checker.RunReport) []byte {
		if i == 0 {
			b = append(b, "[\n    "...)
		} else {
			b = append(b, ",\n    "...)
		}
		return appendRun(b, r)
	}, func(b []byte) error {
		n++
		if len(b) < directWrite {
			_, err := bw.Write(b)
			return err
		}
		// A chunk of runs is written as it is, not copied through bw.
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		bw.WriteString(tail)
	} else {
		bw.WriteString("\n  ]\n}\n")
	}
	return bw.Flush()
}
