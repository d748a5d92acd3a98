package render

import (
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// AttemptSpan is when an attempt ran: from its start to its end, or, while
// it is in progress (running or a stall candidate), to now, the moment the
// log was judged at.
func AttemptSpan(a *checker.AttemptReport, now time.Time) (from, to time.Time) {
	if a.EndedAt != nil {
		return a.Started, a.Ended
	}
	if now.Before(a.Started) {
		return a.Started, a.Started
	}
	return a.Started, now
}

// InProgress reports whether a run has an attempt without a terminal event
// (running or a stall candidate).
func InProgress(r *checker.RunReport) bool {
	for i := range r.Stages {
		for j := range r.Stages[i].Attempts {
			if r.Stages[i].Attempts[j].EndedAt == nil {
				return true
			}
		}
	}
	return false
}

// RunSpan is when a run ran, as its timeline draws it: from its first event
// to its last, or, while an attempt is in progress, to now (a stalled run
// has been going on for that long, not for the 0 s between its first and
// last events).
func RunSpan(r *checker.RunReport, now time.Time) (from, to time.Time) {
	from, to = r.FirstEvent, r.LastEvent
	if InProgress(r) && now.After(to) {
		to = now
	}
	return from, to
}

// RunSeconds is the length of RunSpan in seconds: the duration a run's row
// shows.
func RunSeconds(r *checker.RunReport, now time.Time) float64 {
	from, to := RunSpan(r, now)
	return to.Sub(from).Seconds()
}

// Axis is how a timeline's axis labels its ticks for a span: Go's time
// layout and Mermaid's axisFormat (d3 strftime), in UTC, and the tick step.
type Axis struct {
	Layout  string
	Mermaid string
	Step    time.Duration
}

// axisSteps are the tick steps a timeline picks from, shortest first.
var axisSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour,
}

// MaxTicks is how many ticks a timeline's axis holds at most.
const MaxTicks = 6

// AxisFormat picks the axis for a span: the shortest step that needs at
// most MaxTicks ticks, labelled with seconds when the step is under a
// minute (a run of a few minutes would repeat "10:04" on every tick with
// hours and minutes alone), with hours and minutes on a span under a day,
// and with the date (and the time, for steps under a day) from a day on. The viewer (wasm/viewer/viewer.js, axisFor) makes
// the same choice.
func AxisFormat(span time.Duration) Axis {
	step := axisSteps[len(axisSteps)-1]
	for _, s := range axisSteps {
		if span/s <= MaxTicks {
			step = s
			break
		}
	}
	switch {
	case step < time.Minute:
		return Axis{"15:04:05", "%H:%M:%S", step}
	case span < 24*time.Hour:
		return Axis{"15:04", "%H:%M", step}
	case step < 24*time.Hour:
		return Axis{"01-02 15:04", "%m-%d %H:%M", step}
	default:
		return Axis{"01-02", "%m-%d", step}
	}
}

// Tick is one labelled moment on a timeline's axis.
type Tick struct {
	At    time.Time
	Label string
}

// AxisTicks returns the ticks between from and to (inclusive) at the step
// AxisFormat picks, on whole multiples of the step in UTC.
func AxisTicks(from, to time.Time) []Tick {
	ax := AxisFormat(to.Sub(from))
	first := from.UTC().Truncate(ax.Step)
	if first.Before(from) {
		first = first.Add(ax.Step)
	}
	var out []Tick
	for t := first; !t.After(to) && len(out) <= MaxTicks; t = t.Add(ax.Step) {
		out = append(out, Tick{At: t, Label: t.UTC().Format(ax.Layout)})
	}
	return out
}
