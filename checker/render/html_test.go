package render_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestHTMLReportGolden: the static report of each log of formatLogs (the
// sample with its schedule, the recovery log with its job log, an invalid
// log, a hostile one) is testdata/formats/NAME.report.html byte for byte.
func TestHTMLReportGolden(t *testing.T) {
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			l := checkFormatLog(t, fl)
			golden(t, fl.name+".report.html", render.HTMLReport(l.Result, render.HTMLOptions{}))
		})
	}
}

// tagRE finds the report's tags: escaped log text holds no "<", so every
// match is markup the report itself wrote.
var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)([^>]*)>`)

// reportElements are the elements report.tmpl writes.
var reportElements = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
	"h1": true, "h2": true, "h3": true, "p": true, "span": true, "code": true, "main": true, "section": true, "table": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "a": true, "em": true, "ul": true, "ol": true, "li": true, "article": true, "pre": true,
	"div": true, "strong": true, "svg": true, "text": true, "line": true, "rect": true, "footer": true,
	"circle": true, "path": true} // circle and path: the state icons (StateMark.Icon)

// markup returns the first tag or attribute of page that report.tmpl
// would never write: an element not its own, an event handler, a
// javascript: URL; or nil.
func markup(page []byte) []byte {
	for _, m := range tagRE.FindAllSubmatch(page, -1) {
		// html/template writes every attribute value quoted, with any quote
		// in it escaped: what is left outside the quotes are the names.
		attrs := strings.ToLower(regexp.MustCompile(`"[^"]*"`).ReplaceAllString(string(m[3]), `""`))
		if !reportElements[strings.ToLower(string(m[2]))] || regexp.MustCompile(`\son[a-z]+\s*=|javascript:|style\s*=`).MatchString(attrs) {
			return m[0]
		}
	}
	return nil
}

// TestHTMLReportHostile: a stage name, run id and error made of markup
// show as text: no element, no attribute, no script comes from the log.
func TestHTMLReportHostile(t *testing.T) {
	const evil = `</script><img src=x onerror=alert(1)>`
	def := []byte("pipeline: evil\nstages:\n  - {id: 1, name: \"" + strings.ReplaceAll(evil, `"`, `\"`) + "\"}\n")
	opts, err := checker.Request{Pipeline: def, PipelineName: "evil.yaml", Now: "2026-01-01T12:00:00Z", File: "evil.jsonl"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	log := fmt.Sprintf(`{"run_id":%q,"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":%q,"stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","returncode":1,"error":%q}
`, evil+`" onmouseover="x`, evil+`" onmouseover="x`, evil+"<style>*{display:none}</style><a href=\"javascript:alert(2)\">x</a> exe.\u202etxt\u2066")
	res, err := checker.Check(strings.NewReader(log), opts)
	if err != nil || res.Snapshot == nil {
		t.Fatalf("check: %v %v", err, res.Report)
	}
	page := render.HTMLReport(res, render.HTMLOptions{})
	if m := markup(page); m != nil {
		t.Errorf("the report holds markup from the log: %q", m)
	}
	if n := bytes.Count(page, []byte("<style>")); n != 1 {
		t.Errorf("the report holds %d style elements, want its own one", n)
	}
	// A bidi override in the error shows as its escape, as in the terminal:
	// it must not display the text around it reversed.
	if bytes.ContainsAny(page, "\u202e\u2066") {
		t.Errorf("the report holds a bidi formatting character from the log")
	}
	for _, want := range []string{"&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;", "stage 1 (&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;)", `exe.\u202etxt\u2066`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the report does not show %q as text", want)
		}
	}
	// The invalid log's violation messages quote the log too.
	bad, err := checker.Check(strings.NewReader(`{"run_id":"`+strings.ReplaceAll(evil, `"`, `\"`)+`","stage":1}`+"\n"), opts)
	if err != nil || bad.Snapshot != nil {
		t.Fatalf("check: %v", err)
	}
	if m := markup(render.HTMLReport(bad, render.HTMLOptions{})); m != nil {
		t.Errorf("the invalid log's report holds markup: %q", m)
	}
}

