package checker

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// Schedule defaults (docs/schedule.md).
const (
	// defaultStartGraceSeconds is how long (seconds) after its slot a run may
	// start when the schedule does not say.
	defaultStartGraceSeconds = 1800
	// defaultLookbackSlots is how many past slots are judged by default.
	defaultLookbackSlots = 1
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
	// by default); it does not move every_seconds slots. It is loaded with
	// time.LoadLocation, so a program that may run without the system's
	// zone database (a WebAssembly build, a scratch container) imports
	// time/tzdata, as greenlight's binaries do (docs/schedule.md).
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
	// fixedTime is true when neither the minute nor the hour field of Cron
	// starts with * (or ?): a job at a specific time, which Vixie cron and
	// cronie move out of a DST gap and do not repeat in a DST overlap.
	fixedTime bool
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
		StartGraceSeconds: defaultStartGraceSeconds,
		MaxRuntimeSeconds: raw.MaxRuntimeSeconds,
		LookbackSlots:     raw.LookbackSlots,
	}
	if raw.StartGraceSeconds != nil {
		s.StartGraceSeconds = *raw.StartGraceSeconds
	}
	if s.LookbackSlots == 0 {
		s.LookbackSlots = defaultLookbackSlots
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
		t, ok := eventline.ParseTimestamp([]byte(raw.Since))
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
		f := strings.Fields(s.Cron)
		s.fixedTime = !strings.ContainsAny(f[0][:1]+f[1][:1], "*?")
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
//
// Around a change of the zone's offset (daylight saving time) cron slots
// follow Vixie cron and cronie (docs/schedule.md): a cron at specific times
// has the slot of a local time the clocks jump over at the first instant
// after the jump, and that of a local time they go back over once, at its
// first occurrence (nextFixed); a cron with * in its minute or hour field
// is matched against the clock as it reads, so it has no slot in a gap and
// two in an overlap (nextWild).
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
	if s.fixedTime {
		return s.nextFixed(t)
	}
	return s.nextWild(t)
}

// zoneReach (seconds) bounds how far a reading of a zone's clock may lie
// from UTC, and so how far back a change of offset can matter; every offset
// in the zone database is within 15 hours.
const zoneReach = 26 * 3600

// floatNext returns the first wall time after w that the cron expression
// matches, and false when there is none within five years. A wall time is a
// reading of the zone's clock, held as the Unix seconds of the same reading
// in UTC, where the cron library sees no change of offset.
func (s *Schedule) floatNext(w int64) (int64, bool) {
	n := s.spec.Next(time.Unix(w, 0).UTC())
	if n.IsZero() {
		return 0, false
	}
	return n.Unix(), true
}

// zoneAt returns the offset (seconds) in effect at Unix second u and the
// bounds of the period it holds for: start and end in Unix seconds, with
// hasStart or hasEnd false when the period has no such bound. A bound may
// also be one where the offset does not change (the callers step over it).
//
// time.Time.ZoneBounds can give a period that does not hold u. After a
// zone's last listed change of offset, Go derives the periods from the
// zone's rule, a year at a time; with zone data that lists few changes (Go's
// own time/tzdata, which greenlight's binaries embed and the wasm builds
// always use), Go 1.26 ends the last period of a leap year a day early
// (golang/go#81583, open upstream), so
// that 2024-12-31T22:00:00Z in Europe/Berlin is given a period ending at
// 2024-12-31T00:00:00Z, and a search that goes on from the end of a period
// never ended. Such a bound is replaced by the nearest change of offset
// found from the offsets themselves, which are right.
func (s *Schedule) zoneAt(u int64) (off int, start, end int64, hasStart, hasEnd bool) {
	t := time.Unix(u, 0).In(s.loc)
	_, off = t.Zone()
	st, en := t.ZoneBounds()
	start, end, hasStart, hasEnd = st.Unix(), en.Unix(), !st.IsZero(), !en.IsZero()
	if hasEnd && end <= u {
		end = s.offsetChange(u, off, 1)
	}
	if hasStart && start > u {
		start = s.offsetChange(u, off, -1) + 1
	}
	return off, start, end, hasStart, hasEnd
}

