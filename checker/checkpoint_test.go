package checker_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// splitCase is a log and the options it is checked with; jobLog, when not
// nil, is given to every check afresh.
type splitCase struct {
	name   string
	log    []byte
	opts   checker.Options
	jobLog []byte
}

// splitPieceBytes is the proof piece of the split tests' checkpoints: a
// few lines of a log, so that a prefix is many pieces and a cut falls
// anywhere in one.
const splitPieceBytes = 97

func (sc splitCase) options() checker.Options {
	o := sc.opts
	if sc.jobLog != nil {
		o.JobLog = bytes.NewReader(sc.jobLog)
	}
	return o
}

// reading is how the split tests read: writing a checkpoint of
// splitPieceBytes pieces, resumed from cp when it is not nil.
func reading(cp *checker.Checkpoint) checker.Reading {
	return checker.WithPieceSize(checker.Reading{Checkpoint: true, Resume: cp}, splitPieceBytes)
}

// checkRead is Check of r read as rd says.
func checkRead(r io.Reader, opts checker.Options, rd checker.Reading) (*checker.Result, error) {
	return checker.CheckFiles([]checker.LogFile{{Path: opts.File, R: r}}, opts, rd)
}

// checked is what a check gives the shells: the JSON document (snapshot or
// violations), the text output of a valid log followed by its OpenMetrics
// text, and the checkpoint's bytes.
type checked struct {
	doc, text, state []byte
	why              string
}

