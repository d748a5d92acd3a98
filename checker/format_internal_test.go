package checker

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFormatTime keeps the hand-written layout equal to time.RFC3339Nano in
// UTC, for fixed edge cases and a seeded spread of instants and offsets.
func TestFormatTime(t *testing.T) {
	east := time.FixedZone("", 14*3600)
	west := time.FixedZone("", -(12*3600 + 30*60))
	times := []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 6, 1, 12, 0, 0, 100000000, time.UTC),
		time.Date(2026, 6, 1, 12, 0, 0, 1, time.UTC),
		time.Date(2026, 6, 1, 12, 0, 0, 120000, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(0, 1, 1, 5, 0, 0, 0, east),       // year -1 in UTC
		time.Date(9999, 12, 31, 20, 0, 0, 0, west), // year 10000 in UTC
		time.Date(2024, 2, 29, 23, 0, 0, 5, east),
		// The bounds of formatTime's own calendar, and leap days around
		// century years.
		time.Unix(minFormatUnix, 0), time.Unix(minFormatUnix-1, 999999999), time.Unix(maxFormatUnix, 999999999), time.Unix(maxFormatUnix+1, 0),
		time.Date(0, 2, 29, 12, 0, 0, 0, time.UTC), time.Date(1600, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(1900, 2, 28, 23, 59, 59, 0, time.UTC),
		time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 2, 29, 0, 0, 0, 10, time.UTC), time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for d := range 146097 { // every day of one 400-year cycle, at a second before its end
		times = append(times, time.Date(1600, 3, 1+d, 23, 59, 59, d%1000*1000, time.UTC))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		sec := r.Int64N(253402300800) - 62135596800 // years 0001 to 9999
		times = append(times, time.Unix(sec, r.Int64N(1e9)).In(time.FixedZone("", int(r.Int64N(28*3600))-14*3600)))
	}
	// A run report's times go through one dateText: each time is to be
	// the same whether its day is the one before it or not.
	var dc dateText
	for i, tm := range times {
		want := tm.UTC().Format(time.RFC3339Nano)
		if got := formatTime(tm); got != want {
			t.Errorf("formatTime(%v) = %q, want %q", tm, got, want)
		}
		for _, at := range []time.Time{tm, tm.Add(time.Hour), tm} { // the day again, maybe the next
			if got, want := string(appendTimeDated([]byte("x"), at, &dc)), "x"+at.UTC().Format(time.RFC3339Nano); got != want {
				t.Errorf("time %d: appendTimeDated(%v) after day %d = %q, want %q", i, at, dc.day, got, want)
			}
		}
	}
}

// BenchmarkFormatTime formats the times of a run report: microsecond
// fractions, as genlog.py writes them, and whole seconds.
func BenchmarkFormatTime(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 1, 32, 0, time.UTC)
	var n int
	for i := 0; b.Loop(); i++ {
		n += len(formatTime(t0.Add(time.Duration(i) * 1733 * time.Microsecond)))
	}
	if n == 0 {
		b.Fatal("nothing formatted")
	}
}

// TestSecondsBetween compares secondsBetween with Sub on times of the
// store (time.Unix, no monotonic reading): near and far apart, either
// way round, with fractions, and at the ends of time.Time where Sub
// saturates.
func TestSecondsBetween(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	var pairs [][2]time.Time
	for range 100000 {
		from := time.Unix(base+r.Int64N(1e8), r.Int64N(1e9)).UTC()
		to := time.Unix(from.Unix()+r.Int64N(2e5)-1e5, r.Int64N(1e9)).UTC()
		pairs = append(pairs, [2]time.Time{from, to}, [2]time.Time{to, from})
	}
	for _, ds := range []int64{8999999999, 9e9, 9223372036, 9223372037, 1 << 40, 1 << 62} {
		from := time.Unix(base, 999999999).UTC()
		for _, to := range []time.Time{time.Unix(base+ds, 0).UTC(), time.Unix(base-ds, 0).UTC(), time.Unix(base+ds, 999999999).UTC()} {
			pairs = append(pairs, [2]time.Time{from, to}, [2]time.Time{to, from})
		}
	}
	pairs = append(pairs, [2]time.Time{time.Unix(-1<<62, 0).UTC(), time.Unix(1<<62, 0).UTC()}, [2]time.Time{{}, time.Unix(base, 5).UTC()})
	for _, p := range pairs {
		if got, want := secondsBetween(p[0], p[1]), p[1].Sub(p[0]).Seconds(); got != want {
			t.Fatalf("secondsBetween(%v, %v) = %v, want %v", p[0], p[1], got, want)
		}
	}
}