// offsetChange returns, going from Unix second u in direction dir (1 or
// -1), the first second whose offset is not off, within 400 days; with no
// change that near, the second 400 days away (a bound where the offset
// does not change). It steps a day at a time, then bisects: no zone changes
// its offset twice within a day.
func (s *Schedule) offsetChange(u int64, off, dir int) int64 {
	at := func(v int64) int { _, o := time.Unix(v, 0).In(s.loc).Zone(); return o }
	const day = 86400
	same := u
	for range 400 {
		next := same + int64(dir)*day
		if at(next) != off {
			// The change is after same and at or before next (in dir).
			for lo, hi := same, next; ; {
				if lo+int64(dir) == hi {
					return hi
				}
				mid := lo + (hi-lo)/2
				if at(mid) == off {
					lo = mid
				} else {
					hi = mid
				}
			}
		}
		same = next
	}
	return same
}

// nextWild is next for a cron with * in its minute or hour field: the first
// instant after t at which the local clock reads a time the expression
// matches. It steps from one offset period of the zone to the next.
func (s *Schedule) nextWild(t time.Time) (time.Time, bool) {
	// Slots are whole seconds: after t is after its second. q is an instant
	// of the period whose offset reads the clock.
	after := t.Unix()
	for q, limit := after, after+6*366*86400; q < limit; {
		off, _, end, _, hasEnd := s.zoneAt(q)
		w, ok := s.floatNext(after + int64(off))
		if !ok {
			return time.Time{}, false
		}
		if u := w - int64(off); !hasEnd || u < end {
			return time.Unix(u, 0).UTC(), true
		}
		// This period ends before the clock reads w: go on from its end,
		// where the next period's offset reads the clock.
		after, q = end-1, end
	}
	return time.Time{}, false
}

// nextFixed is next for a cron at specific times: the slot of a matching
// wall time W is the first instant the local clock reads W or later, so a W
// in a gap is due when the gap ends, and a W read twice is due the first
// time. Slots grow with W, so the first slot after t belongs to the first
// matching W above the highest reading the clock has shown by t.
func (s *Schedule) nextFixed(t time.Time) (time.Time, bool) {
	u := t.Unix()
	off, start, _, hasStart, _ := s.zoneAt(u)
	high := u + int64(off)
	// A clock that went back shows readings it has shown before: the
	// highest reading is the one just before it went back.
	for p, ok := start, hasStart; ok && p > u-zoneReach; {
		prevOff, prevStart, _, prevHasStart, _ := s.zoneAt(p - 1)
		high = max(high, p-1+int64(prevOff))
		p, ok = prevStart, prevHasStart
	}
	w, ok := s.floatNext(high)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(s.firstReading(w), 0).UTC(), true
}

// firstReading returns the first instant (Unix seconds) at which the local
// clock reads wall time w or later: w's single occurrence, the first of two
// when the clocks went back over it, or the end of the gap the clocks
// jumped over it in.
func (s *Schedule) firstReading(w int64) int64 {
	for p := w - zoneReach; ; {
		off, start, end, hasStart, hasEnd := s.zoneAt(p)
		// In this period the clock reads instant+off; it reaches w at
		// w-off, unless the period ends first.
		if !hasEnd || w < end+int64(off) {
			u := w - int64(off)
			if hasStart && u < start {
				u = start
			}
			return u
		}
		p = end
	}
}

// isSlot reports whether t is one of the schedule's slots.
func (s *Schedule) isSlot(t time.Time) bool {
	n, ok := s.next(t.Add(-time.Nanosecond))
	return ok && n.Equal(t)
}

// judgedSlots returns the slots judged at now, oldest first: the latest
// LookbackSlots slots S with S + StartGraceSeconds <= now, none before Since.
// A cron schedule is searched at most twenty years back.
func (s *Schedule) judgedSlots(now time.Time) []time.Time {
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

// nextSlot returns the first slot not yet judged at now (S + grace > now),
// and false when the schedule has none ahead.
func (s *Schedule) nextSlot(now time.Time) (time.Time, bool) {
	return s.next(now.Add(-s.grace()))
}

// windowSlot returns the latest slot S with S <= t <= S + StartGraceSeconds:
// the slot a run whose first event is at t fills without a scheduled_for.
func (s *Schedule) windowSlot(t time.Time) (time.Time, bool) {
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
