package wasmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// nodeCase is one call of greenlightCheck and the native invocation it must
// agree with (nil for the js-only cases, which give want instead).
type nodeCase struct {
	name    string
	log     string
	options map[string]any
	jobLog  string // a job log the harness passes as options.job_log
	native  []string
	want    string // the expected error, for js-only cases
	// check, when set, judges the result instead of native and want.
	check func(t *testing.T, r nodeResult)
}

// nodeResult is what greenlightCheck returned for one case.
type nodeResult struct {
	Document      *string `json:"document"`
	View          *string `json:"view"`
	Error         *string `json:"error"`
	ProgressCalls []int64 `json:"progress_calls"`
	// Valid says whether Document (or View) is a snapshot; the viewer reads
	// it instead of looking into the JSON.
	Valid *bool `json:"valid"`
}

// TestJSModuleUnderNode: under node, greenlightCheck returns, for every log
// under testdata/ (with and without a job log), the bytes "greenlight check
// --format json" prints, and for a bad request the message the CLI prints
// before exiting 2.
func TestJSModuleUnderNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WebAssembly module and runs node; skipped with -short")
	}
	var cases []nodeCase
	for _, inv := range corpus(t) {
		call, ok := toJS(t, inv)
		if !ok {
			continue
		}
		cases = append(cases, nodeCase{name: inv.name, log: call.Log, options: call.Options, jobLog: call.JobLog, native: inv.args})
	}
	sample := root + "/testdata/sample/campaign_metrics.jsonl"
	jobLog := root + "/testdata/recovery/orders_daily.joblog.jsonl"
	notJobLog := root + "/testdata/sample/pipeline.yaml"
	gzLog := root + "/testdata/compressed/retry_then_success.jsonl.gz"
	gzPipeline, err := os.ReadFile(root + "/testdata/logs/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		nodeCase{name: "stages, gate latest, stale after", log: sample,
			options: map[string]any{"stages": "1,2", "now": "2026-11-28T02:30:00Z", "gate": "latest", "stale_after_seconds": 600, "file": sample},
			native:  []string{"check", sample, "--stages", "1,2", "--now", "2026-11-28T02:30:00Z", "--gate", "latest", "--stale-after-seconds", "600", "--format", "json"}},
		nodeCase{name: "no stages", log: sample, options: map[string]any{"now": "2026-11-28T02:30:00Z"},
			native: []string{"check", sample, "--now", "2026-11-28T02:30:00Z", "--format", "json"}},
		nodeCase{name: "bad now", log: sample, options: map[string]any{"stages": "1,2", "now": "yesterday"},
			native: []string{"check", sample, "--stages", "1,2", "--now", "yesterday", "--format", "json"}},
		nodeCase{name: "unknown input format", log: sample, options: map[string]any{"stages": "1,2", "input_format": "csv"},
			native: []string{"check", sample, "--stages", "1,2", "--input-format", "csv", "--format", "json"}},
		nodeCase{name: "openlineage with stages", log: sample, options: map[string]any{"stages": "1,2", "input_format": "openlineage"},
			native: []string{"check", sample, "--stages", "1,2", "--input-format", "openlineage", "--format", "json"}},
		nodeCase{name: "a job log that is not JSON Lines", log: sample,
			options: map[string]any{"stages": "1,2", "now": sampleNow, "file": sample, "job_log_file": notJobLog}, jobLog: notJobLog,
			native: []string{"check", sample, "--stages", "1,2", "--now", sampleNow, "--job-log", notJobLog, "--format", "json"}},
		nodeCase{name: "mistyped option", log: sample, options: map[string]any{"stages": "1,2", "stale_after_seconds": "600"},
			want: "greenlightCheck: option stale_after_seconds must be a whole number"},
		nodeCase{name: "fractional option", log: sample, options: map[string]any{"stages": "1,2", "max_violations": 1.5},
			want: "greenlightCheck: option max_violations must be a whole number"},
		// A given 0 is refused as by the CLI (checker.Request), not taken for the default.
		nodeCase{name: "a given 0", log: sample, options: map[string]any{"stages": "1,2", "max_line_bytes": 0},
			want: `--max-line-bytes "0": use a whole number from 1 to 1073741824`},
		nodeCase{name: "job log as text", log: sample, options: map[string]any{"stages": "1,2", "job_log": "{}"},
			want: "greenlightCheck: option job_log must be a Uint8Array"},
		nodeCase{name: "job log as an array", log: sample, options: map[string]any{"stages": "1,2", "job_log": []int{123, 125}},
			want: "greenlightCheck: option job_log must be a Uint8Array"},
		nodeCase{name: "job log name without a job log", log: sample, options: map[string]any{"stages": "1,2", "job_log_file": jobLog},
			want: "greenlightCheck: option job_log_file names a job log, but job_log holds none"},
		nodeCase{name: "digest not hex", log: sample, options: map[string]any{"stages": "1,2", "sha256": "xyz"},
			want: `checker: Reading.SHA256 "xyz" is not 64 lowercase hex digits`},
		nodeCase{name: "progress not a function", log: sample, options: map[string]any{"stages": "1,2", "progress": 5},
			want: "greenlightCheck: option progress must be a function"},
		nodeCase{name: "negative max_runs_per_state", log: sample, options: map[string]any{"stages": "1,2", "max_runs_per_state": -1},
			want: "greenlightCheck: option max_runs_per_state must be a whole number >= 0"},
		nodeCase{name: "the host's digest and progress", log: sample,
			options: map[string]any{"pipeline": samplePipeline(t), "now": sampleNow, "file": sample, "sha256": strings.Repeat("0f", 32), "progress": "record"},
			check: func(t *testing.T, r nodeResult) {
				want := native(t, invocation{args: []string{"check", sample, "--pipeline", root + "/testdata/sample/pipeline.yaml", "--now", sampleNow, "--format", "json"}}).stdout
				digest := regexp.MustCompile(`"sha256": "[0-9a-f]{64}"`)
				wantDoc := digest.ReplaceAllString(string(want), `"sha256": "`+strings.Repeat("0f", 32)+`"`)
				if r.Document == nil || *r.Document != wantDoc {
					t.Fatalf("document is not native's with the host's digest:\n%v", deref(r.Document, r.Error))
				}
				size, err := os.Stat(sample)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.ProgressCalls, []int64{size.Size()}) {
					t.Errorf("progress calls %v, want one with the log's size %d", r.ProgressCalls, size.Size())
				}
			}},
		nodeCase{name: "a compressed log's progress counts its own bytes", log: gzLog,
			options: map[string]any{"pipeline": string(gzPipeline), "now": "2026-01-01T12:00:00Z", "file": gzLog, "progress": "record"},
			check: func(t *testing.T, r nodeResult) {
				want := native(t, invocation{args: []string{"check", gzLog, "--pipeline", root + "/testdata/logs/pipeline.yaml", "--now", "2026-01-01T12:00:00Z", "--format", "json"}}).stdout
				if r.Document == nil || *r.Document != string(want) {
					t.Fatalf("document is not native's:\n%v", deref(r.Document, r.Error))
				}
				size, err := os.Stat(gzLog)
				if err != nil {
					t.Fatal(err)
				}
				// The text is longer than the file: counting it would pass 100 %.
				if !slices.Equal(r.ProgressCalls, []int64{size.Size()}) {
					t.Errorf("progress calls %v, want one with the compressed log's size %d", r.ProgressCalls, size.Size())
				}
			}},
		nodeCase{name: "a view of one run per state", log: sample,
			options: map[string]any{"pipeline": samplePipeline(t), "now": sampleNow, "file": sample, "max_runs_per_state": 1},
			check: func(t *testing.T, r nodeResult) {
				res := nativeCheck(t, sample, checker.Request{Pipeline: []byte(samplePipeline(t)), Now: sampleNow, File: sample})
				// The last run of each state (the latest, as the viewer lists
				// them latest first) and the latest run.
				seen := map[checker.RunState]int{}
				var want bytes.Buffer
				if err := render.WriteSnapshotSubset(&want, res.Snapshot, func(run *checker.RunReport) bool {
					seen[run.State]++
					return seen[run.State] == render.StateCount(res.Snapshot.StateCounts, string(run.State)) || run.RunID == *res.Snapshot.LatestRunID
				}); err != nil {
					t.Fatal(err)
				}
				if r.View == nil || *r.View != want.String() {
					t.Fatalf("view differs:\n%v\nwant\n%s", deref(r.View, r.Error), want.String())
				}
				if n := strings.Count(want.String(), `{"run_id":`); n != 3 {
					t.Errorf("the view lists %d runs, want 3 (succeeded, failed, stalled and latest)", n)
				}
			}},
	)
	if n := countJobLogCases(cases); n == 0 {
		t.Fatal("no corpus invocation passes a job log to the js module; the corpus lost its --job-log case")
	}

	calls := make([]jsCall, len(cases))
	for i, c := range cases {
		calls[i] = jsCall{Log: c.log, Options: c.options, JobLog: c.jobLog}
	}
	results := runNode(t, calls)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := results[i]
			if c.check != nil {
				c.check(t, r)
				return
			}
			if c.native == nil {
				if r.Error == nil || *r.Error != c.want {
					t.Fatalf("got %+v, want error %q", r, c.want)
				}
				return
			}
			compareJS(t, native(t, invocation{args: c.native}), r, slices.Contains(c.native, "--fail-on-unhealthy"))
		})
	}
}

