package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// runStates are the run states the OpenMetrics families list, each as one
// series, in the order of their precedence (docs/contract.md). Every state
// is written, zeros included, so a series never vanishes.
var runStates = []string{
	checker.RunUnknown, checker.RunFailed, checker.RunCancelled, checker.RunStalled,
	checker.RunOverdue, checker.RunRunning, checker.RunIncomplete, checker.RunSucceeded,
}

// metricsOf is what the OpenMetrics families say of one log, gathered in
// one pass over its runs.
type metricsOf struct {
	log        *Log
	judged     bool // a valid log whose health was judged (not ContractOnly)
	valid      bool
	healthy    bool
	violations int
	runs       map[string]int
	latest     string // the latest run's state; "" when there is none
	// lastSuccess is the Unix time of the last event of the latest
	// succeeded run (by that time); ok false when no run succeeded.
	lastSuccess   float64
	hasSuccess    bool
	missed, slots int
	hasSchedule   bool
	// stale is the stale finding; hasMaxAge says a max_age applies.
	stale, hasMaxAge bool
	judgedAt         float64
	hasJudgedAt      bool
	checkSeconds     float64
	hasCheck         bool
	labels           string // pipeline="...", and log="..." when the pipeline has several logs
}

func gatherMetrics(l *Log) metricsOf {
	m := metricsOf{log: l}
	if t, err := time.Parse(time.RFC3339Nano, l.JudgedAt); err == nil {
		m.judgedAt, m.hasJudgedAt = unixSeconds(t), true
	}
	if l.Problem != "" || l.Result == nil {
		return m
	}
	rep := l.Result.Report
	m.violations = rep.ViolationCount
	m.valid = rep.Valid
	s := l.Result.Snapshot
	if !rep.Valid || s == nil || l.ContractOnly {
		return m
	}
	m.judged = true
	m.healthy = s.Verdict == checker.VerdictHealthy
	if t, err := time.Parse(time.RFC3339Nano, s.GeneratedAtUTC); err == nil {
		m.judgedAt, m.hasJudgedAt = unixSeconds(t), true
	}
	m.runs = map[string]int{}
	if f := s.Freshness; f != nil && f.MaxAgeSeconds != nil {
		m.stale, m.hasMaxAge = f.Stale, true
	}
	if s.Schedule != nil {
		m.hasSchedule = true
		m.missed, m.slots = MissedCount(s)
	}
	// succeeded keeps the latest last event of a run that succeeded.
	succeeded := func(t time.Time) {
		if u := unixSeconds(t); !m.hasSuccess || u > m.lastSuccess {
			m.lastSuccess, m.hasSuccess = u, true
		}
	}
	// The runs' heads hold all the metrics read: no run report is built.
	v := views(s)
	for i := range s.Len() {
		h := v.Head(i)
		m.runs[h.State]++
		if s.LatestRunID != nil && h.RunID == *s.LatestRunID {
			m.latest = h.State
		}
		if h.State == string(checker.RunSucceeded) && !h.LastEvent.IsZero() {
			succeeded(h.LastEvent)
		}
	}
	// A window's folded runs (docs/window.md) are not listed, but they are
	// runs of the log by state, as state_counts counts them.
	if w := s.Window; w != nil {
		for _, f := range foldedByState(w) {
			m.runs[f.state] += f.runs
		}
		if w.LastFoldedSuccess != nil {
			if t, err := time.Parse(time.RFC3339Nano, *w.LastFoldedSuccess); err == nil {
				succeeded(t)
			}
		}
		if m.latest == "" {
			if r := Latest(s); r != nil { // the latest run was folded
				m.latest = string(r.State)
			}
		}
	}
	return m
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

// OpenMetricsOptions are what the OpenMetrics text holds besides the logs.
type OpenMetricsOptions struct {
	// CheckSeconds is how long the check took by the shell's wall clock,
	// in seconds, per log in the order of the logs; a log without one (a
	// roll-up's snapshot) has no greenlight_check_duration_seconds sample.
	CheckSeconds []float64
}

// WriteOpenMetrics writes the logs as the OpenMetrics 1.0 text exposition
// (which Prometheus scrapes and the node_exporter textfile collector
// reads; it is also valid Prometheus text format 0.0.4): gauges only, each
// family with HELP and TYPE, every sample labelled with its pipeline and
// at most a run state, so the number of series is bounded by pipelines
// times states, never by runs. The document ends with "# EOF". A pipeline
// that several logs share also labels its samples with log (the path);
// two logs of one pipeline and path are an error, since their series
// would collide.
func WriteOpenMetrics(w io.Writer, logs []Log, o OpenMetricsOptions) error {
	ms, err := gatherLogMetrics(logs, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, f := range metricFamilies {
		var lines []string
		for i := range ms {
			m := &ms[i]
			f.samples(m, func(labels string, v float64) {
				l := m.labels
				if labels != "" {
					l += "," + labels
				}
				lines = append(lines, fmt.Sprintf("%s{%s} %s\n", f.name, l, metricValue(v)))
			})
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for _, l := range lines {
			bw.WriteString(l)
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

// gatherLogMetrics gathers the metrics of every log, each with the labels
// of its samples. A pipeline checked in several logs (greenlight validate
// of many files with one definition) gets a log label too, so its series
// stay apart; the same pipeline and log twice would collide, an error.
func gatherLogMetrics(logs []Log, o OpenMetricsOptions) ([]metricsOf, error) {
	perPipeline := map[string]int{}
	for i := range logs {
		perPipeline[logs[i].Pipeline]++
	}
	seen := map[[2]string]bool{}
	ms := make([]metricsOf, len(logs))
	for i := range logs {
		key := [2]string{logs[i].Pipeline, logs[i].Path}
		if seen[key] {
			return nil, fmt.Errorf("two logs of pipeline %s at %s: their metrics would collide", Terminal(logs[i].Pipeline), Terminal(fileName(logs[i].Path)))
		}
		seen[key] = true
		ms[i] = gatherMetrics(&logs[i])
		ms[i].labels = "pipeline=\"" + labelValue(logs[i].Pipeline) + "\""
		if perPipeline[logs[i].Pipeline] > 1 {
			ms[i].labels += ",log=\"" + labelValue(logs[i].Path) + "\""
		}
		if i < len(o.CheckSeconds) {
			ms[i].checkSeconds, ms[i].hasCheck = o.CheckSeconds[i], true
		}
	}
	return ms, nil
}

// metricFamily is one gauge family of the OpenMetrics text: its name, its
// help, and the samples of one log, each handed to add with its labels
// besides the log's (none, or a run state). A family no log has a sample
// of is left out.
type metricFamily struct {
	name, help string
	samples    func(m *metricsOf, add func(labels string, v float64))
}

// metricFamilies are the families in the order the text lists them.
var metricFamilies = []metricFamily{
	{"greenlight_healthy", "1 when the pipeline's verdict is healthy, else 0 (unhealthy, an invalid log, or a snapshot a roll-up cannot use).",
		func(m *metricsOf, add func(string, float64)) {
			if !m.log.ContractOnly {
				add("", b2f(m.healthy))
			}
		}},
	{"greenlight_log_valid", "1 when the event log follows the contract, else 0 (also for a snapshot a roll-up cannot use).",
		func(m *metricsOf, add func(string, float64)) { add("", b2f(m.valid)) }},
	{"greenlight_violations", "Contract violations in the event log (0 for a valid log).",
		func(m *metricsOf, add func(string, float64)) {
			if m.log.Problem == "" {
				add("", float64(m.violations))
			}
		}},
	{"greenlight_runs", "Runs in the event log by state.",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged {
				for _, st := range runStates {
					add("state=\""+st+"\"", float64(m.runs[st]))
				}
			}
		}},
	{"greenlight_latest_run_state", "The latest run's state: 1 for its state, 0 for every other; no sample without runs.",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged && m.latest != "" {
				for _, st := range runStates {
					add("state=\""+st+"\"", b2f(st == m.latest))
				}
			}
		}},
	{"greenlight_last_success_timestamp_seconds", "Unix time of the last event of the latest succeeded run; no sample when no run succeeded.",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged && m.hasSuccess {
				add("", m.lastSuccess)
			}
		}},
	{"greenlight_stale", "1 when the newest success is older than max_age (or no run succeeded), else 0; only for a pipeline with a max_age (docs/contract.md, Freshness).",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged && m.hasMaxAge {
				add("", b2f(m.stale))
			}
		}},
	{"greenlight_missed_slots", "Judged schedule slots that no run filled; only for a pipeline with a schedule.",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged && m.hasSchedule {
				add("", float64(m.missed))
			}
		}},
	{"greenlight_judged_slots", "Schedule slots judged (the lookback); only for a pipeline with a schedule.",
		func(m *metricsOf, add func(string, float64)) {
			if m.judged && m.hasSchedule {
				add("", float64(m.slots))
			}
		}},
	{"greenlight_judged_timestamp_seconds", "Unix time the log was judged at (--now, else the wall clock).",
		func(m *metricsOf, add func(string, float64)) {
			if m.hasJudgedAt {
				add("", m.judgedAt)
			}
		}},
	{"greenlight_check_duration_seconds", "Wall-clock seconds greenlight took to check the log.",
		func(m *metricsOf, add func(string, float64)) {
			if m.hasCheck {
				add("", m.checkSeconds)
			}
		}},
}

// b2f is 1 for true and 0 for false, a boolean gauge's values.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// metricValue formats a sample value: the shortest decimal that reads back
// as the same float, without an exponent.
func metricValue(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
