package checker

import (
	"fmt"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// The rules of one line alone: the decoder finds all but unknown_field
// (checker/internal/eventline) before the line is an event, and names
// them by its fault kinds, whose values are these ids.
const (
	RuleInvalidJSON  RuleID = RuleID(eventline.FaultInvalidJSON)
	RuleLineTooLong  RuleID = RuleID(eventline.FaultLineTooLong)
	RuleDuplicateKey RuleID = RuleID(eventline.FaultDuplicateKey)
	RuleSchema       RuleID = RuleID(eventline.FaultSchema)
	RuleUnknownField RuleID = "unknown_field"
)

// The families of rules; each has its file rule_<family>.go.
const (
	familyReading     = "reading"
	familyStage       = "stage"
	familyReturncode  = "returncode"
	familyTime        = "time"
	familyAttempts    = "attempts"
	familyRetry       = "retry"
	familyHeartbeat   = "heartbeat"
	familyResolution  = "resolution"
	familyOpenLineage = "openlineage"
)

var invalidJSONRule = Rule{ID: RuleInvalidJSON, Family: familyReading,
	Summary: "a line is not one JSON object",
	Detail:  "Each line must hold exactly one JSON object in valid UTF-8, with nothing after it. A blank line (in the middle or an extra empty line at the end), a truncated last line, a byte-order mark and trailing data are violations; a last line without its newline is accepted. A byte-order mark at the start of the file is one violation and the first line is read past it, so nothing cascades from it; every greenlight command reads a gzip or zstd file decompressed (told by its first bytes, not its name), and a stream that is truncated or corrupt is one violation on the line where its text broke off, naming the file; a file of another compressed or archive format (bzip2, xz, zip, 7z, or a gzip or zstd file inside one) is one violation that says so, and the rest of it is not read.",
	Example: `{"run_id":"r-1","stage":"extract",`}

var lineTooLongRule = Rule{ID: RuleLineTooLong, Family: familyReading,
	Summary: "a line is longer than the limit",
	Detail:  "A line longer than --max-line-bytes (default 1 MiB) is reported and skipped; reading goes on with the next line."}

var duplicateKeyRule = Rule{ID: RuleDuplicateKey, Family: familyReading,
	Summary: "an object has the same key twice",
	Detail:  "JSON readers disagree on which of two equal keys wins, so a repeated key at any depth is refused.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"failed","status":"succeeded","timestamp_utc":"2026-01-01T10:00:00Z"}`}

var schemaRule = Rule{ID: RuleSchema, Family: familyReading,
	Summary: "the event does not match schemas/event.schema.json",
	Detail:  "A missing or mistyped field, an unknown status, a timestamp without an offset, a failed event without an error, or a key that equals a contract field in another letter case.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"done","timestamp_utc":"2026-01-01T10:00:00Z"}`}

var unknownFieldRule = Rule{ID: RuleUnknownField, Family: familyReading,
	Summary: "a field outside the contract, with --strict",
	Detail:  "Without --strict other fields are carried through; with it they are refused.",
	Example: `{"run_id":"r-1","stage":"extract","attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z","host":"a"}`,
	on:      onLog,
	check: func(c *contractState, x *lineCheck) string {
		if x.unknown == "" {
			return ""
		}
		return fmt.Sprintf("field %q is not part of the event contract (--strict)", x.unknown)
	}}