// countJobLogCases counts the cases that give the js module a job log and
// compare it with the native CLI.
func countJobLogCases(cases []nodeCase) int {
	n := 0
	for _, c := range cases {
		if c.jobLog != "" && c.native != nil {
			n++
		}
	}
	return n
}

// jsCall is one call of greenlightCheck for the node harness: the log's
// path, the options, and the path of a job log the harness reads into
// options.job_log as a Uint8Array.
type jsCall struct {
	Log     string         `json:"log"`
	Options map[string]any `json:"options"`
	JobLog  string         `json:"job_log,omitempty"`
}

// toJS turns a "greenlight check LOG ... --format json" command line into
// the greenlightCheck call that asks the same, reading --pipeline's file
// into the pipeline option. It reports false for what the js module does
// not take: standard input, a directory, or another output format. A flag
// it does not know fails the test, so that a new flag in the corpus cannot
// silently go untested in the js module.
func toJS(t *testing.T, inv invocation) (jsCall, bool) {
	t.Helper()
	if inv.stdin != "" || len(inv.args) == 0 || inv.args[0] != "check" {
		return jsCall{}, false
	}
	call := jsCall{Options: map[string]any{}}
	format := "text"
	args := inv.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") {
			if call.Log != "" {
				return jsCall{}, false // the js module takes one file
			}
			call.Log = a
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch name {
		case "strict", "fail-on-unhealthy", "infer-stages":
			switch name {
			case "strict":
				call.Options["strict"] = true
			case "infer-stages":
				call.Options["infer_stages"] = true
			}
			continue
		}
		if !hasValue {
			i++
			if i == len(args) {
				t.Fatalf("%v: --%s without a value", inv.args, name)
			}
			value = args[i]
		}
		switch name {
		case "format":
			format = value
		case "pipeline":
			text, err := os.ReadFile(value)
			if err != nil {
				t.Fatal(err)
			}
			call.Options["pipeline"] = string(text)
		case "job-log":
			call.JobLog = value
			call.Options["job_log_file"] = value
		case "stages", "now", "gate", "input-format", "max-age":
			call.Options[strings.ReplaceAll(name, "-", "_")] = value
		case "stale-after-seconds", "max-line-bytes", "max-violations":
			n, err := strconv.Atoi(value)
			if err != nil {
				t.Fatalf("%v: --%s %q", inv.args, name, value)
			}
			call.Options[strings.ReplaceAll(name, "-", "_")] = n
		default:
			t.Fatalf("%v: the js module has no option for --%s; teach toJS", inv.args, name)
		}
	}
	if format != "json" || call.Log == "" || call.Log == "-" {
		return jsCall{}, false
	}
	if st, err := os.Stat(call.Log); err == nil && st.IsDir() {
		return jsCall{}, false
	}
	call.Options["file"] = call.Log
	return call, true
}

