package render

import (
	"fmt"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// StateStale is the state of the run-less stale finding in the listings:
// the pipeline's newest success is older than its max_age, or there is
// none (docs/contract.md, Freshness).
const StateStale = "stale"

// HealthStale is the health rule of the stale finding in the CI formats.
const HealthStale = "stale"

// IsStale says the snapshot has the stale finding.
func IsStale(s *checker.Snapshot) bool {
	return s.Freshness != nil && s.Freshness.Stale
}

// latestSuccess says in words when the newest success ended and how long
// before now: "run r2 ended 2026-11-30T01:00:00Z, 1h0m0s ago" (the run id is
// untrusted log text, escaped by esc), or "no run succeeded".
func latestSuccess(f *checker.FreshnessReport, esc func(string) string) string {
	if f.LatestSuccessAt == nil {
		return "no run succeeded"
	}
	who := "a run folded by --window"
	if f.LatestSuccessRunID != nil {
		who = "run " + esc(*f.LatestSuccessRunID)
	}
	return fmt.Sprintf("the newest success, %s, ended %s, %s ago", who, *f.LatestSuccessAt, Age(*f.AgeSeconds))
}

// Age renders an age in seconds as Duration does, with whole days counted
// in d from 2 days on: 184d3h50m0s, 27h50m0s.
func Age(seconds float64) string {
	const day = 24 * 3600
	if seconds < 2*day {
		return Duration(seconds)
	}
	days := int64(seconds) / day
	rest := seconds - float64(days*day)
	if rest < 1 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%s", days, Duration(rest))
}

// maxAgeText is a max_age in seconds as a duration: 26h0m0s.
func maxAgeText(secs int64) string {
	return (time.Duration(secs) * time.Second).String()
}

// StaleSummary is the detail of the stale finding, without the state:
// "no success within max_age 26h0m0s: the newest success, run r2, ended
// ..., 6h ago". esc escapes the run id for the sink.
func StaleSummary(s *checker.Snapshot, esc func(string) string) string {
	f := s.Freshness
	if f == nil || f.MaxAgeSeconds == nil {
		return ""
	}
	return fmt.Sprintf("no success within max_age %s: %s", maxAgeText(*f.MaxAgeSeconds), latestSuccess(f, esc))
}

// FreshnessLine is the text of the freshness line (without "freshness: "):
// which expectation applies and the age of the newest success; "" for a
// snapshot without a freshness section (one from an earlier build).
func FreshnessLine(s *checker.Snapshot, esc func(string) string) string {
	f := s.Freshness
	if f == nil {
		return ""
	}
	latest := latestSuccess(f, esc)
	switch f.Expectation {
	case checker.FreshnessMaxAge:
		if f.Stale {
			return "stale, " + StaleSummary(s, esc)
		}
		return fmt.Sprintf("fresh, %s, within max_age %s", latest, maxAgeText(*f.MaxAgeSeconds))
	case checker.FreshnessSchedule:
		return "judged by the schedule's latest due slot; " + latest
	case checker.FreshnessNone:
		return "none expected (max_age none); " + latest
	}
	return "not declared (declare max_age in the pipeline definition, a schedule, or --max-age; gate needs one); " + latest
}
