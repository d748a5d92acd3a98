package render

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker"
)

// appendRun appends the JSON of one run report exactly as json.Marshal
// writes it (compact: a snapshot lists one run per line), without
// reflection: the snapshot of a million-event log has hundreds of
// thousands of runs. TestAppendRunMatches and TestAppendRunRandom
// compare the two and fail when a report type gains a field this
// function does not write. Strings are written between keys that carry
// their quotes (appendText), so that a report of a few attempts costs a
// few dozen appends of constant text, not twice that.
func appendRun(b []byte, r *checker.RunReport) []byte {
	b = append(b, `{"run_id":"`...)
	b = appendText(b, r.RunID)
	b = append(b, `","state":"`...)
	b = appendWord(b, string(r.State))
	b = append(b, `","first_event_at":"`...)
	b = appendText(b, r.FirstEventAt)
	b = append(b, `","last_event_at":"`...)
	b = appendText(b, r.LastEventAt)
	b = append(b, `","duration_seconds":`...)
	b = appendFloat(b, r.DurationSeconds)
	b = append(b, `,"first_line":`...)
	b = appendInt(b, int64(r.FirstLine))
	if r.ScheduledFor != nil {
		b = append(b, `,"scheduled_for":"`...)
		b = appendText(b, *r.ScheduledFor)
		b = append(b, '"')
	}
	if r.LogicalAt != nil {
		b = append(b, `,"logical_at":"`...)
		b = appendText(b, *r.LogicalAt)
		b = append(b, '"')
	}
	if r.OverdueBySeconds != nil {
		b = append(b, `,"overdue_by_seconds":`...)
		b = appendFloat(b, *r.OverdueBySeconds)
	}
	if r.Close != nil {
		// Few runs have a close: encoding/json writes it, as it would
		// within the whole report.
		c, _ := json.Marshal(r.Close) // strings, ints and pointers to them: never an error
		b = append(b, `,"close":`...)
		b = append(b, c...)
	}
	b = appendRecovery(b, &r.Recovery)
	if r.Stages == nil {
		b = append(b, `,"stages":null`...)
	} else if len(r.Stages) == 0 {
		b = append(b, `,"stages":[]`...)
	} else {
		b = append(b, `,"stages":[`...)
		for i := range r.Stages {
			s := &r.Stages[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stage":`...)
			b = appendStage(b, s.Stage)
			if s.Name == nil {
				b = append(b, `,"name":null,"state":"`...)
			} else {
				b = append(b, `,"name":"`...)
				b = appendText(b, *s.Name)
				b = append(b, `","state":"`...)
			}
			b = appendWord(b, string(s.State))
			if s.StatusReason == nil {
				b = append(b, `","status_reason":null,"attempt_count":`...)
			} else {
				b = append(b, `","status_reason":"`...)
				b = appendText(b, *s.StatusReason)
				b = append(b, `","attempt_count":`...)
			}
			b = appendInt(b, int64(s.AttemptCount))
			if s.Attempts == nil {
				b = append(b, `,"attempts":null`...)
			} else if len(s.Attempts) == 0 {
				b = append(b, `,"attempts":[]`...)
			} else {
				b = append(b, `,"attempts":[`...)
				for k := range s.Attempts {
					if k > 0 {
						b = append(b, ',')
					}
					b = appendAttempt(b, &s.Attempts[k])
				}
				b = append(b, ']')
			}
			if s.BrakeRuns != nil {
				b = append(b, `,"brake_runs":[`...)
				for k, id := range s.BrakeRuns {
					if k > 0 {
						b = append(b, ',')
					}
					b = append(b, '"')
					b = appendText(b, id)
					b = append(b, '"')
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendRecovery appends a run report's "recovery" member, with its
// leading comma: the first action's fields, then every action, numbered.
func appendRecovery(b []byte, rec *checker.Recovery) []byte {
	b = append(b, `,"recovery":{"action":"`...)
	b = appendWord(b, string(rec.Action))
	b = append(b, `","run_id":"`...)
	b = appendText(b, rec.RunID)
	b = append(b, '"')
	if rec.Stage == nil && rec.Attempt == nil && rec.AttemptID == nil && rec.Owner == nil && rec.Steps != nil && len(rec.Steps) == 0 && rec.Actions != nil && len(rec.Actions) == 0 {
		// A run that needs no action, as most runs.
		return append(b, `,"stage":null,"attempt":null,"attempt_id":null,"owner":null,"steps":[],"actions":[]}`...)
	}
	b = appendActionFields(b, rec.Stage, rec.Attempt, rec.AttemptID, rec.Owner, rec.Steps)
	b = append(b, `,"actions":`...)
	if rec.Actions == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range rec.Actions {
		a := &rec.Actions[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"order":`...)
		b = appendInt(b, int64(a.Order))
		b = append(b, `,"action":"`...)
		b = appendWord(b, string(a.Action))
		b = append(b, '"')
		b = appendActionFields(b, a.Stage, a.Attempt, a.AttemptID, a.Owner, a.Steps)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendActionFields appends the identifiers and steps of a recovery
// action, each member with its leading comma.
func appendActionFields(b []byte, stage *checker.StageID, attempt *int64, attemptID, owner *string, steps []string) []byte {
	b = append(b, `,"stage":`...)
	if stage == nil {
		b = append(b, "null"...)
	} else {
		b = appendStage(b, *stage)
	}
	b = append(b, `,"attempt":`...)
	b = appendOptInt(b, attempt)
	b = append(b, `,"attempt_id":`...)
	b = appendOptString(b, attemptID)
	b = append(b, `,"owner":`...)
	b = appendOptString(b, owner)
	b = append(b, `,"steps":`...)
	switch {
	case steps == nil:
		b = append(b, "null"...)
	case len(steps) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, step := range steps {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, step)
		}
		b = append(b, ']')
	}
	return b
}

// appendAttempt appends the JSON object of one attempt report.
func appendAttempt(b []byte, a *checker.AttemptReport) []byte {
	b = append(b, `{"attempt":`...)
	b = appendInt(b, a.Attempt)
	b = append(b, `,"status":"`...)
	b = appendWord(b, a.Status)
	b = append(b, `","started_at":"`...)
	b = appendText(b, a.StartedAt)
	if a.EndedAt == nil {
		b = append(b, `","ended_at":null,"duration_seconds":`...)
	} else {
		b = append(b, `","ended_at":"`...)
		b = appendText(b, *a.EndedAt)
		b = append(b, `","duration_seconds":`...)
	}
	b = appendOptFloat(b, a.DurationSeconds)
	b = append(b, `,"returncode":`...)
	b = appendOptInt(b, a.Returncode)
	if a.Error == nil {
		b = append(b, `,"error":null,"silent_for_seconds":`...)
	} else {
		b = append(b, `,"error":"`...)
		b = appendText(b, *a.Error)
		b = append(b, `","silent_for_seconds":`...)
	}
	b = appendOptFloat(b, a.SilentForSeconds)
	b = append(b, `,"line":`...)
	b = appendInt(b, int64(a.Line))
	if a.AttemptID == nil && a.Owner == nil && a.ErrorCode == nil && a.LeaseExpiresAt == nil &&
		a.Reason == nil && a.Resolution == nil && a.AdjudicatedFrom == nil && a.JobLogLine == nil && a.Takeover == nil {
		// Most attempts have none of the recovery model's fields, and are
		// not stale candidates.
		if !a.StaleCandidate {
			return append(b, `,"stale_candidate":false,"attempt_id":null,"owner":null,"error_code":null,"lease_expires_at":null,"reason":null,"resolution":null,"adjudicated_from":null,"job_log_line":null}`...)
		}
		return append(b, `,"stale_candidate":true,"attempt_id":null,"owner":null,"error_code":null,"lease_expires_at":null,"reason":null,"resolution":null,"adjudicated_from":null,"job_log_line":null}`...)
	}
	if a.StaleCandidate {
		b = append(b, `,"stale_candidate":true`...)
	} else {
		b = append(b, `,"stale_candidate":false`...)
	}
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
	b = appendResolution(b, a.Resolution)
	b = append(b, `,"adjudicated_from":`...)
	b = appendOptString(b, a.AdjudicatedFrom)
	b = append(b, `,"job_log_line":`...)
	if a.JobLogLine == nil {
		b = append(b, "null"...)
	} else {
		b = appendInt(b, int64(*a.JobLogLine))
	}
	if a.Takeover != nil {
		b = append(b, `,"takeover":`...)
		b = appendTakeover(b, a.Takeover)
	}
	return append(b, '}')
}

// appendResolution appends an attempt's resolution object, or null.
func appendResolution(b []byte, res *checker.ResolutionReport) []byte {
	if res == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"resolution":"`...)
	b = appendText(b, res.Resolution)
	b = append(b, `","reason":"`...)
	b = appendText(b, res.Reason)
	b = append(b, `","evidence_ref":"`...)
	b = appendText(b, res.EvidenceRef)
	b = append(b, `","resolved_by":"`...)
	b = appendText(b, res.ResolvedBy)
	b = append(b, `","approved_by":`...)
	b = appendOptString(b, res.ApprovedBy)
	b = append(b, `,"resolved_at":"`...)
	b = appendText(b, res.ResolvedAt)
	b = append(b, `","line":`...)
	b = appendInt(b, int64(res.Line))
	return append(b, '}')
}

// appendTakeover appends the object of the takeover that ended an attempt.
func appendTakeover(b []byte, t *checker.TakeoverReport) []byte {
	b = append(b, `{"outcome":"`...)
	b = appendText(b, t.Outcome)
	b = append(b, `","owner":`...)
	b = appendOptString(b, t.Owner)
	b = append(b, `,"stop_confirmed_by":"`...)
	b = appendText(b, t.StopConfirmedBy)
	b = append(b, `","stop_evidence_ref":"`...)
	b = appendText(b, t.StopEvidenceRef)
	b = append(b, `","stop_method":"`...)
	b = appendText(b, t.StopMethod)
	b = append(b, `","taken_over_at":"`...)
	b = appendText(b, t.TakenOverAt)
	b = append(b, `","line":`...)
	b = appendInt(b, int64(t.Line))
	b = append(b, `,"heartbeat_advanced_line":`...)
	if t.HeartbeatAdvancedLine == nil {
		b = append(b, "null"...)
	} else {
		b = appendInt(b, int64(*t.HeartbeatAdvancedLine))
	}
	return append(b, '}')
}

// plain8 tells whether the eight bytes of s at i are ASCII that JSON
// writes as they are: no control character, quote, backslash, <, > or &.
func plain8(s string, i int) bool {
	return special8(load8(s, i)) == 0
}

// load8 is the eight bytes of s at i, the first the lowest.
func load8(s string, i int) uint64 {
	s = s[i : i+8] // one bounds check, not eight
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special8 is zero when no byte of w needs escaping in a JSON string
// (plainByte), and else not. It asks in four tests what seven swar tests
// ask one by one: a byte below 0x20 or from 0x80 on shows in the high
// bit of (w - 0x20 per byte) | w (a borrow can only follow a byte below
// 0x20); < (0x3c) and > (0x3e) are the bytes that are 0x3e with bit 1
// set, and " (0x22) and & (0x26) those that are 0x26 with bit 2 set.
// TestSpecial8 holds it to plainByte.
func special8(w uint64) uint64 {
	// swar.Equal three times, with one mask of the high bits at the end
	// (small enough to be inlined).
	const ones = 0x0101010101010101
	angle, amp, bs := (w|ones*0x02)^(ones*'>'), (w|ones*0x04)^(ones*'&'), w^(ones*'\\')
	return ((w - ones*0x20) | w | (angle-ones)&^angle | (amp-ones)&^amp | (bs-ones)&^bs) & (ones * 0x80)
}

func appendStage(b []byte, s checker.StageID) []byte {
	if s.Str != "" {
		return appendString(b, s.Str)
	}
	return appendInt(b, s.Int)
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
	return appendInt(b, *n)
}

// appendInt appends n in decimal, as strconv.AppendInt does; the counts and
// line numbers of a report take a short path of two digits at a time,
// written in place.
func appendInt(b []byte, n int64) []byte {
	if n < 0 || n >= 1e9 {
		return strconv.AppendInt(b, n, 10)
	}
	u := uint32(n)
	if u < 10 {
		return append(b, byte('0'+u))
	}
	k := 9 // the number of digits, 2 to 9
	switch {
	case u < 100:
		k = 2
	case u < 1e3:
		k = 3
	case u < 1e4:
		k = 4
	case u < 1e5:
		k = 5
	case u < 1e6:
		k = 6
	case u < 1e7:
		k = 7
	case u < 1e8:
		k = 8
	}
	l := len(b)
	b = slices.Grow(b, k)[:l+k]
	d := b[l:]
	i := k
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		d[i], d[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		d[0], d[1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		d[0] = byte('0' + u)
	}
	return b
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
		return appendInt(b, int64(f))
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

// appendString quotes s as encoding/json does with HTML escaping (see
// appendText).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendText(b, s)
	return append(b, '"')
}

// appendWord is appendText for a state, a status or an action: the words
// most reports hold are compared and copied as they are (a comparison with
// a constant is cheaper than testing the bytes); any other is escaped as
// any string is, since a report need not come from the checker.
func appendWord(b []byte, s string) []byte {
	if s == "succeeded" || s == "failed" || s == "none" {
		return append(b, s...)
	}
	return appendText(b, s)
}

// appendText appends s as the inside of a JSON string, as encoding/json
// writes it with HTML escaping: < > & and control characters as \u00XX
// (with the short forms \" \\ \b \f \n \r \t), U+2028 and U+2029
// escaped, invalid UTF-8 as \ufffd. Most strings of a report (ids,
// times, states) need none of that and are copied whole.
func appendText(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n >= 8:
		i := 0
		for ; i+8 <= n; i += 8 {
			if special8(load8(s, i)) != 0 {
				return appendEscaped(b, s, i)
			}
		}
		// The last eight bytes, which overlap those already looked at (a
		// time of a report, 20 bytes, takes three words, no byte alone).
		if i < n && special8(load8(s, n-8)) != 0 {
			return appendEscaped(b, s, i)
		}
	case n >= 4:
		// Two overlapping halves of a word (a state, an action).
		if special8(load4(s, 0)|load4(s, n-4)<<32) != 0 {
			return appendEscaped(b, s, 0)
		}
	default:
		for i := range n {
			if !plainByte[s[i]] {
				return appendEscaped(b, s, i)
			}
		}
	}
	return append(b, s...)
}

// load4 is the four bytes of s at i, the first the lowest.
func load4(s string, i int) uint64 {
	s = s[i : i+4]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// plainByte tells the bytes that JSON writes as they are: ASCII but for
// control characters, quote, backslash, <, > and &.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendEscaped is appendText when s[:i] needs no escaping and the rest
// may.
func appendEscaped(b []byte, s string, i int) []byte {
	start := 0
	for i < len(s) {
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
	return append(b, s[start:]...)
}

// digitPairs holds the two ASCII digits of each number 00 to 99, in order:
// digitPairs[2*v] and digitPairs[2*v+1] are v's tens and units, for
// writing decimal digits two at a time.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
