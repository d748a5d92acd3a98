package limits

import (
	"fmt"
	"strconv"
	"time"
)

// ParseDuration reads a duration of Go's syntax in which d counts days of
// 24 hours (2d, 1d12h, 26h, 90m), from 1s to MaxAge: the syntax of
// max_age, --since and merge's --max-age. The error quotes text and says
// what is accepted.
//
// checker.ParseWindow (--window) reads another syntax on purpose: one
// whole number and one unit (7d, 36h) or a run count (5000runs), up to
// 36500 days, the form a window is recorded in (docs/window.md); this one
// follows max_age's pattern in schemas/pipeline.schema.json, so that the
// flags and inputs take what a definition may say.
func ParseDuration(text string) (time.Duration, error) {
	bad := fmt.Errorf("%q: use a duration from 1s to %s, such as 26h, 90m or 2d", text, MaxAge)
	var total time.Duration
	rest := text
	if rest == "" {
		return 0, bad
	}
	for rest != "" {
		// A number (digits, an optional fraction), then its unit.
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		j := i
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		if num == "" || unit == "" {
			return 0, bad
		}
		var part time.Duration
		if unit == "d" {
			days, err := strconv.ParseUint(num, 10, 16) // whole days only
			if err != nil || days > 366 {
				return 0, bad
			}
			part = time.Duration(days) * 24 * time.Hour
		} else {
			p, err := time.ParseDuration(num + unit)
			if err != nil {
				return 0, bad
			}
			part = p
		}
		if total += part; total > MaxAge {
			return 0, bad
		}
	}
	if total < time.Second {
		return 0, bad
	}
	return total, nil
}
