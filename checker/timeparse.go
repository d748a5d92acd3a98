package checker

import (
	"fmt"
	"time"
)

// ParseTime reads a moment given as an RFC 3339 date-time with an explicit
// offset, under the same rules as an event's timestamp_utc (no zone names, at
// most nanosecond precision, no leap second), and returns it in UTC.
func ParseTime(s string) (t time.Time, err error) {
	t, ok := parseTimestamp([]byte(s))
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time with an offset (e.g. 2026-01-02T03:04:05Z)", s)
	}
	return t, nil
}
