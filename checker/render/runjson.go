package render

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/swar"
)

// appendRun appends the JSON of one run report exactly as json.Marshal
// writes it (compact: a snapshot lists one run per line), without
// reflection: the snapshot of a million-event log has hundreds of
// thousands of runs. TestAppendRunMatches
// compares the two on every corpus snapshot and fails when a report type
// gains a field this function does not write.
func appendRun(b []byte, r *checker.RunReport) []byte {
	b = append(b, '{')
	b = append(b, `"run_id":`...)
	b = appendString(b, r.RunID)
	b = append(b, `,"state":`...)
	b = appendString(b, string(r.State))
	b = append(b, `,"first_event_at":`...)
	b = appendString(b, r.FirstEventAt)
	b = append(b, `,"last_event_at":`...)
	b = appendString(b, r.LastEventAt)
	b = append(b, `,"duration_seconds":`...)
	b = appendFloat(b, r.DurationSeconds)
	b = append(b, `,"first_line":`...)
	b = strconv.AppendInt(b, int64(r.FirstLine), 10)
	if r.ScheduledFor != nil {
		b = append(b, `,"scheduled_for":`...)
		b = appendString(b, *r.ScheduledFor)
	}
	if r.OverdueBySeconds != nil {
		b = append(b, `,"overdue_by_seconds":`...)
		b = appendFloat(b, *r.OverdueBySeconds)
	}
	b = append(b, `,"recovery":{"action":`...)
	b = appendString(b, string(r.Recovery.Action))
	b = append(b, `,"run_id":`...)
	b = appendString(b, r.Recovery.RunID)
	b = append(b, `,"stage":`...)
	if r.Recovery.Stage == nil {
		b = append(b, "null"...)
	} else {
		b = appendStage(b, *r.Recovery.Stage)
	}
	b = append(b, `,"attempt":`...)
	b = appendOptInt(b, r.Recovery.Attempt)
	b = append(b, `,"attempt_id":`...)
	b = appendOptString(b, r.Recovery.AttemptID)
	b = append(b, `,"owner":`...)
	b = appendOptString(b, r.Recovery.Owner)
	b = append(b, `,"steps":`...)
	switch {
	case r.Recovery.Steps == nil:
		b = append(b, "null"...)
	case len(r.Recovery.Steps) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, step := range r.Recovery.Steps {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, step)
		}
		b = append(b, "]"...)
	}
	b = append(b, "}"...)
	b = append(b, `,"stages":`...)
	if r.Stages == nil {
		b = append(b, "null"...)
	} else if len(r.Stages) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i := range r.Stages {
			s := &r.Stages[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stage":`...)
			b = appendStage(b, s.Stage)
			b = append(b, `,"name":`...)
			b = appendOptString(b, s.Name)
			b = append(b, `,"state":`...)
			b = appendString(b, string(s.State))
			b = append(b, `,"status_reason":`...)
			b = appendOptString(b, s.StatusReason)
			b = append(b, `,"attempt_count":`...)
			b = strconv.AppendInt(b, int64(s.AttemptCount), 10)
			b = append(b, `,"attempts":`...)
			if s.Attempts == nil {
				b = append(b, "null"...)
			} else if len(s.Attempts) == 0 {
				b = append(b, "[]"...)
			} else {
				b = append(b, '[')
				for k := range s.Attempts {
					a := &s.Attempts[k]
					if k > 0 {
						b = append(b, ',')
					}
					b = append(b, `{"attempt":`...)
					b = strconv.AppendInt(b, a.Attempt, 10)
					b = append(b, `,"status":`...)
					b = appendString(b, a.Status)
					b = append(b, `,"started_at":`...)
					b = appendString(b, a.StartedAt)
					b = append(b, `,"ended_at":`...)
					b = appendOptString(b, a.EndedAt)
					b = append(b, `,"duration_seconds":`...)
					b = appendOptFloat(b, a.DurationSeconds)
					b = append(b, `,"returncode":`...)
					if a.Returncode == nil {
						b = append(b, "null"...)
					} else {
						b = strconv.AppendInt(b, *a.Returncode, 10)
					}
					b = append(b, `,"error":`...)
					b = appendOptString(b, a.Error)
					b = append(b, `,"silent_for_seconds":`...)
					b = appendOptFloat(b, a.SilentForSeconds)
					b = append(b, `,"line":`...)
					b = strconv.AppendInt(b, int64(a.Line), 10)
					b = append(b, `,"stale_candidate":`...)
					b = strconv.AppendBool(b, a.StaleCandidate)
					if a.AttemptID == nil && a.Owner == nil && a.ErrorCode == nil && a.LeaseExpiresAt == nil &&
						a.Reason == nil && a.Resolution == nil && a.AdjudicatedFrom == nil && a.JobLogLine == nil {
						// Most attempts have none of the recovery model's fields.
						b = append(b, `,"attempt_id":null,"owner":null,"error_code":null,"lease_expires_at":null,"reason":null,"resolution":null,"adjudicated_from":null,"job_log_line":null`...)
					} else {
						b = append(b, `,"attempt_id":`...)
						b = appendOptString(b, a.AttemptID)
						b = append(b, `,"owner":`...)
						b = appendOptString(b, a.Owner)
						b = append(b, `,"error_code":`...)
						b = appendOptString(b, a.ErrorCode)
						b = append(b, `,"lease_expires_at":`...)
						b = appendOptString(b, a.LeaseExpiresAt)
						b = append(b, `,"reason":`...)
						b = appendOptString(b, a.Reason)
						b = append(b, `,"resolution":`...)
						if res := a.Resolution; res == nil {
							b = append(b, "null"...)
						} else {
							b = append(b, `{"resolution":`...)
							b = appendString(b, res.Resolution)
							b = append(b, `,"reason":`...)
							b = appendString(b, res.Reason)
							b = append(b, `,"evidence_ref":`...)
							b = appendString(b, res.EvidenceRef)
							b = append(b, `,"resolved_by":`...)
							b = appendString(b, res.ResolvedBy)
							b = append(b, `,"approved_by":`...)
							b = appendOptString(b, res.ApprovedBy)
							b = append(b, `,"resolved_at":`...)
							b = appendString(b, res.ResolvedAt)
							b = append(b, `,"line":`...)
							b = strconv.AppendInt(b, int64(res.Line), 10)
							b = append(b, "}"...)
						}
						b = append(b, `,"adjudicated_from":`...)
						b = appendOptString(b, a.AdjudicatedFrom)
						b = append(b, `,"job_log_line":`...)
						if a.JobLogLine == nil {
							b = append(b, "null"...)
						} else {
							b = strconv.AppendInt(b, int64(*a.JobLogLine), 10)
						}
					}
					b = append(b, "}"...)
				}
				b = append(b, "]"...)
			}
			b = append(b, "}"...)
		}
		b = append(b, "]"...)
	}
	return append(b, '}')
}

