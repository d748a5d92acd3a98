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
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		sec := r.Int64N(253402300800) - 62135596800 // years 0001 to 9999
		times = append(times, time.Unix(sec, r.Int64N(1e9)).In(time.FixedZone("", int(r.Int64N(28*3600))-14*3600)))
	}
	for _, tm := range times {
		if got, want := formatTime(tm), tm.UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("formatTime(%v) = %q, want %q", tm, got, want)
		}
	}
}
