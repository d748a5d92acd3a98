package checker

import (
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"
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

// TestStateSizes holds the per-attempt and per-run sizes the comments on
// attemptState and runState promise, since memory grows with them: 80 bytes
// each on a 64-bit target (amd64, arm64, wasm). On a 32-bit one (386, arm,
// mips) an int, a pointer and the words of a string or slice header are 4
// bytes and an int64 is 4-aligned, so the same fields take 56 and 52 bytes.
func TestStateSizes(t *testing.T) {
	want := map[uintptr]struct{ attempt, run uintptr }{
		8: {attempt: 80, run: 80},
		4: {attempt: 56, run: 52},
	}
	word := unsafe.Sizeof(uintptr(0))
	w, ok := want[word]
	if !ok {
		t.Fatalf("no sizes stated for a %d-byte word", word)
	}
	if n := unsafe.Sizeof(attemptState{}); n != w.attempt {
		t.Errorf("attemptState is %d bytes, want %d with a %d-byte word", n, w.attempt, word)
	}
	if n := unsafe.Sizeof(runState{}); n != w.run {
		t.Errorf("runState is %d bytes, want %d with a %d-byte word", n, w.run, word)
	}
}

// TestParseTimestamp checks the hand-written timestamp reader against
// time.Parse (RFC 3339) on edge cases and a seeded spread of years 0000 to
// 9999, offsets and fractions, and its bound on the UTC year against
// time.Time.Year.
func TestParseTimestamp(t *testing.T) {
	texts := []string{
		"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "0000-01-01T00:00:00Z", "0000-03-01T00:00:00+14:00",
		"0000-02-29T12:00:00Z", "9999-12-31T23:59:59-23:59", "2000-02-29T00:00:00Z", "2100-03-01T00:00:00Z",
		"1600-02-29T00:00:00.5Z", "2026-06-30T12:34:56.000001+05:30",
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		sec := r.Int64N(315537897600) - 62167219200 // 0000-01-01 to 9999-12-31
		tm := time.Unix(sec, r.Int64N(1e9)).UTC()
		off := int(r.Int64N(47*60))*60 - 23*3600 - 59*60 // -23:59 to +23:00
		layout := "2006-01-02T15:04:05.999999999Z07:00"
		if tm.Year() < 1 || tm.In(time.FixedZone("", off)).Year() > 9999 || tm.In(time.FixedZone("", off)).Year() < 0 {
			off = 0
		}
		texts = append(texts, tm.In(time.FixedZone("", off)).Format(layout))
	}
	for _, s := range texts {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got, ok := parseTimestampAnyYear([]byte(s))
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("parseTimestampAnyYear(%s) = %v, %v; want %v", s, got, ok, want.UTC())
		}
		// parseTimestamp also asks for the years 0001 to 9999 in UTC.
		inRange := want.UTC().Year() >= 1 && want.UTC().Year() <= 9999
		if got, ok := parseTimestamp([]byte(s)); ok != inRange || (ok && !got.Equal(want)) {
			t.Errorf("parseTimestamp(%s) = %v, %v; want %v, %v", s, got, ok, want.UTC(), inRange)
		}
	}
}