func outputsOf(t testing.TB, res *checker.Result) checked {
	t.Helper()
	var out checked
	var err error
	if res.Snapshot == nil {
		out.doc, err = render.JSON(res.Report)
	} else {
		// The text and the metrics first: they read the runs' heads and
		// the listed runs alone, which a resumed check decodes lazily; the
		// document decodes every run.
		var b, m bytes.Buffer
		if err = render.WriteText(&b, res.Snapshot); err == nil {
			err = render.WriteOpenMetrics(&m, []render.Log{{Pipeline: "p", Result: res}}, render.OpenMetricsOptions{})
		}
		out.text = append(b.Bytes(), m.Bytes()...)
		if err == nil {
			out.doc, err = render.JSON(res.Snapshot)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	out.why = res.NoCheckpoint
	if res.Checkpoint != nil {
		out.state = stateOf(t, res.Checkpoint)
	}
	return out
}

// stateOf is the bytes cp's file holds (Checkpoint.WriteTo).
func stateOf(t testing.TB, cp *checker.Checkpoint) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := cp.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// reread is cp as the next check reads it back from its file.
func reread(t testing.TB, cp *checker.Checkpoint) *checker.Checkpoint {
	t.Helper()
	parsed, err := checker.ParseCheckpoint(stateOf(t, cp))
	if err != nil {
		t.Fatalf("the checkpoint written does not parse: %v", err)
	}
	return parsed
}

// checkSplit checks log[:at] with a checkpoint and, when one was written,
// the whole log resumed from it, and requires the resumed outputs to equal
// full's, the whole log's own (checkpoint bytes included). It reports
// whether the prefix left a checkpoint.
func checkSplit(t testing.TB, sc splitCase, full checked, at int) bool {
	t.Helper()
	opts := sc.options()
	res, err := checkRead(bytes.NewReader(sc.log[:at]), opts, reading(nil))
	if err != nil {
		t.Fatalf("%s split at %d: %v", sc.name, at, err)
	}
	if res.Checkpoint == nil {
		return false
	}
	cp := reread(t, res.Checkpoint)
	opts = sc.options()
	res, err = checkRead(bytes.NewReader(sc.log), opts, reading(cp))
	if err != nil {
		t.Fatalf("%s split at %d: resuming: %v", sc.name, at, err)
	}
	got := outputsOf(t, res)
	if !bytes.Equal(got.doc, full.doc) {
		t.Fatalf("%s split at %d: the resumed document differs from a full check's:\n%s\nvs\n%s", sc.name, at, got.doc, full.doc)
	}
	if !bytes.Equal(got.text, full.text) {
		t.Fatalf("%s split at %d: the resumed text differs from a full check's:\n%s\nvs\n%s", sc.name, at, got.text, full.text)
	}
	if !bytes.Equal(got.state, full.state) || got.why != full.why {
		t.Fatalf("%s split at %d: the resumed checkpoint (%d bytes, %q) differs from a full check's (%d bytes, %q)", sc.name, at, len(got.state), got.why, len(full.state), full.why)
	}
	// The log read at an offset (LogFile.At), its old part proven
	// meanwhile, gives the same bytes.
	opts = sc.options()
	res, err = checker.CheckFiles(withAt([]checker.LogFile{{Path: opts.File, R: bytes.NewReader(sc.log)}}), opts, reading(cp))
	if err != nil {
		t.Fatalf("%s split at %d: resuming at an offset: %v", sc.name, at, err)
	}
	if o := outputsOf(t, res); !bytes.Equal(o.doc, got.doc) || !bytes.Equal(o.text, got.text) || !bytes.Equal(o.state, got.state) || o.why != got.why {
		t.Fatalf("%s split at %d: resumed at an offset, the outputs differ from a full check's:\n%s\nvs\n%s", sc.name, at, o.doc, got.doc)
	}
	return true
}

// splitCases are the logs the split test cuts: the corpus, the recovery
// and sample logs, every rule test and a generated log of many runs.
func splitCases(t *testing.T) []splitCase {
	var cases []splitCase
	def := corpusDefinition(t)
	logs, _ := filepath.Glob("../testdata/logs/*.jsonl")
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, splitCase{name: path, log: data, opts: checker.Options{Definition: def, Now: corpusNow, File: path}})
	}
	read := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cases = append(cases,
		splitCase{name: "recovery", log: read("../testdata/recovery/orders_daily.jsonl"), jobLog: read("../testdata/recovery/orders_daily.joblog.jsonl"),
			opts: checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: "orders_daily.jsonl", JobLogFile: "joblog"}},
		// The run's close: every result code, a second close request and
		// an audit completion (its state is in the checkpoint).
		splitCase{name: "close", log: read("../testdata/recovery/close.jsonl"),
			opts: checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: "close.jsonl"}},
		// Requests: a stale one, one settled by a reconciled request, and
		// requests linked to their runs by claims and by run events.
		splitCase{name: "stale request", log: read("../testdata/recovery/stale_request.jsonl"),
			opts: checker.Options{Definition: definitionFile(t, "../testdata/recovery/pipeline.yaml"), Now: corpusNow, File: "stale_request.jsonl"}},
		splitCase{name: "sample", log: read("../testdata/sample/campaign_metrics.jsonl"),
			opts: checker.Options{Definition: definitionFile(t, "../testdata/sample/pipeline.yaml"), Now: time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC), File: "sample"}},
		splitCase{name: "generated", log: generatedLog(400), opts: checker.Options{Definition: def, Now: corpusNow, File: "generated"}},
		// The verdict of the latest run alone, judged from the heads.
		splitCase{name: "generated, gate latest", log: generatedLog(400), opts: checker.Options{Definition: def, Now: corpusNow, File: "generated", Gate: checker.GateLatest}},
	)
	paths, _ := filepath.Glob("testdata/rules/*.txtar")
	for _, path := range paths {
		rc := readRuleCase(t, path)
		cases = append(cases, splitCase{name: path, log: rc.log, opts: rc.opts})
	}
	return cases
}

