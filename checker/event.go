package checker

import "github.com/greenlight-ci/greenlight/checker/internal/eventline"

// Status is what an event says happened to an attempt: the core three
// statuses, then the recovery model's (docs/recovery.md). StatusCancelled
// is never written as an event status; it is the outcome of a cancelled
// resolution or job-log record. Its String method returns the status as the
// log writes it.
type Status = eventline.Status

// The statuses of the event contract.
const (
	StatusStarted   = eventline.StatusStarted
	StatusSucceeded = eventline.StatusSucceeded
	StatusFailed    = eventline.StatusFailed
	StatusHeartbeat = eventline.StatusHeartbeat
	StatusUnknown   = eventline.StatusUnknown
	StatusResolved  = eventline.StatusResolved
	StatusCancelled = eventline.StatusCancelled
	StatusSkipped   = eventline.StatusSkipped
	StatusClosed    = eventline.StatusClosed
	// The request events' statuses (docs/recovery.md, Claimed requests).
	StatusRequested = eventline.StatusRequested
	StatusClaimed   = eventline.StatusClaimed
)

// event is one decoded, schema-valid event line; its RunID and Error alias
// the bytes of the batch of lines it came in (eventline.Event).
type event = eventline.Event
