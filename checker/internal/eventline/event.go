// Package eventline turns the bytes of an event log into events: it reads
// lines (bounded, hashed), decodes them on every core, checks each against
// schemas/event.schema.json with a compiled fast path and the schema
// validator behind it, and yields for each line, in order, either an Event or
// a Fault (invalid_json, line_too_long, duplicate_key or schema, with its
// message). It knows no sequence rule and no run: those are package
// checker's (docs/architecture.md).
package eventline

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Status is what an event says happened to an attempt.
type Status uint8

// The statuses of the event contract: the core three, then the recovery
// model's (docs/recovery.md). StatusCancelled is never written as an event
// status; it is the outcome of a cancelled resolution or job-log record.
// StatusSkipped ends an attempt of a stage the definition declares
// skippable (docs/contract.md, Skipped stages); it comes last so that the
// numbers of the others, which a checkpoint keeps, do not change.
const (
	StatusStarted Status = iota + 1
	StatusSucceeded
	StatusFailed
	StatusHeartbeat
	StatusUnknown
	StatusResolved
	StatusCancelled
	StatusSkipped
	// StatusClosed is the run's close (docs/recovery.md, The run's close):
	// a run-level status, whose event names no stage and no attempt.
	StatusClosed
	// StatusRequested and StatusClaimed are request events: a request for
	// a run and a poller's claim of it (docs/recovery.md, Claimed
	// requests). They name no stage or attempt.
	StatusRequested
	StatusClaimed
)

// RunLevel reports whether an event of status s is about its run as a
// whole: it names no stage and no attempt (schemas/event.schema.json's
// run-level statuses).
func (s Status) RunLevel() bool { return s == StatusClosed }

// String returns the status as the log writes it.
func (s Status) String() string {
	switch s {
	case StatusStarted:
		return "started"
	case StatusSucceeded:
		return "succeeded"
	case StatusFailed:
		return "failed"
	case StatusHeartbeat:
		return "heartbeat"
	case StatusUnknown:
		return "unknown"
	case StatusResolved:
		return "resolved"
	case StatusCancelled:
		return "cancelled"
	case StatusSkipped:
		return "skipped"
	case StatusClosed:
		return "closed"
	case StatusRequested:
		return "requested"
	case StatusClaimed:
		return "claimed"
	}
	return "invalid"
}

// StageID names a stage: an integer id >= 1 (Str empty) or a string id
// matching ^[A-Za-z][A-Za-z0-9_.-]{0,127}$ (Int zero). The zero StageID is
// not a valid stage. StageID is comparable and usable as a map key.
type StageID struct {
	Int int64
	Str string
}

// String renders the id as a person writes it: 2, or silver.
func (s StageID) String() string {
	if s.Str != "" {
		return s.Str
	}
	return strconv.FormatInt(s.Int, 10)
}

// MarshalJSON renders an integer id as a JSON number and a string id as a
// JSON string, as the schemas define stage ids.
func (s StageID) MarshalJSON() ([]byte, error) {
	if s.Str != "" {
		return json.Marshal(s.Str)
	}
	return strconv.AppendInt(nil, s.Int, 10), nil
}

// UnmarshalJSON reads an integer or string stage id; it does not check the
// string pattern (the schema does).
func (s *StageID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*s = StageID{}
		return json.Unmarshal(b, &s.Str)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	v, ok := JSONInteger(string(n))
	if !ok {
		return fmt.Errorf("stage id %s is not an integer", n)
	}
	*s = StageID{Int: v}
	return nil
}

// ValidStageString reports whether s matches the string stage-id pattern of
// schemas/event.schema.json: ^[A-Za-z][A-Za-z0-9_.-]{0,127}$.
func ValidStageString(s string) bool {
	if len(s) == 0 || len(s) > 128 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// FaultKind is the reading rule a line breaks when it cannot become an
// event; its value is the rule's id (docs/rules.md).
type FaultKind string

// The reading rules a Fault may name.
const (
	FaultInvalidJSON  FaultKind = "invalid_json"
	FaultLineTooLong  FaultKind = "line_too_long"
	FaultDuplicateKey FaultKind = "duplicate_key"
	FaultSchema       FaultKind = "schema"
)

// Fault is why a line could not become an event: the rule it breaks and
// the message for the violation.
type Fault struct {
	Kind FaultKind
	Msg  string
}

// Decoded is one line after reading and the event schema: a Fault, or the
// Event with, under Config.Strict, the first field outside the contract
// (Unknown, "" when none).
type Decoded struct {
	Line    int
	Fault   *Fault
	Event   Event
	Unknown string
	// unworded is the line of a schema Fault whose message awaits the
	// validator (Config.Listed), aliasing the batch; nil otherwise.
	unworded []byte
}
