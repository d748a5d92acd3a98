package render

import (
	"cmp"
	"container/heap"
	"slices"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// The caps of a default runs listing (docs/contract.md, "Text output"):
// the text output, the Markdown report and the job summary list at most
// DefaultMaxUnhealthy unhealthy rows (runs that did not succeed and missed
// slots) and the DefaultLatestRuns latest runs, so that a log of millions of
// runs prints a screenful, like "go test": quiet on success, loud on
// failure.
const (
	DefaultMaxUnhealthy = 20
	DefaultLatestRuns   = 5
)

// ListOptions say which rows a runs listing shows. The zero value is the
// default listing: Select's. All lists every row in the log's order
// (EachRow) instead.
type ListOptions struct {
	All bool
	// MaxUnhealthy caps the unhealthy rows listed (<= 0: DefaultMaxUnhealthy).
	MaxUnhealthy int
	// Latest is how many of the latest runs are listed (<= 0: DefaultLatestRuns).
	Latest int
}

func (o ListOptions) caps() (unhealthy, latest int) {
	unhealthy, latest = o.MaxUnhealthy, o.Latest
	if unhealthy <= 0 {
		unhealthy = DefaultMaxUnhealthy
	}
	if latest <= 0 {
		latest = DefaultLatestRuns
	}
	return unhealthy, latest
}

// Listing is what a default runs listing shows. Unhealthy holds the latest
// unhealthy rows (runs in any state but succeeded, and missed slots), at
// most the cap, latest first; Latest holds the latest runs that Unhealthy
// does not, latest first, so that every one of the latest runs is listed in
// one of the two. The More counts are the rows listed in neither. A row's
// time is its run's first event (ties: the later first line is the later
// run, as for latest_run_id), or a missed slot's scheduled time (a run
// whose first event is at that very moment is the later).
type Listing struct {
	Unhealthy []Row
	Latest    []Row
	// MoreUnhealthy counts the unhealthy runs not listed, MoreMissed the
	// missed slots not listed, MoreSucceeded the succeeded runs not listed.
	MoreUnhealthy, MoreMissed, MoreSucceeded int
}

// Left counts what the listing leaves out, one phrase per kind with a
// count above zero ("3 more unhealthy runs", "1 more missed slot", and,
// with succeeded, "2 more succeeded runs"), in that order.
func (l *Listing) Left(succeeded bool) []string {
	var more []string
	if l.MoreUnhealthy > 0 {
		more = append(more, words.Count(l.MoreUnhealthy, "more unhealthy run"))
	}
	if l.MoreMissed > 0 {
		more = append(more, words.Count(l.MoreMissed, "more missed slot"))
	}
	if succeeded && l.MoreSucceeded > 0 {
		more = append(more, words.Count(l.MoreSucceeded, "more succeeded run"))
	}
	return more
}

// Rows are the listed rows in their order: Unhealthy, then Latest.
func (l *Listing) Rows() []Row { return append(slices.Clip(l.Unhealthy), l.Latest...) }

// Select picks the rows of a default listing in one pass over the runs
// (s.Runs, so a streamed snapshot stays streamed): a Selector offered every
// run. o.All is ignored.
func Select(s *checker.Snapshot, o ListOptions) Listing {
	sel := NewSelector(s, o)
	for r := range s.Runs() {
		sel.Offer(r)
	}
	return sel.Listing(o)
}

// Selector picks the rows of a default listing from runs offered one by
// one, for a caller that reads the runs once for several purposes (the
// action's step log, job summary and annotations). It holds only the rows
// it may list, in two small heaps (the latest unhealthy rows, the latest
// runs), each run it keeps copied out of the iterator's storage into
// storage that a run pushed out of both heaps hands on to the next, so
// that a log of millions of runs in time order, each of which enters the
// heap of the latest, costs no garbage.
type Selector struct {
	free                          []*kept // storage of runs no heap holds any more
	unhealthy, latest             rowHeap
	missed                        int
	unhealthyRuns, succeededRuns  int
	seq                           int
	done                          bool
	sortedUnhealthy, sortedLatest []keyed
}

// NewSelector returns a Selector for the runs of s (offered next, in the
// order s.Runs yields them), with the caps of o (o.All is ignored); s's
// missed slots are offered already.
func NewSelector(s *checker.Snapshot, o ListOptions) *Selector {
	maxUnhealthy, maxLatest := o.caps()
	sel := &Selector{}
	release := func(k *kept) {
		if k.refs--; k.refs == 0 {
			sel.free = append(sel.free, k)
		}
	}
	sel.unhealthy = rowHeap{max: maxUnhealthy, release: release}
	sel.latest = rowHeap{max: maxLatest, release: release}
	if s.Schedule != nil {
		missed := s.Schedule.Missed
		sel.missed = len(missed)
		for i := range missed {
			sel.unhealthy.offer(keyed{at: missed[i].Slot, seq: -1, row: Row{Missed: &missed[i]}}, nil)
		}
	}
	return sel
}

// Offer offers the next run; r may be storage the iterator reuses, since
// a run kept is copied. Offer must not be called after Listing.
func (sel *Selector) Offer(r *checker.RunReport) {
	if sel.done {
		panic("render: Selector.Offer after Listing")
	}
	k := keyed{at: r.FirstEvent, line: r.FirstLine, seq: sel.seq}
	sel.seq++
	var copied *kept // r copied once, for both heaps
	keep := func() *kept {
		if copied == nil {
			if n := len(sel.free); n > 0 {
				copied, sel.free = sel.free[n-1], sel.free[:n-1]
			} else {
				copied = new(kept)
			}
			cloneInto(&copied.run, r)
		}
		copied.refs++
		return copied
	}
	if r.State == checker.RunSucceeded {
		sel.succeededRuns++
	} else {
		sel.unhealthyRuns++
		sel.unhealthy.offer(k, keep)
	}
	sel.latest.offer(k, keep)
}

// Listing returns the listing of the runs offered, with the caps of o (an
// option left zero takes its default; a cap above the Selector's own is
// taken as the Selector's): as Select(s, o) would return it, since the
// latest rows under a smaller cap are the first of those under a larger
// one. It may be called more than once; no run may be offered after it.
func (sel *Selector) Listing(o ListOptions) Listing {
	if !sel.done {
		sel.done = true
		sel.sortedUnhealthy, sel.sortedLatest = sel.unhealthy.sorted(), sel.latest.sorted()
	}
	maxUnhealthy, maxLatest := o.caps()
	unhealthy := sel.sortedUnhealthy[:min(maxUnhealthy, len(sel.sortedUnhealthy))]
	latest := sel.sortedLatest[:min(maxLatest, len(sel.sortedLatest))]
	var l Listing
	listed := map[*checker.RunReport]bool{}
	shownUnhealthy, shownMissed, shownSucceeded := 0, 0, 0
	for _, k := range unhealthy {
		l.Unhealthy = append(l.Unhealthy, k.row)
		if k.row.Run != nil {
			listed[k.row.Run] = true
			shownUnhealthy++
		} else {
			shownMissed++
		}
	}
	for _, k := range latest {
		if listed[k.row.Run] {
			continue
		}
		l.Latest = append(l.Latest, k.row)
		if k.row.Run.State == checker.RunSucceeded {
			shownSucceeded++
		} else {
			shownUnhealthy++
		}
	}
	l.MoreUnhealthy = sel.unhealthyRuns - shownUnhealthy
	l.MoreMissed = sel.missed - shownMissed
	l.MoreSucceeded = sel.succeededRuns - shownSucceeded
	return l
}

// kept is a run report Select keeps, and how many of its heaps hold it.
type kept struct {
	run  checker.RunReport
	refs int
}

// keyed is a row with the time that orders it.
type keyed struct {
	at   time.Time
	line int // the run's first line; 0 for a missed slot
	seq  int // the run's place in the snapshot; -1 for a missed slot
	row  Row
	kept *kept // where row.Run is kept; nil for a missed slot
}

// later orders rows latest first: by time, then by line, then by place in
// the snapshot (runs of a report given whole may share both).
func later(a, b keyed) int {
	if c := b.at.Compare(a.at); c != 0 {
		return c
	}
	if c := cmp.Compare(b.line, a.line); c != 0 {
		return c
	}
	return cmp.Compare(b.seq, a.seq)
}

// rowHeap keeps the max latest rows offered: a min-heap (the earliest kept
// row on top, the first to go).
type rowHeap struct {
	max     int
	rows    []keyed
	release func(*kept) // called with the storage of a run pushed out
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return later(h.rows[i], h.rows[j]) > 0 }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(keyed)) }
func (h *rowHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// offer keeps k when it is among the max latest so far; run, when not nil,
// gives the storage of the run report to keep (called only then).
func (h *rowHeap) offer(k keyed, run func() *kept) {
	if len(h.rows) == h.max && later(k, h.rows[0]) >= 0 {
		return // not later than the earliest kept
	}
	if run != nil {
		k.kept = run()
		k.row = Row{Run: &k.kept.run}
	}
	if len(h.rows) < h.max {
		heap.Push(h, k)
		return
	}
	if out := h.rows[0].kept; out != nil {
		h.release(out)
	}
	h.rows[0] = k
	heap.Fix(h, 0)
}

// sorted returns the kept rows latest first.
func (h *rowHeap) sorted() []keyed {
	out := slices.Clone(h.rows)
	slices.SortFunc(out, later)
	return out
}

// cloneInto copies a run report out of the storage Snapshot.Runs reuses
// into dst: its slices and every pointer are dst's own (strings are
// immutable and may be shared), reusing the storage dst held before, which
// must be no one else's. TestCloneIntoOwnsItsMemory guards it against a
// new field.
func cloneInto(dst, r *checker.RunReport) {
	old := *dst
	*dst = *r
	dst.ScheduledFor = copyPtr(old.ScheduledFor, r.ScheduledFor)
	dst.OverdueBySeconds = copyPtr(old.OverdueBySeconds, r.OverdueBySeconds)
	dst.Recovery.Stage = copyPtr(old.Recovery.Stage, r.Recovery.Stage)
	dst.Recovery.Attempt = copyPtr(old.Recovery.Attempt, r.Recovery.Attempt)
	dst.Recovery.AttemptID = copyPtr(old.Recovery.AttemptID, r.Recovery.AttemptID)
	dst.Recovery.Owner = copyPtr(old.Recovery.Owner, r.Recovery.Owner)
	dst.Recovery.Steps = copySlice(old.Recovery.Steps, r.Recovery.Steps)
	prevStages := old.Stages[:cap(old.Stages)]
	dst.Stages = reslice(old.Stages, len(r.Stages), r.Stages == nil)
	for i, st := range r.Stages {
		var prev checker.StageReport
		if i < len(prevStages) {
			prev = prevStages[i]
		}
		st.Name = copyPtr(prev.Name, st.Name)
		st.StatusReason = copyPtr(prev.StatusReason, st.StatusReason)
		st.Brake = copyPtr(prev.Brake, st.Brake)
		prevAtts := prev.Attempts[:cap(prev.Attempts)]
		atts := reslice(prev.Attempts, len(st.Attempts), st.Attempts == nil)
		for j, a := range st.Attempts {
			var pa checker.AttemptReport
			if j < len(prevAtts) {
				pa = prevAtts[j]
			}
			a.EndedAt = copyPtr(pa.EndedAt, a.EndedAt)
			a.DurationSeconds = copyPtr(pa.DurationSeconds, a.DurationSeconds)
			a.Returncode = copyPtr(pa.Returncode, a.Returncode)
			a.Error = copyPtr(pa.Error, a.Error)
			a.SilentForSeconds = copyPtr(pa.SilentForSeconds, a.SilentForSeconds)
			a.AttemptID = copyPtr(pa.AttemptID, a.AttemptID)
			a.Owner = copyPtr(pa.Owner, a.Owner)
			a.ErrorCode = copyPtr(pa.ErrorCode, a.ErrorCode)
			a.LeaseExpiresAt = copyPtr(pa.LeaseExpiresAt, a.LeaseExpiresAt)
			a.Reason = copyPtr(pa.Reason, a.Reason)
			if a.Resolution != nil {
				var approvedBy *string
				if pa.Resolution != nil {
					approvedBy = pa.Resolution.ApprovedBy
				}
				src := a.Resolution
				a.Resolution = copyPtr(pa.Resolution, src)
				a.Resolution.ApprovedBy = copyPtr(approvedBy, src.ApprovedBy)
			}
			a.AdjudicatedFrom = copyPtr(pa.AdjudicatedFrom, a.AdjudicatedFrom)
			a.JobLogLine = copyPtr(pa.JobLogLine, a.JobLogLine)
			atts[j] = a
		}
		st.Attempts = atts
		dst.Stages[i] = st
	}
}

// copyPtr returns nil when src is nil, else a pointer of dst's storage
// (old, when it is not nil) holding *src.
func copyPtr[T any](old, src *T) *T {
	if src == nil {
		return nil
	}
	if old == nil {
		old = new(T)
	}
	*old = *src
	return old
}

// copySlice returns src's elements in old's storage when it has room
// (nil for a nil src).
func copySlice[T any](old, src []T) []T {
	if src == nil {
		return nil
	}
	return append(reslice(old, 0, false), src...)
}

// reslice returns old cut to n elements, or new storage when old has no
// room for them; nil when isNil. The elements past old's length keep what
// they held, for the caller to reuse.
func reslice[T any](old []T, n int, isNil bool) []T {
	switch {
	case isNil:
		return nil
	case old != nil && cap(old) >= n:
		return old[:n]
	}
	out := make([]T, n)
	copy(out, old[:cap(old)])
	return out
}
