package checker

import (
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// ParseTime reads a moment given as an RFC 3339 date-time with an explicit
// offset, under the same rules as an event's timestamp_utc (no zone names, at
// most nanosecond precision, no leap second, in the years 0001 to 9999 once
// in UTC), and returns it in UTC. The error says which rule s breaks.
func ParseTime(s string) (time.Time, error) { return eventline.ParseTime(s) }
