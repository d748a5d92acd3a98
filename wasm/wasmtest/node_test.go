package wasmtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
}

// TestJSModuleUnderNode: under node, greenlightCheck returns, for every log
// under testdata/, the bytes "greenlight check --format json" prints, and
// for a bad request the message the CLI prints before exiting 2.
func TestJSModuleUnderNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WebAssembly module and runs node; skipped with -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed, so the js module is not tested (apt-get install nodejs)")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	wasmExec := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	module := buildModule(t, "js", "./wasm/js")

	var cases []nodeCase
	for _, inv := range corpus(t) {
		// The js module checks the native event contract, without a job
		// log; OpenLineage logs and job logs are for the CLI and the wasip1
		// module.
		if !inv.js {
			continue
		}
		// check LOG --pipeline P --now N --format json
		log, pipeline, now := inv.args[1], inv.args[3], inv.args[5]
		text, err := os.ReadFile(pipeline)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, nodeCase{
			name: inv.name, log: log, native: inv.args,
			options: map[string]any{"pipeline": string(text), "now": now, "file": log},
		})
	}
	sample := root + "/testdata/sample/campaign_metrics.jsonl"
	cases = append(cases,
		nodeCase{name: "stages, gate latest, stale after", log: sample,
			options: map[string]any{"stages": "1,2", "now": "2026-11-28T02:30:00Z", "gate": "latest", "stale_after_seconds": 600, "file": sample},
			native:  []string{"check", sample, "--stages", "1,2", "--now", "2026-11-28T02:30:00Z", "--gate", "latest", "--stale-after-seconds", "600", "--format", "json"}},
		nodeCase{name: "no stages", log: sample, options: map[string]any{"now": "2026-11-28T02:30:00Z"},
			native: []string{"check", sample, "--now", "2026-11-28T02:30:00Z", "--format", "json"}},
		nodeCase{name: "bad now", log: sample, options: map[string]any{"stages": "1,2", "now": "yesterday"},
			native: []string{"check", sample, "--stages", "1,2", "--now", "yesterday", "--format", "json"}},
		nodeCase{name: "mistyped option", log: sample, options: map[string]any{"stages": "1,2", "stale_after_seconds": "600"},
			want: "greenlightCheck: option stale_after_seconds must be a whole number"},
		nodeCase{name: "fractional option", log: sample, options: map[string]any{"stages": "1,2", "max_violations": 1.5},
			want: "greenlightCheck: option max_violations must be a whole number"},
		nodeCase{name: "digest not hex", log: sample, options: map[string]any{"stages": "1,2", "sha256": "xyz"},
			want: `checker: Options.SHA256 "xyz" is not 64 lowercase hex digits`},
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
		nodeCase{name: "a view of one run per state", log: sample,
			options: map[string]any{"pipeline": samplePipeline(t), "now": sampleNow, "file": sample, "max_runs_per_state": 1},
			check: func(t *testing.T, r nodeResult) {
				res := nativeCheck(t, sample, checker.Request{Pipeline: []byte(samplePipeline(t)), Now: sampleNow, File: sample})
				seen := map[string]bool{}
				var want bytes.Buffer
				if err := render.WriteSnapshotSubset(&want, res.Snapshot, func(run *checker.RunReport) bool {
					keep := !seen[run.State] || run.RunID == *res.Snapshot.LatestRunID
					seen[run.State] = true
					return keep
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

	type call struct {
		Log     string         `json:"log"`
		Options map[string]any `json:"options"`
	}
	var calls []call
	for _, c := range cases {
		calls = append(calls, call{c.log, c.options})
	}
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
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(results), len(cases))
	}
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
			want := native(t, invocation{args: c.native})
			switch {
			case len(want.stdout) > 0:
				if r.Document == nil || *r.Document != string(want.stdout) {
					t.Fatalf("document differs from native\n--- js:\n%v\n--- native:\n%s", deref(r.Document, r.Error), want.stdout)
				}
			default:
				if r.Error == nil || "greenlight: "+*r.Error+"\n" != string(want.stderr) {
					t.Fatalf("error differs from native\n--- js:\n%v\n--- native:\n%s", deref(r.Document, r.Error), want)
				}
			}
		})
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
