package checker

import (
	"errors"
	"fmt"
	"time"

	// The zone database is embedded so that the wasm builds, which have no
	// system zoneinfo, resolve a schedule's IANA time zone too.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
)

// Schedule defaults (docs/schedule.md).
const (
	// DefaultStartGraceSeconds is how long (seconds) after its slot a run may
	// start when the schedule does not say.
	DefaultStartGraceSeconds = 1800
	// DefaultLookbackSlots is how many past slots are judged by default.
	DefaultLookbackSlots = 1
	// maxLookbackSpan bounds how far back greenlight searches a cron
	// schedule for its judged slots.
	maxLookbackSpan = 20 * 366 * 24 * time.Hour
)

// Schedule is the validated schedule of a pipeline definition: when runs are
// expected (a 5-field cron expression in a time zone, or a fixed interval),
// how late a run may start, how long it may run, and how many past slots are
// judged. Its methods are pure: they take now and read no clock.
type Schedule struct {
	// Cron is the standard 5-field cron expression, empty when EverySeconds
	// is set.
	Cron string
	// EverySeconds is the fixed interval in seconds between slots, 0 when
	// Cron is set. Slots are Since + k*EverySeconds, or multiples of the
	// interval from 1970-01-01T00:00:00Z when Since is not set.
	EverySeconds int64
	// Timezone is the IANA zone name the cron expression is read in ("UTC"
	// by default); it does not move every_seconds slots.
	Timezone string
	// StartGraceSeconds is how long after its slot a run must have started.
	StartGraceSeconds int64
	// MaxRuntimeSeconds is how long a run may be in progress, counted from
	// its first event, before it is overdue; 0 means no limit.
	MaxRuntimeSeconds int64
	// LookbackSlots is how many of the latest due slots are judged.
	LookbackSlots int
	// Since is the earliest slot; the zero time means no bound.
	Since time.Time

	loc  *time.Location
	spec cron.Schedule
}

type rawSchedule struct {
	Cron              string `json:"cron"`
	EverySeconds      int64  `json:"every_seconds"`
	Timezone          string `json:"timezone"`
	StartGraceSeconds *int64 `json:"start_grace_seconds"`
	MaxRuntimeSeconds int64  `json:"max_runtime_seconds"`
	LookbackSlots     int    `json:"lookback_slots"`
	Since             string `json:"since"`
}

// cronParser reads the standard 5-field form (minute hour day-of-month month
// day-of-week), without descriptors such as @daily.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// parseSchedule turns the schema-valid schedule of a definition into a
// Schedule: it resolves the time zone and parses the cron expression. It
// returns an error for an unknown zone, a cron expression the parser refuses
// or one that never fires.
func parseSchedule(raw *rawSchedule) (*Schedule, error) {
	s := &Schedule{
		Cron:              raw.Cron,
		EverySeconds:      raw.EverySeconds,
		Timezone:          raw.Timezone,
		StartGraceSeconds: DefaultStartGraceSeconds,
		MaxRuntimeSeconds: raw.MaxRuntimeSeconds,
		LookbackSlots:     raw.LookbackSlots,
	}
	if raw.StartGraceSeconds != nil {
		s.StartGraceSeconds = *raw.StartGraceSeconds
	}
	if s.LookbackSlots == 0 {
		s.LookbackSlots = DefaultLookbackSlots
	}
	if s.Timezone == "" {
		s.Timezone = "UTC"
	}
	if s.Timezone == "Local" {
		return nil, errors.New(`schedule.timezone "Local" depends on the machine; name an IANA zone such as Europe/Berlin, or UTC`)
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, fmt.Errorf("schedule.timezone %q is not an IANA time zone name (e.g. Europe/Berlin, UTC)", s.Timezone)
	}
	s.loc = loc
	if raw.Since != "" {
		t, ok := parseTimestamp([]byte(raw.Since))
		if !ok {
			return nil, fmt.Errorf("schedule.since %q is not an RFC 3339 date-time with an offset", raw.Since)
		}
		s.Since = t
	}
	if s.Cron != "" {
		spec, err := cronParser.Parse(s.Cron)
		if err != nil {
			return nil, fmt.Errorf("schedule.cron %q: %v", s.Cron, err)
		}
		s.spec = spec
		// A day that no month has (0 0 30 2 *) never fires; the library
		// looks five years ahead, which covers every leap day.
		if spec.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, loc)).IsZero() {
			return nil, fmt.Errorf("schedule.cron %q never fires", s.Cron)
		}
	}
	return s, nil
}

