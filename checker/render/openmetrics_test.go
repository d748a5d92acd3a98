package render_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/greenlight-ci/greenlight/checker/render"
)

func renderOpenMetrics(t *testing.T, logs []render.Log, o render.OpenMetricsOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteOpenMetrics(&b, logs, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOpenMetrics renders every formatLog as OpenMetrics text, compares it
// with its golden, parses it back with Prometheus' own text parser and
// cross-checks the values with the snapshot.
func TestOpenMetrics(t *testing.T) {
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			l := checkFormatLog(t, fl)
			out := renderOpenMetrics(t, []render.Log{l}, render.OpenMetricsOptions{CheckSeconds: []float64{0.125}})
			golden(t, fl.name+".om.txt", out)
			assertInert(t, "openmetrics", out)
			if !bytes.HasSuffix(out, []byte("\n# EOF\n")) {
				t.Error("the exposition does not end with # EOF")
			}
			p := expfmt.NewTextParser(model.UTF8Validation)
			families, err := p.TextToMetricFamilies(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("the Prometheus text parser rejects the exposition: %v", err)
			}
			value := func(name string, labels ...string) (float64, bool) {
				f, ok := families[name]
				if !ok {
					return 0, false
				}
			metrics:
				for _, m := range f.Metric {
					got := map[string]string{}
					for _, lp := range m.Label {
						got[lp.GetName()] = lp.GetValue()
					}
					if got["pipeline"] != l.Pipeline {
						t.Errorf("%s has pipeline %q, want %q", name, got["pipeline"], l.Pipeline)
					}
					for i := 0; i < len(labels); i += 2 {
						if got[labels[i]] != labels[i+1] {
							continue metrics
						}
					}
					return m.GetGauge().GetValue(), true
				}
				return 0, false
			}
			want := func(name string, v float64, labels ...string) {
				t.Helper()
				got, ok := value(name, labels...)
				if !ok || got != v {
					t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, v)
				}
			}
			want("greenlight_check_duration_seconds", 0.125)
			rep := l.Result.Report
			want("greenlight_violations", float64(rep.ViolationCount))
			if !rep.Valid {
				want("greenlight_log_valid", 0)
				want("greenlight_healthy", 0)
				if _, ok := families["greenlight_runs"]; ok {
					t.Error("an invalid log has run counts")
				}
				return
			}
			s := l.Result.Snapshot
			want("greenlight_log_valid", 1)
			healthy := 0.0
			if s.Verdict == "healthy" {
				healthy = 1
			}
			want("greenlight_healthy", healthy)
			c := s.StateCounts
			for state, n := range map[string]int{"failed": c.Failed, "stalled": c.Stalled, "running": c.Running, "incomplete": c.Incomplete, "succeeded": c.Succeeded, "unknown": c.Unknown, "cancelled": c.Cancelled} {
				want("greenlight_runs", float64(n), "state", state)
			}
			if latest := render.Latest(s); latest != nil {
				want("greenlight_latest_run_state", 1, "state", string(latest.State))
				if n := len(families["greenlight_latest_run_state"].Metric); n != 8 {
					t.Errorf("greenlight_latest_run_state has %d series, want 8", n)
				}
			}
			if missed, judged := render.MissedCount(s); s.Schedule != nil {
				want("greenlight_missed_slots", float64(missed))
				want("greenlight_judged_slots", float64(judged))
			}
			for name, f := range families {
				if !strings.HasPrefix(name, "greenlight_") || f.GetHelp() == "" || f.GetType().String() != "GAUGE" {
					t.Errorf("family %s: help %q, type %v", name, f.GetHelp(), f.GetType())
				}
			}
		})
	}
}

// TestOpenMetricsPromtool lints every golden with promtool check metrics,
// as Prometheus would read it from the textfile collector.
func TestOpenMetricsPromtool(t *testing.T) {
	promtool := requireTool(t, "promtool", "prometheus")
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			out := renderOpenMetrics(t, []render.Log{checkFormatLog(t, fl)}, render.OpenMetricsOptions{CheckSeconds: []float64{0.125}})
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = bytes.NewReader(out)
			if msg, err := cmd.CombinedOutput(); err != nil || len(msg) > 0 {
				t.Errorf("promtool check metrics: %v\n%s", err, msg)
			}
		})
	}
}

// TestOpenMetricsSharedPipeline labels the samples of a pipeline that two
// logs share with their log too, and refuses the same pipeline and log
// twice.
func TestOpenMetricsSharedPipeline(t *testing.T) {
	a, b := checkFormatLog(t, formatLogs[2]), checkFormatLog(t, formatLogs[3])
	out := renderOpenMetrics(t, []render.Log{a, b}, render.OpenMetricsOptions{})
	for _, want := range []string{
		"greenlight_violations{pipeline=\"corpus\",log=\"checker/render/testdata/formats/invalid.jsonl\"} 5\n",
		"greenlight_violations{pipeline=\"corpus\",log=\"checker/render/testdata/formats/hostile.jsonl\"} 0\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no sample %q in\n%s", want, out)
		}
	}
	err := render.WriteOpenMetrics(&bytes.Buffer{}, []render.Log{a, a}, render.OpenMetricsOptions{})
	if err == nil || err.Error() != "two logs of pipeline corpus at checker/render/testdata/formats/invalid.jsonl: their metrics would collide" {
		t.Errorf("err = %v", err)
	}
}

// TestOpenMetricsHostilePipeline gives the hostile log a pipeline name
// that tries to end the sample and forge another: the parser reads it
// back as one label value, and a control character is shown as \u001b.
func TestOpenMetricsHostilePipeline(t *testing.T) {
	l := checkFormatLog(t, formatLogs[3])
	l.Pipeline = "x\"} 1\n# EOF\ngreenlight_healthy{pipeline=\"y\\\x1b[2J"
	out := renderOpenMetrics(t, []render.Log{l}, render.OpenMetricsOptions{})
	if bytes.Contains(out, []byte("\ngreenlight_healthy{pipeline=\"y")) || bytes.Contains(out, []byte("\x1b")) || bytes.Count(out, []byte("\n# EOF\n")) != 1 {
		t.Fatalf("the pipeline name escaped its label:\n%s", out)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	f := families["greenlight_healthy"]
	if len(f.Metric) != 1 {
		t.Fatalf("%d greenlight_healthy samples, want 1", len(f.Metric))
	}
	want := "x\"} 1\n# EOF\ngreenlight_healthy{pipeline=\"y\\\\u001b[2J"
	if got := f.Metric[0].Label[0].GetValue(); got != want {
		t.Errorf("pipeline label %q, want %q", got, want)
	}
}
