package wasmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/greenlight-ci/greenlight/internal/viewcmd"
)

// BenchmarkViewer loads the log named by GREENLIGHT_BENCH_LOG (two stages,
// judged at 2026-12-01T00:00:00Z) into the viewer as "greenlight view"
// preloads it, in headless Chromium, and reports the worker's check time
// (worker-s/op), the time from opening the page to the verdict on screen
// (page-s/op), how many progress updates the page showed, and the slowest
// answer of the page to a script call while the worker checked
// (max-page-ms: the page stays responsive when it is small). The target is
// under 15 s for genlog.py --events 1000000 --seed 1. bench/run.sh runs it.
func BenchmarkViewer(b *testing.B) {
	logPath := os.Getenv("GREENLIGHT_BENCH_LOG")
	if logPath == "" {
		b.Skip("set GREENLIGHT_BENCH_LOG to a log to load")
	}
	bctx := browser(b)
	p := viewcmd.Preload{File: filepath.Base(logPath), Stages: "1,2", Now: "2026-12-01T00:00:00Z", Gate: "all"}
	url := serve(b, p, logPath) + "?preload=1"
	var worker, page time.Duration
	var updates, maxMS float64
	for b.Loop() {
		ctx := tab(b, bctx)
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			b.Fatal(err)
		}
		// Until the verdict shows: ask the page for its progress text; each
		// answer's round trip is the page's responsiveness.
		seen := map[string]bool{}
		for {
			t0 := time.Now()
			st, err := chromedp.Run(ctx, chromedp.Evaluate[pageProgress](`({done: !document.getElementById("result").hidden || !document.getElementById("error").hidden,
				progress: document.getElementById("progress-box").hidden ? "" : document.getElementById("progress-text").textContent})`))
			if err != nil {
				b.Fatal(err)
			}
			maxMS = max(maxMS, float64(time.Since(t0).Microseconds())/1000)
			if strings.HasPrefix(st.Progress, "checking") {
				seen[st.Progress] = true
			}
			if st.Done {
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatal("the viewer showed no result in 10 minutes")
			}
			time.Sleep(100 * time.Millisecond)
		}
		page += time.Since(start)
		s := settle(b, ctx)
		if s.Error != "" || s.Verdict == "" {
			b.Fatalf("the page shows %+v", s)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").dataset.ms`))
		if err != nil {
			b.Fatal(err)
		}
		var workerMS float64
		fmt.Sscan(ms, &workerMS)
		worker += time.Duration(workerMS * float64(time.Millisecond))
		updates += float64(len(seen))
	}
	n := float64(b.N)
	b.ReportMetric(worker.Seconds()/n, "worker-s/op")
	b.ReportMetric(page.Seconds()/n, "page-s/op")
	b.ReportMetric(updates/n, "progress-updates/op")
	b.ReportMetric(maxMS, "max-page-ms")
}

// pageProgress is what BenchmarkViewer polls: whether a result shows, and
// the progress line.
type pageProgress struct {
	Done     bool   `json:"done"`
	Progress string `json:"progress"`
}