// grace is StartGraceSeconds as a duration.
func (s *Schedule) grace() time.Duration { return time.Duration(s.StartGraceSeconds) * time.Second }

// anchor is the first every_seconds slot: Since, or the Unix epoch.
func (s *Schedule) anchor() time.Time {
	if !s.Since.IsZero() {
		return s.Since
	}
	return time.Unix(0, 0).UTC()
}

// next returns the first slot strictly after t, in UTC, and false when there
// is none (a cron expression with no time in the five years after t).
func (s *Schedule) next(t time.Time) (time.Time, bool) {
	if !s.Since.IsZero() && t.Before(s.Since) {
		t = s.Since.Add(-time.Nanosecond)
	}
	if s.EverySeconds > 0 {
		a := s.anchor()
		if !s.Since.IsZero() && t.Before(a) {
			return a, true
		}
		// Go's division truncates toward zero, so before the anchor k may
		// be one interval late; c is then still the first slot after t.
		k := (t.Unix() - a.Unix()) / s.EverySeconds
		c := time.Unix(a.Unix()+k*s.EverySeconds, int64(a.Nanosecond())).UTC()
		for !c.After(t) {
			c = c.Add(time.Duration(s.EverySeconds) * time.Second)
		}
		return c, true
	}
	n := s.spec.Next(t.In(s.loc))
	if n.IsZero() {
		return time.Time{}, false
	}
	return n.UTC(), true
}

// IsSlot reports whether t is one of the schedule's slots.
func (s *Schedule) IsSlot(t time.Time) bool {
	n, ok := s.next(t.Add(-time.Nanosecond))
	return ok && n.Equal(t)
}

// JudgedSlots returns the slots judged at now, oldest first: the latest
// LookbackSlots slots S with S + StartGraceSeconds <= now, none before Since.
// A cron schedule is searched at most twenty years back.
func (s *Schedule) JudgedSlots(now time.Time) []time.Time {
	cutoff := now.Add(-s.grace())
	n := s.LookbackSlots
	span := time.Duration(n+1) * time.Minute
	if s.EverySeconds > 0 {
		span = time.Duration(int64(n+1)*s.EverySeconds) * time.Second
	}
	for {
		from := cutoff.Add(-span)
		bounded := span >= maxLookbackSpan
		if !s.Since.IsZero() && !from.After(s.Since) {
			from, bounded = s.Since.Add(-time.Nanosecond), true
		}
		var slots []time.Time
		for t := from; ; {
			next, ok := s.next(t)
			if !ok || next.After(cutoff) {
				break
			}
			slots = append(slots, next)
			t = next
		}
		if len(slots) >= n || bounded {
			if len(slots) > n {
				slots = slots[len(slots)-n:]
			}
			return slots
		}
		span *= 2
	}
}

// NextSlot returns the first slot not yet judged at now (S + grace > now),
// and false when the schedule has none ahead.
func (s *Schedule) NextSlot(now time.Time) (time.Time, bool) {
	return s.next(now.Add(-s.grace()))
}

// WindowSlot returns the latest slot S with S <= t <= S + StartGraceSeconds:
// the slot a run whose first event is at t fills without a scheduled_for.
func (s *Schedule) WindowSlot(t time.Time) (time.Time, bool) {
	cur, ok := s.next(t.Add(-s.grace() - time.Nanosecond))
	if !ok || cur.After(t) {
		return time.Time{}, false
	}
	for {
		n, ok := s.next(cur)
		if !ok || n.After(t) {
			return cur, true
		}
		cur = n
	}
}
