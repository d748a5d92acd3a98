package checker

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// bruteSlots is the reference for cron slots in [from, to): it reads the
// zone's clock at every minute of real time. A cron with * in its minute or
// hour field has a slot at every minute whose reading matches; one at fixed
// times has, for every matching reading W, a slot at the first minute whose
// reading is W or later (docs/schedule.md, after Vixie cron).
func bruteSlots(t *testing.T, s *Schedule, from, to time.Time) []string {
	t.Helper()
	reading := func(u time.Time) time.Time {
		l := u.In(s.loc)
		return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, time.UTC)
	}
	var out []string
	if !s.fixedTime {
		for u := from; u.Before(to); u = u.Add(time.Minute) {
			r := reading(u)
			if s.spec.Next(r.Add(-time.Second)).Equal(r) {
				out = append(out, u.UTC().Format(time.RFC3339))
			}
		}
		return out
	}
	// Every matching reading from a day before from, each at the first
	// minute that reads it or later (which grows with the reading, so the
	// scan goes on from the last one).
	u := from.Add(-30 * time.Hour)
	for w := s.spec.Next(reading(u)); u.Before(to); w = s.spec.Next(w) {
		for reading(u).Before(w) && u.Before(to) {
			u = u.Add(time.Minute)
		}
		if !u.Before(from) && u.Before(to) {
			if k := u.UTC().Format(time.RFC3339); len(out) == 0 || out[len(out)-1] != k {
				out = append(out, k)
			}
		}
	}
	return out
}

// TestCronSlotsMatchReference compares the slots next enumerates with the
// minute-by-minute reference, across both DST transitions of zones in both
// hemispheres and with half-hour offsets and half-hour shifts.
func TestCronSlotsMatchReference(t *testing.T) {
	zones := []string{"Europe/Berlin", "America/Los_Angeles", "Australia/Sydney", "Australia/Lord_Howe", "America/St_Johns", "Asia/Kolkata", "Pacific/Chatham", "UTC"}
	crons := []string{"30 2 * * *", "0 2 * * *", "15 2 * * *", "0,30 1-3 * * *", "45 1 * * 0", "*/15 * * * *", "30 * * * *", "0 */2 * * *", "10 2 * * *"}
	// Windows of four days around each 2026 transition of the zones above
	// (northern spring and autumn, southern autumn and spring), and two in
	// 2040, past the zone database's listed transitions, where its rule
	// string gives them.
	windows := []string{"2026-03-07", "2026-03-27", "2026-04-03", "2026-09-25", "2026-10-02", "2026-10-23", "2026-10-31", "2026-11-01", "2040-03-23", "2040-10-26"}
	for _, zone := range zones {
		for _, expr := range crons {
			def, err := ParseDefinition([]byte(fmt.Sprintf("stages: [{id: 1}]\nschedule: {cron: %q, timezone: %s}\n", expr, zone)))
			if err != nil {
				t.Fatal(err)
			}
			s := def.Schedule
			for _, day := range windows {
				from, _ := time.Parse(time.DateOnly, day)
				to := from.Add(4 * 24 * time.Hour)
				want := bruteSlots(t, s, from, to)
				var got []string
				for c := from.Add(-time.Nanosecond); ; {
					n, ok := s.next(c)
					if !ok || !n.Before(to) {
						break
					}
					got = append(got, n.Format(time.RFC3339))
					c = n
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s in %s from %s:\ngot  %v\nwant %v", expr, zone, day, got, want)
				}
			}
		}
	}
}
