package eventline

import "time"

// IsRequest reports whether s is a request event's status (requested,
// claimed): such an event names a request, not an attempt, and carries no
// stage or attempt (docs/recovery.md, Claimed requests).
func (s Status) IsRequest() bool { return s == StatusRequested || s == StatusClaimed }

// requestStatus reports whether the line's status is a request event's,
// whose shape the schema's first allOf entry sets apart.
func (d *Decoder) requestStatus() bool {
	if d.kind[fieldStatus] != '"' {
		return false
	}
	switch string(d.contentOf(fieldStatus)) {
	case "requested", "claimed":
		return true
	}
	return false
}

// fastRequest is fastSchema for a request event: status and timestamp_utc
// as on every event, request_id required, run_id optional (a run_id string
// when present), and no stage or attempt, not even null.
func (d *Decoder) fastRequest(ev *Event) bool {
	if d.raw[fieldTimestamp] == nil || d.raw[fieldStage] != nil || d.raw[fieldAttempt] != nil {
		return false
	}
	ev.RunID, ev.Stage, ev.Attempt = nil, StageID{}, 0
	if d.raw[fieldRunID] != nil {
		if d.kind[fieldRunID] != '"' || len(d.raw[fieldRunID]) > 2+maxRunIDLiteral {
			return false
		}
		ev.RunID = d.textOf(fieldRunID)
		if !validRunID(ev.RunID) {
			return false
		}
	}
	return d.fastStatus(ev) && d.fastOutcome(ev) && d.fastRecovery(ev)
}

// fastRequestFields checks and fills the request events' fields: request_id
// (null, or 1 to 256 characters, no control character, not blank),
// claimed_by and stale_request_reconciled (null or a string), claimed_at
// (null or a timestamp), and what the request statuses require of them:
// request_id on both, claimed_by not blank and claimed_at on claimed. str
// is fastRecovery's reader of an optional string.
func (d *Decoder) fastRequestFields(ev *Event, str func(f int, dst *string) bool) bool {
	if !str(fieldRequestID, &ev.RequestID) || !str(fieldClaimedBy, &ev.ClaimedBy) ||
		!str(fieldStaleRequestReconciled, &ev.StaleRequestReconciled) {
		return false
	}
	if d.kind[fieldRequestID] == '"' && (!validRunID([]byte(ev.RequestID)) || !HasNonSpace([]byte(ev.RequestID))) {
		return false
	}
	ev.ClaimedAt = time.Time{}
	switch d.kind[fieldClaimedAt] {
	case 0, 'n':
	case '"':
		t, ok := ParseTimestamp(d.contentOf(fieldClaimedAt))
		if !ok {
			return false
		}
		ev.ClaimedAt = t
	default:
		return false
	}
	if !ev.Status.IsRequest() {
		return true
	}
	if d.kind[fieldRequestID] != '"' {
		return false
	}
	if ev.Status == StatusClaimed {
		return d.kind[fieldClaimedBy] == '"' && HasNonSpace([]byte(ev.ClaimedBy)) && d.kind[fieldClaimedAt] == '"'
	}
	return true
}
