package checker

import (
	"errors"
	"time"

	"github.com/greenlight-ci/greenlight/internal/limits"
)

// MaxAge is a freshness expectation (docs/contract.md, Freshness): the
// newest succeeded run must have ended at most Duration before now. None
// says explicitly that the pipeline has no such expectation (max_age: none,
// --max-age none); the zero value declares nothing.
type MaxAge struct {
	Duration time.Duration
	None     bool
}

// isZero says m declares nothing: neither a duration nor none.
func (m MaxAge) isZero() bool { return m.Duration <= 0 && !m.None }

// parseMaxAge reads a max_age (the pipeline definition's field, the CLI's
// --max-age, the action's max-age input): "none", or a duration of Go's
// syntax (26h, 90m, 1h30m) that may also count whole days with d (2d,
// 1d12h), from 1s to limits.MaxAge. The error says what is wrong, without
// naming the field; the caller names it.
func parseMaxAge(text string) (MaxAge, error) {
	if text == "none" {
		return MaxAge{None: true}, nil
	}
	d, err := limits.ParseDuration(text)
	if err != nil {
		return MaxAge{}, err
	}
	return MaxAge{Duration: d}, nil
}

// The freshness expectations a snapshot names (FreshnessReport.Expectation).
const (
	// FreshnessMaxAge: max_age (or --max-age) gives one; a schedule, when
	// the definition has one too, applies as well.
	FreshnessMaxAge = "max_age"
	// FreshnessSchedule: the schedule is the expectation; its latest due
	// slot needs a run (docs/schedule.md).
	FreshnessSchedule = "schedule"
	// FreshnessNone: max_age none (--max-age none) says explicitly that
	// there is none; a stale log may then be healthy.
	FreshnessNone = "none"
	// FreshnessNotDeclared: nothing declares one. check reports; gate
	// refuses to judge (errNoFreshness).
	FreshnessNotDeclared = "not_declared"
)

// FreshnessReport is the snapshot's freshness section: which expectation
// applies, the newest succeeded run and how long before now it ended, and
// whether that is too long (a run-less stale finding, listed with the
// unhealthy rows, which makes the verdict unhealthy under every gate).
// Times are RFC 3339 UTC strings, durations seconds.
type FreshnessReport struct {
	// Expectation is one of FreshnessMaxAge, FreshnessSchedule,
	// FreshnessNone, FreshnessNotDeclared.
	Expectation string `json:"expectation"`
	// MaxAgeSeconds is the max_age in seconds; null unless Expectation is
	// max_age.
	MaxAgeSeconds *int64 `json:"max_age_seconds"`
	// LatestSuccessRunID is the succeeded run whose last event is latest;
	// null when no run succeeded, or when a window folded it.
	LatestSuccessRunID *string `json:"latest_success_run_id"`
	// LatestSuccessAt is that run's last event; null when no run
	// succeeded.
	LatestSuccessAt *string `json:"latest_success_at"`
	// AgeSeconds is now less LatestSuccessAt (0 when it lies after now);
	// null when no run succeeded.
	AgeSeconds *float64 `json:"age_seconds"`
	// Stale is true when Expectation is max_age and no run succeeded, or
	// the latest success is older than MaxAgeSeconds.
	Stale bool `json:"stale"`
	// LatestSuccess is LatestSuccessAt as a value (zero without one).
	LatestSuccess time.Time `json:"-"`
}

// errNoFreshness is the core's refusal of a gate without a freshness
// expectation (Request.Gating): without one, a log whose newest run is
// months old would pass. The shells name their own knobs in the message.
var errNoFreshness = errors.New("no freshness expectation")

// maxAgeOf is the max_age that applies: the option's, else the
// definition's.
func (o Options) maxAgeOf() MaxAge {
	if !o.MaxAge.isZero() {
		return o.MaxAge
	}
	if o.Definition != nil {
		return o.Definition.MaxAge
	}
	return MaxAge{}
}

// freshnessDeclared says whether a check with o has a freshness
// expectation: a max_age or a schedule, or an explicit none.
func (o Options) freshnessDeclared() bool {
	return !o.maxAgeOf().isZero() || o.Definition != nil && o.Definition.Schedule != nil
}

// freshness judges the latest success (zero: none) at now under o.
func (o Options) freshness(latestID string, latest, now time.Time) *FreshnessReport {
	f := &FreshnessReport{Expectation: FreshnessNotDeclared}
	m := o.maxAgeOf()
	switch {
	case m.Duration > 0:
		f.Expectation = FreshnessMaxAge
		secs := int64(m.Duration / time.Second)
		f.MaxAgeSeconds = &secs
	case o.Definition != nil && o.Definition.Schedule != nil:
		f.Expectation = FreshnessSchedule
	case m.None:
		f.Expectation = FreshnessNone
	}
	if !latest.IsZero() {
		at := formatTime(latest)
		age := max(now.Sub(latest), 0)
		secs := age.Seconds()
		f.LatestSuccessAt, f.AgeSeconds, f.LatestSuccess = &at, &secs, latest.UTC()
		if latestID != "" {
			id := latestID
			f.LatestSuccessRunID = &id
		}
		f.Stale = m.Duration > 0 && age > m.Duration
	} else {
		f.Stale = m.Duration > 0
	}
	return f
}
