package wasmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The OpenLineage logs of the shared folder: real captures, and the cases
// docs/openlineage.md describes, each beside the flags it is checked with (NAME.expect.json).
const (
	openLineageSamples = shared + "/samples/openlineage"
	openLineageCases   = shared + "/cases/openlineage"
)

// openLineageDefaults are the flags of a log without an expect file: those
// the cases use.
var openLineageDefaults = expectFlags{Flags: "--input-format openlineage --fail-on-unhealthy --max-age none --infer-stages", Now: "2026-01-01T12:00:00Z"}

// expectFlags is the part of a case's NAME.expect.json that says how to
// check it. The verdicts in it are checker/openlineage's business; this
// package only requires the targets to agree.
type expectFlags struct {
	Flags             string `json:"flags"`
	Now               string `json:"now"`
	StaleAfterSeconds int    `json:"stale_after_seconds"`
}

// openLineageCorpus lists, for every log in the shared folder's
// samples/openlineage and cases/openlineage, a check with its flags as text
// and as --format json, and one through standard input; a check of the
// samples directory as one log; and a sample with a job log, refused. It skips the test loudly without the shared
// folder, and fails when the folder is there but the logs are not.
func openLineageCorpus(t *testing.T) []invocation {
	t.Helper()
	if _, err := os.Stat(shared); errors.Is(err, os.ErrNotExist) {
		msg := fmt.Sprintf("SKIP: %s is missing, so the OpenLineage logs are NOT compared across the targets", shared)
		fmt.Fprintln(os.Stderr, msg)
		t.Skip(msg)
	}
	var out []invocation
	for _, dir := range []string{openLineageSamples, openLineageCases} {
		logs, err := filepath.Glob(dir + "/*.jsonl")
		if err != nil || len(logs) == 0 {
			t.Fatalf("no OpenLineage logs in %s (%v); the shared folder is there, its logs should be too", dir, err)
		}
		for _, log := range logs {
			e := openLineageDefaults
			data, err := os.ReadFile(strings.TrimSuffix(log, ".jsonl") + ".expect.json")
			switch {
			case err == nil:
				e = expectFlags{}
				if err := json.Unmarshal(data, &e); err != nil {
					t.Fatalf("%s: %v", log, err)
				}
			case !errors.Is(err, os.ErrNotExist):
				t.Fatal(err)
			}
			flags := strings.Fields(e.Flags)
			if strings.Contains(e.Flags, "--fail-on-unhealthy") && !strings.Contains(e.Flags, "--max-age") {
				flags = append(flags, "--max-age", "none") // a gate needs a freshness expectation
			}
			if strings.Contains(e.Flags, "--fail-on-unhealthy") && !strings.Contains(e.Flags, "--infer-stages") {
				flags = append(flags, "--infer-stages") // and, without a definition, declared or inferred stages
			}
			if e.Now != "" {
				flags = append(flags, "--now", e.Now)
			}
			if e.StaleAfterSeconds != 0 {
				flags = append(flags, "--stale-after-seconds", strconv.Itoa(e.StaleAfterSeconds))
			}
			name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(log)
			out = append(out,
				invocation{name: name + "/json", args: append([]string{"check", log, "--format", "json"}, flags...)},
				invocation{name: name + "/text", args: append([]string{"check", log}, flags...)},
				invocation{name: name + "/stdin", args: append([]string{"check", "-", "--format", "json"}, flags...), stdin: log},
			)
		}
	}
	d := openLineageDefaults
	flags := append(strings.Fields(d.Flags), "--now", d.Now)
	out = append(out,
		invocation{name: "samples/directory", args: append([]string{"check", openLineageSamples, "--format", "json"}, flags...)},
		// A job log beside an OpenLineage log is refused (its attempts have
		// no attempt_id), with one message in every target.
		invocation{name: "samples/airflow.jsonl+job-log/json",
			args: append([]string{"check", openLineageSamples + "/airflow.jsonl", "--format", "json", "--job-log", root + "/testdata/recovery/orders_daily.joblog.jsonl"}, flags...)})
	return out
}

// TestOpenLineageTargets: every OpenLineage log of the shared folder, with
// its flags, gives the same stdout and stderr bytes and exit code in the
// wasip1 module (under wazero) as in the native CLI, and, as --format json
// from a file, the same document (or error) and exit code from the js module
// (under node); stderr is compared for the js module where it says it (its
// errors). It compares the targets with each other and never with a
// verdict, so it holds whatever checker/openlineage decides.
func TestOpenLineageTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs WebAssembly modules; skipped with -short")
	}
	invs := openLineageCorpus(t)
	var calls []jsCall
	jsIndex := map[int]int{}
	for i, inv := range invs {
		if call, ok := toJS(t, inv); ok {
			jsIndex[i] = len(calls)
			calls = append(calls, call)
		}
	}
	// Every log goes through the js module once (its json invocation), and
	// so does the sample with a job log.
	if logs := (len(invs) - 2) / 3; len(calls) != logs+1 {
		t.Fatalf("%d js calls for %d logs and a job log", len(calls), logs)
	}
	var results []nodeResult
	if _, err := exec.LookPath("node"); err == nil {
		results = runNode(t, calls)
	} else {
		fmt.Fprintln(os.Stderr, "SKIP: node is not installed, so the js module is NOT compared on the OpenLineage logs (apt-get install nodejs)")
	}
	for i, inv := range invs {
		t.Run(inv.name, func(t *testing.T) {
			want := native(t, inv)
			got := runWASI(t, inv)
			if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || !bytes.Equal(got.stderr, want.stderr) {
				t.Fatalf("wasip1 differs from native\n--- wasip1:\n%s\n--- native:\n%s", got, want)
			}
			if j, ok := jsIndex[i]; ok && results != nil {
				compareJS(t, want, results[j], slices.Contains(inv.args, "--fail-on-unhealthy"))
			}
		})
	}
}
