package wasmtest

import (
	"bytes"
	"context"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

// noScriptTab opens a tab in which no script runs (the page's, or any).
func noScriptTab(t testing.TB, bctx context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// pageText is the text of the page's body, read through the DOM (no
// script): its markup with the tags dropped and the entities decoded.
func pageText(t testing.TB, ctx context.Context) string {
	t.Helper()
	outer, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(outer, "")
	return html.UnescapeString(text)
}

// sampleReport writes the static report of the bundled sample (as
// "greenlight report --html" does) and returns its path and the native
// snapshot.
func sampleReport(t testing.TB, dir string) (string, *checker.Snapshot) {
	t.Helper()
	pipeline, err := os.ReadFile(root + "/testdata/sample/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sample := root + "/testdata/sample/campaign_metrics.jsonl"
	res := nativeCheck(t, sample, checker.Request{Pipeline: pipeline, Now: "2026-11-28T06:00:00Z", File: "campaign_metrics.jsonl"})
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, render.HTMLReport(res, render.DefaultHTMLOptions), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, res.Snapshot
}

// TestStaticReportWithoutScript opens the static report of the sample
// (greenlight report --html) from file:// with JavaScript disabled: it
// shows the verdict, the failed run's error and its recovery steps, and its
// style sheet applies (its Content-Security-Policy allows it by hash).
func TestStaticReportWithoutScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser; skipped with -short")
	}
	bctx := browser(t)
	path, want := sampleReport(t, t.TempDir())
	ctx := noScriptTab(t, bctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.ID("verdict"))); err != nil {
		t.Fatal(err)
	}
	text := pageText(t, ctx)
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if title != "greenlight: unhealthy: campaign_metrics.jsonl" {
		t.Errorf("title %q", title)
	}
	if !strings.Contains(text, "greenlight: unhealthy") || !strings.Contains(text, render.Headline(want)) {
		t.Errorf("the page does not show the verdict %q:\n%s", render.Headline(want), text)
	}
	var failed *checker.RunReport
	for _, r := range want.Collect() {
		if r.State == checker.RunFailed {
			failed = &r
		}
	}
	if failed == nil || len(failed.Recovery.Steps) == 0 {
		t.Fatal("the sample no longer has a failed run with recovery steps")
	}
	d := render.Detail(&want.Source, failed)
	if !d.HasErr || !strings.Contains(text, d.Error) {
		t.Errorf("the page does not show the failed run's error %q", d.Error)
	}
	for _, step := range failed.Recovery.Steps {
		if !strings.Contains(text, step) {
			t.Errorf("the page does not show the recovery step %q", step)
		}
	}
	colour, err := chromedp.Run(ctx, chromedp.ComputedStyle(chromedp.ID("verdict")))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, p := range colour {
		if p.Name == "color" {
			got = p.Value
		}
	}
	if got != "rgb(207, 34, 46)" {
		t.Errorf("the verdict's colour is %q: the report's style did not apply", got)
	}
	// The legend draws each state's symbol as an SVG icon, so it reads
	// without an emoji font (this browser may have none).
	checkLegendIcons(t, ctx, "#legend > span")
}

var screenshots = flag.String("screenshots", "", "write the README's screenshots (PNG) of the viewer, the static report and the job summary into this `directory` (scripts/screenshots.sh passes docs/img)")

// TestScreenshots writes docs/img/viewer.png, report.png and
// job-summary.png from the bundled sample when -screenshots DIR is given
// (scripts/screenshots.sh); each must stay under 1 MB.
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("pass -screenshots DIR (scripts/screenshots.sh) to write the screenshots")
	}
	bctx := browser(t)
	dir := t.TempDir()
	pipeline, err := os.ReadFile(root + "/testdata/sample/pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(pipeline)
	sample := root + "/testdata/sample/campaign_metrics.jsonl"
	shots := map[string]func() context.Context{
		"viewer.png": func() context.Context {
			ctx := tab(t, bctx)
			p := viewcmd.Preload{File: "campaign_metrics.jsonl", Pipeline: &text, PipelineName: "pipeline.yaml", Now: "2026-11-28T06:00:00Z", Gate: "all"}
			if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, p, sample)+"?preload=1")); err != nil {
				t.Fatal(err)
			}
			settle(t, ctx)
			return ctx
		},
		"report.png": func() context.Context {
			path, _ := sampleReport(t, dir)
			ctx := noScriptTab(t, bctx)
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.ID("verdict"))); err != nil {
				t.Fatal(err)
			}
			return ctx
		},
		"job-summary.png": func() context.Context {
			res := nativeCheck(t, sample, checker.Request{Pipeline: pipeline, Now: "2026-11-28T06:00:00Z", File: "testdata/sample/campaign_metrics.jsonl"})
			md := render.JobSummary(render.SummaryCheck, []render.LogResult{{File: "testdata/sample/campaign_metrics.jsonl", Snapshot: res.Snapshot, Report: res.Report}}, 0)
			var body bytes.Buffer
			if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &body); err != nil {
				t.Fatal(err)
			}
			page := `<!doctype html><meta charset="utf-8"><title>job summary</title><style>` + summaryCSS + `</style><body><div class="summary">` + body.String() + `</div>`
			path := filepath.Join(dir, "summary.html")
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := noScriptTab(t, bctx)
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				t.Fatal(err)
			}
			return ctx
		},
	}
	for name, open := range shots {
		ctx := open()
		out := filepath.Join(*screenshots, name)
		screenshot(t, ctx, out)
		if fi, err := os.Stat(out); err != nil || fi.Size() >= 1<<20 {
			t.Errorf("%s: %v, size %d: over 1 MB", out, err, fi.Size())
		}
	}
}

// summaryCSS styles the rendered job summary roughly as GitHub does (the
// Mermaid block shows as code: GitHub draws it, this page does not).
const summaryCSS = `body{font:14px/1.5 -apple-system,system-ui,sans-serif;color:#1f2328;margin:0;background:#f6f8fa}
.summary{max-width:1000px;margin:16px auto;background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 24px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:4px 10px;text-align:left}
tr:nth-child(2n){background:#f6f8fa}code{background:#eff1f3;padding:1px 4px;border-radius:4px;font-size:12px}
pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px}h2,h3{border-bottom:1px solid #d0d7de;padding-bottom:4px}`