// generatedLog writes runs interleaved two at a time, with retries,
// failures and runs left in progress, against the corpus definition.
func generatedLog(runs int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tick := func() string {
		at = at.Add(time.Duration(1+rng.IntN(90)) * time.Second)
		return at.Format(time.RFC3339)
	}
	for r := 0; r < runs; r += 2 {
		for stage := 1; stage <= 2; stage++ {
			for _, id := range []string{fmt.Sprintf("g-%d", r), fmt.Sprintf("g-%d", r+1)} {
				if stage == 2 && strings.HasSuffix(id, "7") {
					continue // stage 1 of every run ending in 7 is still running
				}
				for attempt := 1; ; attempt++ {
					fmt.Fprintf(&b, `{"run_id":%q,"stage":%d,"attempt":%d,"status":"started","timestamp_utc":%q}`+"\n", id, stage, attempt, tick())
					if stage == 1 && strings.HasSuffix(id, "7") {
						break
					}
					if attempt < 3 && rng.IntN(3) == 0 {
						fmt.Fprintf(&b, `{"run_id":%q,"stage":%d,"attempt":%d,"status":"failed","timestamp_utc":%q,"returncode":%d,"error":"err %d"}`+"\n", id, stage, attempt, tick(), 1+rng.IntN(2), rng.IntN(3))
						continue
					}
					fmt.Fprintf(&b, `{"run_id":%q,"stage":%d,"attempt":%d,"status":"succeeded","timestamp_utc":%q,"returncode":0}`+"\n", id, stage, attempt, tick())
					break
				}
			}
		}
	}
	return []byte(b.String())
}

// TestCheckpointSplit cuts each log at every line end (or, for long logs,
// at 64 random line ends) and at random bytes, checks the prefix with a
// checkpoint and the whole log resumed from it, and requires the snapshot,
// the violations, the text output and the next checkpoint to be the bytes
// of a full check.
func TestCheckpointSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	resumed := 0
	for _, sc := range splitCases(t) {
		opts := sc.options()
		res, err := checkRead(bytes.NewReader(sc.log), opts, reading(nil))
		if err != nil {
			t.Fatal(err)
		}
		full := outputsOf(t, res)
		var ends []int
		for i, c := range sc.log {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
		points := append([]int{0, len(sc.log)}, ends...)
		if len(ends) > 64 {
			points = points[:2]
			for range 64 {
				points = append(points, ends[rng.IntN(len(ends))])
			}
		}
		for range 8 {
			points = append(points, rng.IntN(len(sc.log)+1))
		}
		for _, at := range points {
			if checkSplit(t, sc, full, at) {
				resumed++
			}
		}
	}
	if resumed < 300 {
		t.Fatalf("only %d splits left a checkpoint to resume from", resumed)
	}
}

