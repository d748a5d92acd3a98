package checker_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// everyOutput renders res in every format a shell offers, the ones that
// read the runs' heads and the listed runs first (a resumed check decodes
// lazily) and the JSON document, which decodes every run, last.
func everyOutput(t *testing.T, res *checker.Result) [][]byte {
	t.Helper()
	s := res.Snapshot
	if s == nil {
		doc, err := render.JSON(res.Report)
		if err != nil {
			t.Fatal(err)
		}
		return [][]byte{doc}
	}
	logs := []render.Log{{Pipeline: "p", Path: "log.jsonl", Result: res}}
	var outs [][]byte
	add := func(f func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.Bytes())
	}
	add(func(b *bytes.Buffer) error { return render.WriteText(b, s) })
	add(func(b *bytes.Buffer) error {
		return render.WriteOpenMetrics(b, logs, render.OpenMetricsOptions{})
	})
	add(func(b *bytes.Buffer) error {
		return render.WriteMarkdownReport(b, s, render.MarkdownOptions{})
	})
	add(func(b *bytes.Buffer) error { return render.WriteSARIF(b, logs) })
	add(func(b *bytes.Buffer) error { return render.WriteJUnit(b, logs) })
	add(func(b *bytes.Buffer) error { return render.WriteGitLab(b, logs) })
	add(func(b *bytes.Buffer) error {
		return render.WriteTextOptions(b, s, render.TextOptions{List: render.ListOptions{All: true}})
	})
	add(func(b *bytes.Buffer) error {
		return render.WriteMarkdownReport(b, s, render.MarkdownOptions{List: render.ListOptions{All: true}})
	})
	doc, err := render.JSON(s)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, doc)
	if res.Checkpoint != nil {
		outs = append(outs, stateOf(t, res.Checkpoint))
	}
	return outs
}

// TestCheckpointResumedUnderOtherOptions: a checkpoint written by a check
// at one now, gate and job log, and resumed by a check with another now
// (running runs stalled, leases expired, slots missed), gate or job log
// (docs/state.md: they may change between checks), with a schedule and a
// window too, gives that check's full bytes in every output format, the
// next checkpoint included.
func TestCheckpointResumedUnderOtherOptions(t *testing.T) {
	later := func(d time.Duration) func(*checker.Options) {
		return func(o *checker.Options) { o.Now = o.Now.Add(d) }
	}
	variants := []struct {
		name string
		edit func(*checker.Options, *[]byte)
	}{
		{"same", func(*checker.Options, *[]byte) {}},
		{"now +2h", func(o *checker.Options, _ *[]byte) { later(2 * time.Hour)(o) }},
		{"now +400d", func(o *checker.Options, _ *[]byte) { later(400 * 24 * time.Hour)(o) }},
		{"gate latest", func(o *checker.Options, _ *[]byte) { o.Gate = checker.GateLatest }},
		{"gate latest, now +2h", func(o *checker.Options, _ *[]byte) { o.Gate = checker.GateLatest; later(2 * time.Hour)(o) }},
		{"no job log", func(o *checker.Options, j *[]byte) { *j = nil; o.JobLogFile = "" }},
		{"gate latest, now +400d", func(o *checker.Options, _ *[]byte) { o.Gate = checker.GateLatest; later(400 * 24 * time.Hour)(o) }},
	}
	var cases []splitCase
	for _, sc := range splitCases(t) {
		switch sc.name {
		case "recovery", "sample", "generated", "generated, gate latest":
			cases = append(cases, sc)
		}
	}
	leased := `{"run_id":"quiet","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:00:00Z"}` + "\n" +
		`{"run_id":"leased","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-02T00:00:10Z","attempt_id":"l-1","owner":"w","lease_expires_at":"2026-01-02T00:30:00Z"}` + "\n"
	lin, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		splitCase{name: "leased", log: append(lazyLog(0, 20, leased), lazyLog(100, 1, "")...),
			opts: checker.Options{Definition: lin, Now: time.Date(2026, 1, 2, 0, 5, 0, 0, time.UTC), File: "log"}},
		splitCase{name: "leased, job log", log: append(lazyLog(0, 20, leased), lazyLog(100, 1, "")...),
			jobLog: []byte(`{"attempt_id":"l-1","result":"FAILED","timestamp_utc":"2026-01-02T00:01:00Z"}` + "\n"),
			opts:   checker.Options{Definition: lin, Now: time.Date(2026, 1, 2, 0, 5, 0, 0, time.UTC), File: "log", JobLogFile: "joblog"}},
	)
	resumed := 0
	scheduled := definitionFile(t, "testdata/window/scheduled.yaml")
	linear := definitionFile(t, "testdata/window/linear.yaml")
	schedEnd := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(300 * time.Minute)
	day, err := checker.ParseWindow("1h")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		// Missed and overdue slots, judged at the resumed check's now.
		splitCase{name: "a schedule", log: genLog(5, 300, 2, 1, time.Minute, true),
			opts: checker.Options{Definition: scheduled, Now: schedEnd, File: "log.jsonl"}},
		splitCase{name: "a schedule, --window 1h", log: genLog(5, 300, 2, 1, time.Minute, true),
			opts: checker.Options{Definition: scheduled, Now: schedEnd, File: "log.jsonl", Window: day}},
		splitCase{name: "--window 1h", log: genLog(1, 300, 2, 3, 90*time.Second, false),
			opts: checker.Options{Definition: linear, Now: schedEnd.Add(200 * time.Minute), File: "log.jsonl", Window: day}},
	)
	for _, sc := range cases {
		var ends []int
		for i, c := range sc.log {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
		step := max(1, len(ends)/12)
		for _, v := range variants {
			// The check resumed, and the full check it must equal,
			// under the variant's options.
			vc := sc
			v.edit(&vc.opts, &vc.jobLog)
			res, err := checkRead(bytes.NewReader(vc.log), vc.options(), reading(nil))
			if err != nil {
				t.Fatalf("%s, %s: %v", sc.name, v.name, err)
			}
			full := everyOutput(t, res)
			for k := 0; k < len(ends); k += step {
				at := ends[k]
				// The checkpoint, written under the case's own options.
				res, err := checkRead(bytes.NewReader(sc.log[:at]), sc.options(), reading(nil))
				if err != nil {
					t.Fatalf("%s at %d: %v", sc.name, at, err)
				}
				if res.Checkpoint == nil {
					continue // an invalid prefix: nothing to resume from
				}
				resumed++
				res, err = checkRead(bytes.NewReader(vc.log), vc.options(), reading(reread(t, res.Checkpoint)))
				if err != nil {
					t.Fatalf("%s, %s, at %d: resuming: %v", sc.name, v.name, at, err)
				}
				got := everyOutput(t, res)
				if len(got) != len(full) {
					t.Fatalf("%s, %s, at %d: %d outputs, want %d", sc.name, v.name, at, len(got), len(full))
				}
				for i := range got {
					if !bytes.Equal(got[i], full[i]) {
						t.Fatalf("%s, %s, at %d: resumed output %d differs from a full check's:\n%s\nvs\n%s", sc.name, v.name, at, i, got[i], full[i])
					}
				}
			}
		}
	}
	if resumed < 200 {
		t.Fatalf("only %d checks resumed", resumed)
	}
}
