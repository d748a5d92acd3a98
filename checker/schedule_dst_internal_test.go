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
func bruteSlots(t testing.TB, s *Schedule, from, to time.Time) []string {
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

// The zones and crons of the DST tests: both hemispheres, half-hour
// offsets and the half-hour shift of Lord Howe; crons at fixed times and
// with * in the minute or hour field.
var (
	dstZones = []string{"Europe/Berlin", "America/Los_Angeles", "Australia/Sydney", "Australia/Lord_Howe", "America/St_Johns", "Asia/Kolkata", "Pacific/Chatham", "UTC"}
	dstCrons = []string{"30 2 * * *", "0 2 * * *", "15 2 * * *", "0,30 1-3 * * *", "45 1 * * 0", "*/15 * * * *", "30 * * * *", "0 */2 * * *", "10 2 * * *"}
)

// dstSchedule parses the schedule of cron expr in zone.
func dstSchedule(t testing.TB, expr, zone string) *Schedule {
	t.Helper()
	def, err := ParseDefinition([]byte(fmt.Sprintf("stages: [{id: 1}]\nschedule: {cron: %q, timezone: %s}\n", expr, zone)))
	if err != nil {
		t.Fatal(err)
	}
	return def.Schedule
}

// TestCronSlotsMatchReference compares the slots next enumerates with the
// minute-by-minute reference, across both DST transitions of zones in both
// hemispheres and with half-hour offsets and half-hour shifts.
func TestCronSlotsMatchReference(t *testing.T) {
	// Windows of four days around each 2026 transition of the zones above
	// (northern spring and autumn, southern autumn and spring), and two in
	// 2040, past the zone database's listed transitions, where its rule
	// string gives them.
	windows := []string{"2026-03-07", "2026-03-27", "2026-04-03", "2026-09-25", "2026-10-02", "2026-10-23", "2026-10-31", "2026-11-01", "2040-03-23", "2040-10-26"}
	for _, zone := range dstZones {
		for _, expr := range dstCrons {
			s := dstSchedule(t, expr, zone)
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

// FuzzCronNext compares next with the reference at any minute from 1990 to
// 2060, for the zones and crons of TestCronSlotsMatchReference.
func FuzzCronNext(f *testing.F) {
	for _, seed := range []struct {
		zone, cron uint8
		minute     int32
	}{{0, 0, 0}, {1, 1, 3_000_000}, {3, 3, -5_000_000}, {6, 6, 12_345_678}} {
		f.Add(seed.zone, seed.cron, seed.minute)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var scheds [][]*Schedule // [zone][cron], parsed once
	for _, zone := range dstZones {
		var row []*Schedule
		for _, expr := range dstCrons {
			row = append(row, dstSchedule(f, expr, zone))
		}
		scheds = append(scheds, row)
	}
	f.Fuzz(func(t *testing.T, zi, ci uint8, minute int32) {
		s := scheds[int(zi)%len(dstZones)][int(ci)%len(dstCrons)]
		at := base.Add(time.Duration(int64(minute)%(35*366*1440)) * time.Minute)
		want := bruteSlots(t, s, at.Add(time.Minute), at.Add(8*24*time.Hour))
		got, ok := s.next(at)
		if len(want) == 0 || !ok || got.Format(time.RFC3339) != want[0] {
			t.Errorf("%s in %s after %s: next %s %v, reference %v", s.Cron, s.Timezone, at.Format(time.RFC3339), got.Format(time.RFC3339), ok, want)
		}
	})
}