// runNode builds the js module and makes the calls under node with Go's
// wasm_exec.js on testdata/node_harness.js, in one node process. It skips
// the test when node is missing.
func runNode(t *testing.T, calls []jsCall) []nodeResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		fmt.Fprintln(os.Stderr, "SKIP: node is not installed, so the js module is NOT tested (apt-get install nodejs)")
		t.Skip("SKIP: node is not installed, so the js module is not tested (apt-get install nodejs)")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	wasmExec := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	module := buildModule(t, "js", "./wasm/js")
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	data, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/node_harness.js", wasmExec, module, casesFile)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var results []nodeResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("reading the harness output: %v\n%s", err, out)
	}
	if len(results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(results), len(calls))
	}
	return results
}

// jsOutcome is what the CLI would show for a greenlightCheck result: an
// error is exit 2 with the CLI's one-line message on stderr; a violations
// report is exit 2 with the report on stdout; a snapshot is exit 0, or 1
// when it is not healthy and failOnUnhealthy is set. Only for an error does
// the js module say what the CLI prints on stderr (the CLI's other stderr
// lines, "is invalid" and the count of events put back in order, have no js
// counterpart), so stderrKnown is false otherwise.
func jsOutcome(t *testing.T, r nodeResult, failOnUnhealthy bool) (o outcome, stderrKnown bool) {
	t.Helper()
	switch {
	case r.Error != nil:
		return outcome{code: 2, stderr: []byte("greenlight: " + *r.Error + "\n")}, true
	case r.Document == nil:
		t.Fatalf("greenlightCheck returned neither document nor error: %+v", r)
	}
	var head struct {
		SchemaVersion string `json:"schema_version"`
		Verdict       string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(*r.Document), &head); err != nil {
		t.Fatalf("the js document is not JSON: %v", err)
	}
	o.stdout = []byte(*r.Document)
	if isSnapshot := head.SchemaVersion != "greenlight.violations/v1"; r.Valid == nil || *r.Valid != isSnapshot {
		t.Fatalf("greenlightCheck's valid is %v for a %s document", r.Valid, head.SchemaVersion)
	}
	switch {
	case head.SchemaVersion == "greenlight.violations/v1":
		o.code = 2
	case failOnUnhealthy && head.Verdict != checker.VerdictHealthy:
		o.code = 1
	}
	return o, false
}

// compareJS fails the test unless the js module's result shows what the
// native CLI showed: the same exit code and stdout bytes, and the same
// stderr where the js module says it.
func compareJS(t *testing.T, want outcome, r nodeResult, failOnUnhealthy bool) {
	t.Helper()
	got, stderrKnown := jsOutcome(t, r, failOnUnhealthy)
	if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || (stderrKnown && !bytes.Equal(got.stderr, want.stderr)) {
		t.Fatalf("js module differs from native\n--- js:\n%s\n--- native:\n%s", got, want)
	}
}

func deref(doc, err *string) string {
	switch {
	case doc != nil:
		return *doc
	case err != nil:
		return "error: " + *err
	}
	return "(nothing)"
}

// sampleNow is the moment the README judges the bundled sample at.
const sampleNow = "2026-11-28T06:00:00Z"

// samplePipeline is the text of the bundled sample's pipeline definition.
func samplePipeline(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(root + "/testdata/sample/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
