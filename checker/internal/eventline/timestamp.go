package eventline

import (
	"encoding/binary"
	"fmt"
	"time"
)

// ParseTime reads a moment given as an RFC 3339 date-time with an explicit
// offset, under the same rules as an event's timestamp_utc (no zone names, at
// most nanosecond precision, no leap second, in the years 0001 to 9999 once
// in UTC), and returns it in UTC.
func ParseTime(s string) (t time.Time, err error) {
	t, ok := parseTimestampAnyYear([]byte(s))
	if ok && !inUTCRange(t) {
		return time.Time{}, fmt.Errorf("%q is outside the years 0001 to 9999 in UTC (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z), the instants an RFC 3339 time in UTC can write", s)
	}
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time with an offset (e.g. 2026-01-02T03:04:05Z)", s)
	}
	return t, nil
}

// ParseTimestamp checks b against the timestamp_utc pattern of
// schemas/event.schema.json,
// ^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$,
// that the date exists (the schema's "date-time" format) and that the
// instant lies, in UTC, in the years 0001 to 9999 (the schema's
// "greenlight-utc-range" format), and returns the instant in UTC.
func ParseTimestamp(b []byte) (time.Time, bool) { return parseTimestampDated(b, nil) }

// parseTimestampDated is ParseTimestamp, keeping the last date it read in
// dc (when not nil) and taking the date's day from there when b is of the
// same date, as most timestamps of a log are.
func parseTimestampDated(b []byte, dc *dateCache) (time.Time, bool) {
	t, ok := parseTimestampCached(b, dc)
	if !ok || !inUTCRange(t) {
		return time.Time{}, false
	}
	return t, true
}

// dateCache is the date part ("2026-01-02") of the last timestamp a
// decoder read and its day, daysSinceEpoch: a date is kept only once it
// passed every check of the date.
type dateCache struct {
	date [10]byte
	days int64
	ok   bool
}

// Bounds of an instant greenlight reads or writes, in Unix seconds: from
// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, the instants whose
// UTC form RFC 3339 can write (four-digit years; year 0000 is left out, as
// the outside review asks). Year 0000 with +01:00 would otherwise
// become -0001-12-31T23:00:00Z in a snapshot.
// TestUTCRangeBounds checks them against time.Date.
const (
	minUnixUTC = -62135596800 // 0001-01-01T00:00:00Z
	maxUnixUTC = 253402300799 // 9999-12-31T23:59:59Z; any fraction of that second is in range
)

// inUTCRange reports whether t lies in the years 0001 to 9999 in UTC.
func inUTCRange(t time.Time) bool {
	u := t.Unix()
	return u >= minUnixUTC && u <= maxUnixUTC
}

// parseTimestampAnyYear is ParseTimestamp without the bound on the UTC
// year.
func parseTimestampAnyYear(b []byte) (time.Time, bool) { return parseTimestampCached(b, nil) }

// pow10 holds 10 to the powers 9 down to 0: what a fraction of n digits
// is multiplied by to give nanoseconds, at pow10[n].
var pow10 = [10]int{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// parseTimestampCached is parseTimestampAnyYear with a dateCache (nil: none).
func parseTimestampCached(b []byte, dc *dateCache) (time.Time, bool) {
	if len(b) < 20 {
		return time.Time{}, false
	}
	digit := func(i int) bool { return b[i] >= '0' && b[i] <= '9' }
	num2 := func(i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }
	if !dateTimeShape(b) {
		return time.Time{}, false
	}
	hour, minute, sec := num2(11), num2(14), num2(17)
	if hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	i := 19
	nsec := 0
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) && digit(i) {
			nsec = nsec*10 + int(b[i]-'0') // wraps, harmlessly, past 18 digits
			i++
		}
		nd := i - start
		if nd < 1 || nd > 9 {
			return time.Time{}, false
		}
		nsec *= pow10[nd]
	}
	if i >= len(b) {
		return time.Time{}, false
	}
	offset := 0
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if len(b)-i != 6 || !digit(i+1) || !digit(i+2) || b[i+3] != ':' || !digit(i+4) || !digit(i+5) {
			return time.Time{}, false
		}
		oh, om := num2(i+1), num2(i+4)
		if oh > 23 || om > 59 {
			return time.Time{}, false
		}
		offset = (oh*60 + om) * 60
		if b[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return time.Time{}, false
	}
	if i != len(b) {
		return time.Time{}, false
	}
	var days int64
	if dc != nil && dc.ok && string(b[:10]) == string(dc.date[:]) {
		days = dc.days
	} else {
		year := int(b[0]-'0')*1000 + int(b[1]-'0')*100 + num2(2)
		month, day := num2(5), num2(8)
		if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
			return time.Time{}, false
		}
		days = daysSinceEpoch(year, month, day)
		if dc != nil {
			*dc = dateCache{days: days, ok: true}
			copy(dc.date[:], b[:10])
		}
	}
	unix := days*86400 + int64(hour*3600+minute*60+sec-offset)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// dateTimeShape reports whether b, of at least 19 bytes, starts with
// "dddd-dd-ddTdd:dd:dd" where each d is an ASCII digit. It reads eight bytes
// at a time (b[0:8], b[8:16], b[11:19]), XORed with the shape where every d
// is '0': a digit becomes 0 to 9 and a matching separator 0. A word passes
// when none of its bytes is 10 or more (adding 0x76 to a byte below 0x80
// sets its high bit exactly when it is 10 or more, with no carry) and its
// separator bytes are 0. TestDateTimeShape compares it with a byte loop.
func dateTimeShape(b []byte) bool {
	const (
		highs = 0x8080808080808080
		nines = 0x7676767676767676
		// The shapes "0000-00-", "00T00:00" and "00:00:00" as little-endian
		// words, and masks of their separator bytes.
		shape0, sep0 = 0x2d30302d30303030, 0xff0000ff00000000
		shape1, sep1 = 0x30303a3030543030, 0x0000ff0000ff0000
		shape2, sep2 = 0x30303a30303a3030, 0x0000ff0000ff0000
	)
	word := func(w, shape, sep uint64) bool {
		x := w ^ shape
		return (x|(x+nines))&highs == 0 && x&sep == 0
	}
	_ = b[18]
	return word(binary.LittleEndian.Uint64(b[0:]), shape0, sep0) &&
		word(binary.LittleEndian.Uint64(b[8:]), shape1, sep1) &&
		word(binary.LittleEndian.Uint64(b[11:]), shape2, sep2)
}

// daysSinceEpoch is the number of days from 1970-01-01 to the proleptic
// Gregorian date year-month-day (negative before it): the days-from-civil
// algorithm of Howard Hinnant's "chrono-Compatible Low-Level Date
// Algorithms". It is cheaper than time.Date, which also normalizes.
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era-- // floor division
	}
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
