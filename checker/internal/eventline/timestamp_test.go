package eventline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/schemas"
)

// TestUTCRangeBounds: the Unix bounds of parseTimestamp are the first and
// the last second of the years 0001 to 9999 in UTC.
func TestUTCRangeBounds(t *testing.T) {
	if got := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(); got != minUnixUTC {
		t.Errorf("0001-01-01T00:00:00Z is %d, minUnixUTC %d", got, int64(minUnixUTC))
	}
	if got := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix(); got != maxUnixUTC {
		t.Errorf("9999-12-31T23:59:59Z is %d, maxUnixUTC %d", got, int64(maxUnixUTC))
	}
}

// TestTimestampUTCRange: a timestamp whose UTC value falls outside the years
// 0001 to 9999 is refused by the fast path and by event.schema.json, with
// the same message whichever path refuses (outside review), in
// each of the three date-time fields of an event.
func TestTimestampUTCRange(t *testing.T) {
	const outside = "the event does not match event.schema.json: at /%s: must lie, once in UTC, in the years 0001 to 9999 (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)"
	cases := []struct {
		name, field, ts string
		valid           bool
	}{
		{"year 0000 east of UTC", "timestamp_utc", "0000-01-01T00:30:00+01:00", false},
		{"year 0000 in UTC", "timestamp_utc", "0000-06-01T00:00:00Z", false},
		{"year 0000 west of UTC reaching 0001", "timestamp_utc", "0000-12-31T23:00:00-01:00", true},
		{"year 0000 west of UTC, a nanosecond short", "timestamp_utc", "0000-12-31T22:59:59.999999999-01:00", false},
		{"first instant", "timestamp_utc", "0001-01-01T00:00:00Z", true},
		{"first instant less a minute", "timestamp_utc", "0001-01-01T00:00:00+00:01", false},
		{"last nanosecond", "timestamp_utc", "9999-12-31T23:59:59.999999999Z", true},
		{"year 9999 west of UTC reaching 10000", "timestamp_utc", "9999-12-31T23:00:00-01:00", false},
		{"scheduled_for in year 0000", "scheduled_for", "0000-01-01T00:00:00+00:00", false},
		{"lease_expires_at in year 10000", "lease_expires_at", "9999-12-31T23:59:00-00:01", false},
	}
	schema, err := schemas.Compile("event")
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := `"2026-01-01T00:00:00Z"`
			extra := ""
			if tc.field == "timestamp_utc" {
				ts = `"` + tc.ts + `"`
			} else {
				extra = `,"` + tc.field + `":"` + tc.ts + `"`
			}
			line := []byte(`{"run_id":"r-1","stage":1,"attempt":1,"status":"heartbeat","timestamp_utc":` + ts + extra + `}`)
			if f := dec.Syntax(line, false); f != nil {
				t.Fatal(f.Msg)
			}
			var ev Event
			fast := dec.fastSchema(&ev)
			msg, slow := schemaCheck(schema, line)
			if fast != tc.valid || slow != tc.valid {
				t.Fatalf("fast path %v, schema %v, want %v (%s)", fast, slow, tc.valid, msg)
			}
			if want := fmt.Sprintf(outside, tc.field); !tc.valid && msg != want {
				t.Errorf("schema message\n%s\nwant\n%s", msg, want)
			}
		})
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
		if got, ok := ParseTimestamp([]byte(s)); ok != inRange || (ok && !got.Equal(want)) {
			t.Errorf("ParseTimestamp(%s) = %v, %v; want %v, %v", s, got, ok, want.UTC(), inRange)
		}
	}
}

// TestDateTimeShape compares the word-at-a-time shape check with a byte
// loop, on random strings over digits, the separators and near misses, and
// on every single-byte change of a valid timestamp.
func TestDateTimeShape(t *testing.T) {
	slow := func(b []byte) bool {
		for i, want := range []byte("0000-00-00T00:00:00") {
			if want == '0' {
				if b[i] < '0' || b[i] > '9' {
					return false
				}
			} else if b[i] != want {
				return false
			}
		}
		return true
	}
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("0123456789-T:/;@Zt\x00\x80\xb0\xff")
	b := make([]byte, 19)
	for range 200000 {
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = "2026-01-02T03:04:05"[i]
			}
		}
		if got, want := dateTimeShape(b), slow(b); got != want {
			t.Fatalf("dateTimeShape(%q) = %v, want %v", b, got, want)
		}
	}
	for i := range 19 {
		for c := range 256 {
			copy(b, "2026-01-02T03:04:05")
			b[i] = byte(c)
			if got, want := dateTimeShape(b), slow(b); got != want {
				t.Fatalf("dateTimeShape(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

// TestParseTimestampDated runs timestamps through one dateCache, as a
// decoder reads a log, and compares each with ParseTimestamp: the same
// date again, the next day, an impossible date after a possible one of its
// month, and broken times after a cached date.
func TestParseTimestampDated(t *testing.T) {
	texts := []string{
		"2026-02-28T00:00:00Z", "2026-02-28T23:59:59.999999999Z", "2026-02-29T00:00:00Z", "2026-02-28T12:00:00+14:00",
		"2024-02-29T00:00:00Z", "2024-02-29T00:00:00.1Z", "2024-02-30T00:00:00Z", "2024-02-29T24:00:00Z",
		"2024-02-29T00:00:00.Z", "2024-02-29T00:00:00.0000000001Z", "2024-02-29T00:00:00", "2024-02-29T00:00:00Zx",
		"0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01", "9999-12-31T23:59:59-00:01",
		"9999-12-31T23:59:59Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		day := time.Date(2026, 1, 1+r.IntN(40), 0, 0, 0, 0, time.UTC)
		tm := day.Add(time.Duration(r.Int64N(86400e9)))
		texts = append(texts, tm.Format("2006-01-02T15:04:05.999999Z"))
		if r.IntN(10) == 0 {
			texts = append(texts, tm.Format("2006-01-02T15:04:05")+"x") // a broken one of the same date
		}
	}
	var dc dateCache
	for _, s := range texts {
		want, wantOK := ParseTimestamp([]byte(s))
		got, ok := parseTimestampDated([]byte(s), &dc)
		if ok != wantOK || !got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("parseTimestampDated(%s) = %v, %v; ParseTimestamp %v, %v", s, got, ok, want, wantOK)
		}
	}
}