// TestHTMLReportCaps: unhealthy rows come first, latest first, and each
// list says truthfully how many it leaves out.
func TestHTMLReportCaps(t *testing.T) {
	s := bigSnapshot(120, 10)
	page := string(render.HTMLReport(&checker.Result{Snapshot: s, Report: checker.NewReport()}, render.HTMLOptions{MaxUnhealthy: 50}))
	if !strings.Contains(page, "70 more unhealthy rows not listed here") {
		t.Error("the report does not say that 70 unhealthy rows are left out")
	}
	ids := regexp.MustCompile(`<tr class="row-failed">.*?<a href="#run-L\d+">(r-\d+)</a>`).FindAllStringSubmatch(page, -1)
	if len(ids) != 50 || ids[0][1] != "r-00119" || ids[49][1] != "r-00070" {
		t.Errorf("listed %d unhealthy runs, from %v to %v; want 50, r-00119 to r-00070", len(ids), ids[0], ids[len(ids)-1])
	}
	if n := strings.Count(page, `<article class="run"`); n != 50 {
		t.Errorf("%d run sections, want 50", n)
	}
	if !strings.Contains(page, `is <a href="#run-L0">listed above</a>`) {
		t.Error("the latest run, listed among the unhealthy, is not linked to")
	}
}

// TestHTMLReportTitle: the title carries the verdict and the log's name.
func TestHTMLReportTitle(t *testing.T) {
	l := checkFormatLog(t, formatLogs[0])
	page := render.HTMLReport(l.Result, render.HTMLOptions{})
	if want := "<title>greenlight: unhealthy: campaign_metrics.jsonl</title>"; !bytes.Contains(page, []byte(want)) {
		t.Errorf("no %s in the report", want)
	}
	if _, err := os.Stat(root + formatLogs[0].log); err != nil {
		t.Fatal(err)
	}
}

// FuzzHTMLReport: whatever a run id and an error hold, the report holds no
// markup of the log's (see markup).
func FuzzHTMLReport(f *testing.F) {
	for _, seed := range [][2]string{
		{"r-1", "boom"},
		{`</script><img src=x onerror=alert(1)>`, `<svg onload=alert(1)>`},
		{`" onmouseover="x`, "</title><style>*{}</style>"},
		{"<!--", "]]><![CDATA["},
	} {
		f.Add(seed[0], seed[1])
	}
	opts, err := checker.Request{Stages: "1", Now: "2026-01-01T12:00:00Z", File: "f.jsonl"}.Options()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, runID, errText string) {
		id, e := jsonString(runID), jsonString(errText)
		log := `{"run_id":` + id + `,"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
			`{"run_id":` + id + `,"stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:01:00Z","error":` + e + `}` + "\n"
		res, err := checker.Check(strings.NewReader(log), opts)
		if err != nil {
			t.Fatal(err)
		}
		if m := markup(render.HTMLReport(res, render.HTMLOptions{})); m != nil {
			t.Fatalf("run id %q, error %q: the report holds %q", runID, errText, m)
		}
	})
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkHTMLReport renders the report of 10,000 failed runs (50 listed).
func BenchmarkHTMLReport(b *testing.B) {
	s := bigSnapshot(10_000, 100)
	res := &checker.Result{Snapshot: s, Report: checker.NewReport()}
	b.ReportAllocs()
	for b.Loop() {
		render.HTMLReport(res, render.HTMLOptions{})
	}
}

// TestHTMLReportStale: the run-less stale finding is the first unhealthy
// row of the report, with its detail and the run id escaped, as in the
// text and Markdown outputs.
func TestHTMLReportStale(t *testing.T) {
	opts, err := checker.Request{Stages: "1", Now: "2026-06-01T06:00:00Z", MaxAge: "26h", File: "f.jsonl"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	log := `{"run_id":"<b>r-1</b>","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
		`{"run_id":"<b>r-1</b>","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z","returncode":0}` + "\n"
	res, err := checker.Check(strings.NewReader(log), opts)
	if err != nil {
		t.Fatal(err)
	}
	page := string(render.HTMLReport(res, render.HTMLOptions{}))
	re := regexp.MustCompile(`<section id="unhealthy">\n<h2>Unhealthy: latest first</h2>\n<table>\n<thead>.*</thead>\n<tbody>\n<tr class="row-missed"><td class="state s-missed"><svg [^>]*aria-label="stale"[^>]*>.*?</svg> stale</td><td class="mono"><em>[^<]*</em></td><td class="mono"></td><td></td><td></td><td>(.*)</td></tr>\n</tbody>`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no stale row first among the unhealthy rows:\n%s", page)
	}
	if want := "no success within max_age 26h0m0s: the newest success, run &lt;b&gt;r-1&lt;/b&gt;, ended 2026-01-01T10:01:00Z, 150d19h59m0s ago"; m[1] != want {
		t.Errorf("stale detail %q, want %q", m[1], want)
	}
}