// TestCheckpointNoFinalNewline: a log whose last line has no newline leaves
// no checkpoint, and says why.
func TestCheckpointNoFinalNewline(t *testing.T) {
	log := generatedLog(2)
	res, err := checkRead(bytes.NewReader(bytes.TrimSuffix(log, []byte("\n"))), checker.Options{Definition: corpusDefinition(t), Now: corpusNow}, checker.Reading{Checkpoint: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || res.Checkpoint != nil {
		t.Fatalf("snapshot %v, checkpoint %v: want a snapshot and no checkpoint", res.Snapshot != nil, res.Checkpoint != nil)
	}
	if want := "the log's last line has no newline, and a line may still be being written: the next check could not tell"; res.NoCheckpoint != want {
		t.Fatalf("NoCheckpoint = %q, want %q", res.NoCheckpoint, want)
	}
}

// TestCheckpointMismatch lists what makes a checkpoint not fit: the exact
// *CheckpointError text of each (a mismatch or a damaged checkpoint).
func TestCheckpointMismatch(t *testing.T) {
	def := corpusDefinition(t)
	log := generatedLog(20)
	half := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	opts := checker.Options{Definition: def, Now: corpusNow, File: "events.jsonl"}
	res, err := checkRead(bytes.NewReader(log[:half]), opts, checker.Reading{Checkpoint: true})
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v %q", err, res.NoCheckpoint)
	}
	state := stateOf(t, res.Checkpoint)
	parsed, err := checker.ParseCheckpoint(state)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(log[:half], []byte("\n"))
	if got, want := fmt.Sprintf("%+v", checker.CheckpointFiles(parsed)), fmt.Sprintf("[{File:events.jsonl Compression:none Offset:%d Lines:%d hashState:[", half, lines); !strings.HasPrefix(got, want) {
		t.Fatalf("Files() = %s, want %s...", got, want)
	}
	other, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2), checker.IntStage(3)})
	if err != nil {
		t.Fatal(err)
	}
	rewritten := bytes.Clone(log)
	rewritten[10] = 'X'
	damaged := bytes.Clone(state)
	damaged[len(damaged)/2] ^= 1
	for _, tc := range []struct {
		name  string
		state []byte
		log   []byte
		edit  func(*checker.Options)
		want  string
	}{
		{"rewritten prefix", state, rewritten, nil,
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: its first %d bytes are not the ones the checkpoint read (rewritten, or rotated)", half, half)},
		{"truncated log", state, log[:half-1], nil,
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: the log has only %d bytes (truncated, or rotated away)", half, half-1)},
		{"other definition", state, log, func(o *checker.Options) { o.Definition = other },
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: it was written under other options: the pipeline definition (stages, dependencies, schedule or thresholds) differs", half)},
		{"strict", state, log, func(o *checker.Options) { o.Strict = true },
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: it was written under other options: --strict differs", half)},
		{"other greenlight", state, log, func(o *checker.Options) { o.ToolVersion = "v9.9.9" },
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: it was written by greenlight devel, and this is greenlight v9.9.9", half)},
		{"earlier now", state, log, func(o *checker.Options) { o.Now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
			fmt.Sprintf("the checkpoint does not fit events.jsonl at byte offset %d: it holds an event at 2026-01-01T00:", half)},
		{"damaged", damaged, log, nil, "the checkpoint is unusable: its CRC-32C trailer does not match its contents (truncated or damaged)"},
		{"truncated checkpoint", state[:len(state)-1], log, nil, "the checkpoint is unusable: its CRC-32C trailer does not match its contents (truncated or damaged)"},
		{"not a checkpoint", []byte("{}\n"), log, nil, "the checkpoint is unusable: it is not a greenlight checkpoint (its first line is not greenlight.state/v6)"},
		{"other version", append([]byte("greenlight.state/v0\n"), state[20:]...), log, nil,
			"the checkpoint is unusable: it is a checkpoint of version \"greenlight.state/v0\", and this greenlight reads greenlight.state/v6 only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := checker.ParseCheckpoint(tc.state)
			if err == nil {
				o := opts
				if tc.edit != nil {
					tc.edit(&o)
				}
				_, err = checkRead(bytes.NewReader(tc.log), o, checker.Reading{Checkpoint: true, Resume: cp})
			}
			var bad *checker.CheckpointError
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want a mismatch or a bad checkpoint", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %q, want %q", err, tc.want)
			}
		})
	}
}

// TestCheckpointUnchanged: a check resumed from a checkpoint of the whole
// log gets that checkpoint back, so that a shell can leave its file alone;
// one more line gives a new one.
func TestCheckpointUnchanged(t *testing.T) {
	log := generatedLog(10)
	opts := checker.Options{Definition: corpusDefinition(t), Now: corpusNow}
	res, err := checkRead(bytes.NewReader(log), opts, checker.Reading{Checkpoint: true})
	if err != nil || res.Checkpoint == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	rd := checker.Reading{Checkpoint: true, Resume: reread(t, res.Checkpoint)}
	if res, err = checkRead(bytes.NewReader(log), opts, rd); err != nil || res.Checkpoint != rd.Resume {
		t.Fatalf("err %v; got a new checkpoint for a log that gained nothing", err)
	}
	more := append(bytes.Clone(log), `{"run_id":"new","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T11:00:00Z"}`+"\n"...)
	if res, err = checkRead(bytes.NewReader(more), opts, rd); err != nil || res.Checkpoint == nil || res.Checkpoint == rd.Resume {
		t.Fatalf("err %v; no new checkpoint for a log that gained a line", err)
	}
}
