// Package requeststore holds the state of the requests of a log's request
// events (docs/recovery.md, Claimed requests): for each request_id, when it
// was requested and for which work, its claim and lease, the run that is
// its outcome, and the lines that say so. It knows no rule: package checker
// reads and changes the records, and writes them into a checkpoint with
// Encode and Decode. Requests are not runs; no run is made for one.
package requeststore

import (
	"errors"
	"fmt"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// Request is one request's record. Times are UTC; a zero time is absent.
type Request struct {
	// ID is the request_id; Line and At are its requested event's line
	// (across the log's files) and timestamp_utc.
	ID   string
	Line int
	At   time.Time
	// Slot is the work asked for (scheduled_for); zero for an ad hoc
	// request, which counts as the same work as any other.
	Slot time.Time
	// RequestedBy is who asked ("" when not said).
	RequestedBy string
	// Reconciled is the new request's stale_request_reconciled evidence
	// ("" when it carries none).
	Reconciled string
	// ClaimLine is the line of its latest claimed event (0: never
	// claimed); ClaimedBy and ClaimedAt are that claim's poller and time,
	// Lease its lease_expires_at (zero when the claim gives none).
	ClaimLine int
	ClaimedBy string
	ClaimedAt time.Time
	Lease     time.Time
	// RunID is the run the request started, its outcome, and RunLine the
	// line that linked them ("" and 0 while unknown).
	RunID   string
	RunLine int
	// SettledLine is the line of a later request for the same work whose
	// stale_request_reconciled evidence settled this one while it was
	// stale (0: none).
	SettledLine int
}

// Claimed says the request was claimed.
func (r *Request) Claimed() bool { return r.ClaimLine > 0 }

// ErrFull is the error of Add past the store's limit.
var ErrFull = errors.New("too many requests")

// Store keeps the requests in order of their requested events, indexed by
// request_id and by the run that is the outcome of each.
type Store struct {
	list  []Request
	index map[string]int
	runs  map[string]int
	max   int
}

// New returns an empty store that keeps at most max requests.
func New(max int) *Store {
	return &Store{index: map[string]int{}, runs: map[string]int{}, max: max}
}

// Len is the number of requests.
func (s *Store) Len() int { return len(s.list) }

// At is the i-th request, in order of their requested events.
func (s *Store) At(i int) *Request { return &s.list[i] }

// Find returns the request of request_id id, or nil.
func (s *Store) Find(id string) *Request {
	if i, ok := s.index[id]; ok {
		return &s.list[i]
	}
	return nil
}

// OfRun returns the request whose outcome is run id, or nil.
func (s *Store) OfRun(id string) *Request {
	if i, ok := s.runs[id]; ok {
		return &s.list[i]
	}
	return nil
}

// OfRunBytes is OfRun for an id held as bytes.
func (s *Store) OfRunBytes(id []byte) *Request {
	if i, ok := s.runs[string(id)]; ok {
		return &s.list[i]
	}
	return nil
}

// Add keeps a new request; its ID must not be kept yet. Past the limit it
// returns ErrFull and keeps nothing.
func (s *Store) Add(r Request) error {
	if len(s.list) >= s.max {
		return ErrFull
	}
	s.index[r.ID] = len(s.list)
	s.list = append(s.list, r)
	if r.RunID != "" {
		s.runs[r.RunID] = len(s.list) - 1
	}
	return nil
}

// Link records that run is the outcome of request r (of this store),
// named on line.
func (s *Store) Link(r *Request, run string, line int) {
	if r.RunID != "" {
		return
	}
	r.RunID, r.RunLine = run, line
	s.runs[run] = s.index[r.ID]
}

// Encode appends the requests, in order, to a checkpoint.
func (s *Store) Encode(e *runstore.Encoder) {
	e.Uvarint(uint64(len(s.list)))
	for i := range s.list {
		r := &s.list[i]
		e.String(r.ID)
		e.Uvarint(uint64(r.Line))
		e.Time(r.At)
		optTime(e, r.Slot)
		e.String(r.RequestedBy)
		e.String(r.Reconciled)
		e.Uvarint(uint64(r.ClaimLine))
		if r.ClaimLine > 0 {
			e.String(r.ClaimedBy)
			e.Time(r.ClaimedAt)
			optTime(e, r.Lease)
		}
		e.String(r.RunID)
		e.Uvarint(uint64(r.RunLine))
		e.Uvarint(uint64(r.SettledLine))
	}
}

// Decode reads what Encode wrote into an empty store; a fault is left in
// d (a request twice, a run that is two requests' outcome, the limit).
func (s *Store) Decode(d *runstore.Decoder) {
	for range d.Count() {
		var r Request
		r.ID, r.Line, r.At = d.String(), d.Int(), d.Time()
		r.Slot = readOptTime(d)
		r.RequestedBy, r.Reconciled = d.String(), d.String()
		if r.ClaimLine = d.Int(); r.ClaimLine > 0 {
			r.ClaimedBy, r.ClaimedAt, r.Lease = d.String(), d.Time(), readOptTime(d)
		}
		r.RunID, r.RunLine, r.SettledLine = d.String(), d.Int(), d.Int()
		if d.Fault() != "" {
			return
		}
		if s.Find(r.ID) != nil || (r.RunID != "" && s.OfRun(r.RunID) != nil) || r.ID == "" || r.Line < 1 || (r.RunID == "") != (r.RunLine == 0) {
			d.Fail(fmt.Sprintf("a request that contradicts another (%.40q)", r.ID))
			return
		}
		if err := s.Add(r); err != nil {
			d.Fail("more requests than a check keeps")
			return
		}
	}
}

func optTime(e *runstore.Encoder, t time.Time) {
	e.Bool(!t.IsZero())
	if !t.IsZero() {
		e.Time(t)
	}
}

func readOptTime(d *runstore.Decoder) time.Time {
	if d.Bool() {
		return d.Time()
	}
	return time.Time{}
}
