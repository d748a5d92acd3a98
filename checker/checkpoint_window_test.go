package checker_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestCheckpointSplitWindow cuts checks with --window (docs/window.md) at
// random line ends and bytes, as TestCheckpointSplit does: logs of
// 20,000 runs whose store is swept several times while they are read (a
// day of 90 s runs, a run count, a schedule with its stubs), a log whose
// late events meet folded runs, and every split case with a window of 1s,
// which folds nearly every ended run. The resumed document, text and next
// checkpoint must be the bytes of a full check with the same window.
func TestCheckpointSplitWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	linear := definitionFile(t, "testdata/window/linear.yaml")
	scheduled := definitionFile(t, "testdata/window/scheduled.yaml")
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	logEnd := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(20060 * time.Minute)
	window := func(s string) checker.Window {
		w, err := checker.ParseWindow(s)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	late := lateBase + padding(17000) +
		`{"run_id":"r-1","stage":2,"attempt":2,"status":"started","timestamp_utc":"2026-01-06T00:00:00Z"}` + "\n"
	// r-1's attempt ids stay known after the window folds it: r-2's reuse
	// of a-1 is duplicate_attempt_id, naming r-1.
	ids := `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","attempt_id":"a-1"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:02:00Z","attempt_id":"a-2"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:03:00Z"}
{"run_id":"r-1","stage":3,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:03:30Z","attempt_id":"a-4"}
{"run_id":"r-1","stage":3,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:04:00Z"}
{"run_id":"r-2","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-05T10:00:00Z","attempt_id":"a-3"}
{"run_id":"r-2","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-05T10:01:00Z"}
{"run_id":"r-2","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-05T10:02:00Z","attempt_id":"a-1"}
`
	type wcase struct {
		sc     splitCase
		points int
		folded bool // most runs must be folded at the end
	}
	cases := []wcase{
		{splitCase{name: "a day of 90 s runs", log: genLog(1, 20000, 3, 3, 90*time.Second, false), opts: checker.Options{Definition: linear, Now: now, File: "log.jsonl", Window: window("1d")}}, 6, true},
		{splitCase{name: "a run count", log: genLog(3, 20000, 3, 5, 90*time.Second, false), opts: checker.Options{Definition: linear, Now: now, File: "log.jsonl", Window: window("2000runs")}}, 6, true},
		{splitCase{name: "a schedule", log: genLog(5, 20000, 2, 1, time.Minute, true), opts: checker.Options{Definition: scheduled, Now: logEnd, File: "log.jsonl", Window: window("12h")}}, 6, true},
		{splitCase{name: "attempt ids", log: []byte(ids), opts: checker.Options{Definition: linear, Now: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), File: "ids.jsonl", Window: window("1d")}}, 8, false},
		{splitCase{name: "late events", log: []byte(late), opts: checker.Options{Definition: linear, Now: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), File: "late.jsonl", Window: window("1d")}}, 4, true},
	}
	for _, sc := range splitCases(t) {
		if sc.jobLog != nil {
			continue // --window cannot be combined with a job log
		}
		sc.opts.Window = window("1s")
		sc.name += " --window 1s"
		cases = append(cases, wcase{sc: sc, points: 6})
	}
	resumed, folded := 0, 0
	for _, wc := range cases {
		sc := wc.sc
		opts := sc.options()
		rd := reading(nil)
		res, err := checkRead(bytes.NewReader(sc.log), opts, rd)
		if err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		if wc.folded {
			if res.Snapshot == nil && !strings.HasPrefix(sc.name, "late") {
				t.Fatalf("%s: invalid", sc.name)
			}
			if s := res.Snapshot; s != nil && s.Window.FoldedRunCount < s.RunCount/2 {
				t.Fatalf("%s: only %d of %d runs folded", sc.name, s.Window.FoldedRunCount, s.RunCount)
			}
		}
		if s := res.Snapshot; s != nil {
			folded += s.Window.FoldedRunCount
		}
		full := outputsOf(t, res)
		var ends []int
		for i, c := range sc.log {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
		points := []int{0, len(sc.log)}
		if n := len(ends); n > 1 {
			points = append(points, ends[n-2]) // one line before the end
		}
		for range wc.points {
			if len(ends) > 0 {
				points = append(points, ends[rng.IntN(len(ends))])
			}
			points = append(points, rng.IntN(len(sc.log)+1))
		}
		for _, at := range points {
			if checkSplit(t, sc, full, at) {
				resumed++
			}
		}
	}
	if resumed < 300 || folded < 30000 {
		t.Fatalf("only %d splits left a checkpoint to resume from, and %d runs were folded", resumed, folded)
	}
}

// TestCheckpointWindowMismatch: a checkpoint written with one window fits
// no check with another or without one, and one written without a window
// fits no check with one: the mismatch names --window.
func TestCheckpointWindowMismatch(t *testing.T) {
	def := corpusDefinition(t)
	log := generatedLog(20)
	half := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	for _, c := range []struct{ wrote, resumed string }{{"1d", "2d"}, {"1d", ""}, {"", "5runs"}, {"5runs", "1d"}} {
		t.Run(c.wrote+" then "+c.resumed, func(t *testing.T) {
			opts := checker.Options{Definition: def, Now: corpusNow, File: "events.jsonl"}
			rd := checker.Reading{Checkpoint: true}
			for _, w := range []struct {
				s   string
				set *checker.Window
			}{{c.wrote, &opts.Window}} {
				if w.s != "" {
					var err error
					if *w.set, err = checker.ParseWindow(w.s); err != nil {
						t.Fatal(err)
					}
				}
			}
			res, err := checkRead(bytes.NewReader(log[:half]), opts, rd)
			if err != nil || res.Checkpoint == nil {
				t.Fatalf("no checkpoint: %v", err)
			}
			rd.Resume = reread(t, res.Checkpoint)
			opts.Window = checker.Window{}
			if c.resumed != "" {
				if opts.Window, err = checker.ParseWindow(c.resumed); err != nil {
					t.Fatal(err)
				}
			}
			_, err = checkRead(bytes.NewReader(log), opts, rd)
			want := fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: it was written under other options: --window differs", half)
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v, want %s", err, want)
			}
		})
	}
}
