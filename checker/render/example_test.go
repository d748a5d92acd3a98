package render_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// The renderers turn a check's Result into what a person or a tool reads:
// WriteText the terminal's text (what greenlight check prints), and
// ViolationsText the violations of an invalid log; Markdown, the job
// summary, JUnit, SARIF, OpenMetrics and the JSON documents come the same
// way, from the same Result.
func Example() {
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), File: "events.jsonl"}
	log := `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T02:10:00Z","returncode":0}
{"run_id":"r-1","stage":2,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T02:11:00Z"}
{"run_id":"r-1","stage":2,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T02:20:00Z","returncode":1,"error":"connection reset"}
`
	// The log, then its second line alone: an attempt that never started.
	second := strings.SplitAfter(log, "\n")[1]
	for _, text := range []string{log, second} {
		res, err := checker.Check(strings.NewReader(text), opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		if !res.Report.Valid {
			fmt.Print(render.ViolationsText(res.Report))
			continue
		}
		if err := render.WriteText(os.Stdout, res.Snapshot); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// greenlight: unhealthy: 1 run (1 failed), gate all
	//   r-1  failed  stage 2 attempt 1 failed, returncode 1: connection reset
	// freshness: not declared (declare max_age in the pipeline definition, a schedule, or --max-age; gate needs one); no run succeeded
	// recovery:
	//   rerun (run r-1, stage 2, attempt 1)
	//     1. Attempt 1 of stage 2 in run r-1 failed (line 4).
	//     2. Start attempt 2 of stage 2 in run r-1.
	// greenlight: unhealthy: 1 run (1 failed), gate all
	// events.jsonl:1: terminal_without_start: attempt 1 of stage 1 in run r-1 succeeded, but it never started
}
