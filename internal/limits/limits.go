// Package limits holds the defaults and bounds that the core (checker) and
// the shells (internal/cli, internal/action, internal/emit,
// internal/viewcmd, checker/openlineage) share: the shells print them in
// help and check their flags and inputs against them, and checker applies
// them, so that every shell refuses the same values with the same range.
// It holds constants and ParseDuration, the duration syntax MaxAge bounds.
package limits

import "time"

// ClockSkewSeconds is how far (seconds) an event may lie after now before
// it is timestamp_in_future; emit refuses a --now later than the wall
// clock by more.
const ClockSkewSeconds = 300

// DefaultMaxLineBytes is the longest line read when Options.MaxLineBytes
// is 0 (bytes, 1 MiB).
const DefaultMaxLineBytes = 1 << 20

// DefaultMaxViolations is how many violations a report lists when
// Options.MaxViolations is 0; the rest are counted in omitted_count.
const DefaultMaxViolations = 1000

// MaxAge is the longest max_age (and --max-age) greenlight takes: 366
// days.
const MaxAge = 366 * 24 * time.Hour

// The ranges of the numeric options (outside review): each runs from 1 to
// its limit, and a value outside is an error that names the option, the
// value and the range, in every shell.
const (
	// StaleAfterSeconds (seconds, 365 days) is the bound
	// schemas/pipeline.schema.json puts on stale_after_seconds, which
	// --stale-after-seconds overrides.
	StaleAfterSeconds = 31536000
	// MaxLineBytes (bytes, 1 GiB) bounds --max-line-bytes: a line up to
	// the limit is held in memory whole.
	MaxLineBytes = 1 << 30
	// MaxViolations bounds --max-violations: every listed violation is
	// held in memory and printed.
	MaxViolations = 1000000
)

// MaxRequests is how many requests (request events' request_id,
// docs/recovery.md, Claimed requests) one check keeps: each is held in
// memory until the snapshot. A log that names more is an error, never a
// request dropped.
const MaxRequests = 1000000
