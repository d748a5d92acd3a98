package render_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

var update = flag.Bool("update", false, "rewrite the golden files of the CI formats")

// formatLog is one log of the CI formats' goldens: the bundled sample, the
// recovery DAG log with its job log, an invalid log and a hostile one whose
// run ids and error texts try XML, JSON and OpenMetrics injection.
type formatLog struct {
	name, log, pipeline, jobLog, now string
}

var formatLogs = []formatLog{
	{"sample", "testdata/sample/campaign_metrics.jsonl", "testdata/sample/pipeline.yaml", "", "2026-11-28T06:00:00Z"},
	{"recovery", "testdata/recovery/orders_daily.jsonl", "testdata/recovery/pipeline.yaml", "testdata/recovery/orders_daily.joblog.jsonl", "2026-01-01T12:00:00Z"},
	{"invalid", "checker/render/testdata/formats/invalid.jsonl", "testdata/logs/pipeline.yaml", "", "2026-01-01T12:00:00Z"},
	{"hostile", "checker/render/testdata/formats/hostile.jsonl", "testdata/logs/pipeline.yaml", "", "2026-01-01T12:00:00Z"},
}

// root is the repository root, seen from this package.
const root = "../../"

// checkFormatLog checks one of formatLogs, streaming its runs as the CLI
// does, and returns it as the CI formats take it.
func checkFormatLog(t *testing.T, fl formatLog) render.Log {
	t.Helper()
	def, err := os.ReadFile(root + fl.pipeline)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := checker.Request{Pipeline: def, PipelineName: fl.pipeline, Now: fl.now, File: fl.log}.Options()
	if err != nil {
		t.Fatal(err)
	}
	opts.File = fl.log
	if fl.jobLog != "" {
		data, err := os.ReadFile(root + fl.jobLog)
		if err != nil {
			t.Fatal(err)
		}
		opts.JobLog, opts.JobLogFile = bytes.NewReader(data), fl.jobLog
	}
	f, err := os.Open(root + fl.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := checker.Check(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return render.Log{Pipeline: render.PipelineName(opts.Definition.Pipeline, fl.log), Path: fl.log, JudgedAt: fl.now, Result: res}
}

// golden compares got with testdata/formats/NAME byte for byte; -update
// rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "formats", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./checker/render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, got)
	}
}

// requireTool finds an external validator on PATH. Without it the test is
// skipped, loudly, unless GREENLIGHT_REQUIRE_TOOLS=1 (set by .ci/run, which
// installs it), where it fails.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s is not on PATH (Debian package %s; .ci/run installs it)", name, pkg)
	if os.Getenv("GREENLIGHT_REQUIRE_TOOLS") == "1" {
		t.Fatal(msg + ", and GREENLIGHT_REQUIRE_TOOLS=1 requires it")
	}
	t.Skip("SKIPPED: " + msg)
	return ""
}

// sharedFile is a file of ../shared (the team's shared folder beside the
// checkout); the test is skipped without it, or fails under .ci/run.
func sharedFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(root, "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("GREENLIGHT_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is missing: %v", p, err)
		}
		t.Skipf("SKIPPED: %s is missing", p)
	}
	return p
}

// forbidden are strings of the hostile log that must never appear raw in
// any format's output: markup that would close or open elements or
// objects if it were not escaped.
var forbidden = []string{
	`<testcase name="forged"`, `</testsuite><!--`, `<![CDATA[`, `"ruleId":"forged"`, "\x1b", "\x01",
	"\ngreenlight_verdict_healthy{pipeline=\"x\"} 1", `<x/>`, `</testcase><failure type="x">`,
}

func assertInert(t *testing.T, format string, out []byte) {
	t.Helper()
	for _, f := range forbidden {
		if bytes.Contains(out, []byte(f)) {
			t.Errorf("%s output holds the hostile text %q raw", format, f)
		}
	}
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestXMLEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain run-1", "plain run-1"},
		{`<a href="x">&'`, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;"},
		{"tab\tnl\ncr\r", "tab&#x9;nl&#xA;cr&#xD;"},
		{"\x00\x01\x1b[31m\x7f", `\u0000\u0001\u001b[31m` + "\x7f"},
		{"\ufffe\uffff\ufffd", `\ufffe\uffff` + "\ufffd"},
		{"bad \xff byte", `bad \xff byte`},
		{"]]>", "]]&gt;"},
		{"été 数据 \u202e", "été 数据 \u202e"},
	} {
		if got := render.XML(c.in); got != c.want {
			t.Errorf("XML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPipelineName(t *testing.T) {
	for _, c := range []struct{ def, file, want string }{
		{"campaign_metrics", "logs/x.jsonl", "campaign_metrics"},
		{"", "logs/orders.daily.jsonl", "orders.daily"},
		{"", `C:\logs\orders.jsonl`, "orders"},
		{"", "-", "greenlight"},
		{"", "", "greenlight"},
	} {
		if got := render.PipelineName(c.def, c.file); got != c.want {
			t.Errorf("PipelineName(%q, %q) = %q, want %q", c.def, c.file, got, c.want)
		}
	}
}

// TestFormatsFailClosed checks the two logs a consumer could mistake for
// green: an empty log (valid, no runs) is a failed verdict testcase and a
// no_runs result, and the sample under greenlight validate is judged on
// its contract only (one passing testcase, no result).
func TestFormatsFailClosed(t *testing.T) {
	empty := formatLog{"empty", "testdata/logs/empty.jsonl", "testdata/logs/pipeline.yaml", "", "2026-01-01T12:00:00Z"}
	l := checkFormatLog(t, empty)
	var junit, sarif bytes.Buffer
	if err := render.WriteJUnit(&junit, []render.Log{l}); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteSARIF(&sarif, []render.Log{l}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`tests="1" failures="1" errors="0" skipped="0"`,
		`<failure type="unhealthy" message="unhealthy: no runs in the log, so nothing proves health">`,
	} {
		if !bytes.Contains(junit.Bytes(), []byte(want)) {
			t.Errorf("JUnit of an empty log lacks %s:\n%s", want, junit.Bytes())
		}
	}
	// no_runs comes after every contract rule in the driver's table.
	noRuns := len(checker.Rules()) + len(checker.OpenLineageRules()) + len(checker.WindowRules())
	for i, r := range render.HealthRules() {
		if r.ID == render.HealthNoRuns {
			noRuns += i
		}
	}
	if !bytes.Contains(sarif.Bytes(), fmt.Appendf(nil, `{"ruleId":"no_runs","ruleIndex":%d,"level":"error","message":{"text":"no runs in the log, so nothing proves health"}`, noRuns)) {
		t.Errorf("SARIF of an empty log has no no_runs result:\n%s", sarif.Bytes())
	}

	l = checkFormatLog(t, formatLogs[0])
	l.ContractOnly = true
	junit.Reset()
	sarif.Reset()
	if err := render.WriteJUnit(&junit, []render.Log{l}); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteSARIF(&sarif, []render.Log{l}); err != nil {
		t.Fatal(err)
	}
	if want := `tests="1" failures="0" errors="0" skipped="0"`; !bytes.Contains(junit.Bytes(), []byte(want)) || !bytes.Contains(junit.Bytes(), []byte(`name="contract" time="0.000"/>`)) {
		t.Errorf("JUnit of a valid log under validate is not one passing contract testcase:\n%s", junit.Bytes())
	}
	if !bytes.Contains(sarif.Bytes(), []byte(`"results": []`)) {
		t.Errorf("SARIF of a valid log under validate has results:\n%s", sarif.Bytes())
	}
}