// plain8 tells whether the eight bytes of s at i are ASCII that JSON
// writes as they are: no control character, quote, backslash, <, > or &.
func plain8(s string, i int) bool {
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	return swar.NonASCII(w)|swar.Below(w, 0x20)|swar.Equal(w, '"')|swar.Equal(w, '\\')|
		swar.Equal(w, '<')|swar.Equal(w, '>')|swar.Equal(w, '&') == 0
}

func appendStage(b []byte, s checker.StageID) []byte {
	if s.Str != "" {
		return appendString(b, s.Str)
	}
	return strconv.AppendInt(b, s.Int, 10)
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendOptInt(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

func appendOptFloat(b []byte, f *float64) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	return appendFloat(b, *f)
}

// appendFloat formats f as encoding/json does: the shortest representation,
// in exponent form only below 1e-6 or from 1e21 on, with a one-digit
// negative exponent written without its leading zero.
func appendFloat(b []byte, f float64) []byte {
	// Whole numbers of seconds are most durations; strconv.AppendInt writes
	// them in the same digits as AppendFloat's 'f' format, faster.
	if f == math.Trunc(f) && f != 0 && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping: < > & and
// control characters as \u00XX (with the short forms \" \\ \b \f \n \r \t),
// U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a second look.
		if i+8 <= len(s) && plain8(s, i) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
