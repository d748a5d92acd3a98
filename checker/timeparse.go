package checker

import (
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
