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
// time is its run's logical time (scheduled_for, else its first event;
// ties: the later first line is the later run, as for latest_run_id), or a missed slot's scheduled time (a run
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

// Select picks the rows of a default listing in one pass over the runs'
// heads (a run's order: a run's logical time and first line and whether it
// succeeded, no report), holding
// only the rows it may list in two small heaps (the latest unhealthy rows,
// the latest runs); then it builds the reports of the runs it lists alone
// (s.At), so that a log of millions of runs costs the reports of a
// screenful. o.All is ignored.
func Select(s *checker.Snapshot, o ListOptions) Listing {
	sel := NewSelector(s, o)
	// The heads are read latest run first: in a log in time order, the
	// heaps fill with the latest runs at once, and every earlier run is
	// turned away by one comparison with the heap's earliest, where in
	// log order each would push the earliest out. The heaps keep the same
	// rows either way (later is a total order).
	v := views(s)
	for i := s.Len() - 1; i >= 0; i-- {
		at, line, succeeded := v.Order(i)
		sel.offer(keyed{at: at, line: line, seq: i}, succeeded)
	}
	return sel.Listing(o)
}

// Selector picks the rows of a default listing from runs offered one by
// one, for a caller that reads every run's report anyway and would not
// read the runs twice (the action's step log, job summary and annotations
// come from one pass). It keeps only the places of the rows it may list,
// in two small heaps, and builds the listed reports at the end (s.At).
type Selector struct {
	s                             *checker.Snapshot
	unhealthy, latest             rowHeap
	missed                        int
	unhealthyRuns, succeededRuns  int
	seq                           int // the place of the next run offered
	done                          bool
	sortedUnhealthy, sortedLatest []keyed
	reports                       map[int]*checker.RunReport // listed runs, by place, built once
}

// NewSelector returns a Selector for the runs of s, offered next in the
// order s.Runs yields them, with the caps of o (o.All is ignored); s's
// missed slots are offered already.
func NewSelector(s *checker.Snapshot, o ListOptions) *Selector {
	maxUnhealthy, maxLatest := o.caps()
	sel := &Selector{s: s, unhealthy: rowHeap{max: maxUnhealthy}, latest: rowHeap{max: maxLatest}}
	if s.Schedule != nil {
		missed := s.Schedule.Missed
		sel.missed = len(missed)
		for i := range missed {
			sel.unhealthy.offer(keyed{at: missed[i].Slot, seq: -1, missed: &missed[i]})
		}
	}
	return sel
}

// Offer offers the next run of s.Runs, r; r may be storage the iterator
// reuses, since only its place is kept. Offer panics after Listing.
func (sel *Selector) Offer(r *checker.RunReport) {
	sel.offer(keyed{at: r.LogicalTime(), line: r.FirstLine, seq: sel.seq}, r.State == checker.RunSucceeded)
	sel.seq++
}

func (sel *Selector) offer(k keyed, succeeded bool) {
	if sel.done {
		panic("render: Selector.Offer after Listing")
	}
	if succeeded {
		sel.succeededRuns++
	} else {
		sel.unhealthyRuns++
		sel.unhealthy.offer(k)
	}
	sel.latest.offer(k)
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
		sel.reports = map[int]*checker.RunReport{}
	}
	maxUnhealthy, maxLatest := o.caps()
	unhealthy := sel.sortedUnhealthy[:min(maxUnhealthy, len(sel.sortedUnhealthy))]
	latest := sel.sortedLatest[:min(maxLatest, len(sel.sortedLatest))]
	row := func(k keyed) Row {
		if k.missed != nil {
			return Row{Missed: k.missed}
		}
		r, ok := sel.reports[k.seq]
		if !ok {
			rr := sel.s.At(k.seq)
			r = &rr
			sel.reports[k.seq] = r
		}
		return Row{Run: r}
	}
	var l Listing
	listed := map[int]bool{}
	shownUnhealthy, shownMissed, shownSucceeded := 0, 0, 0
	for _, k := range unhealthy {
		l.Unhealthy = append(l.Unhealthy, row(k))
		if k.missed == nil {
			listed[k.seq] = true
			shownUnhealthy++
		} else {
			shownMissed++
		}
	}
	for _, k := range latest {
		if listed[k.seq] {
			continue
		}
		r := row(k)
		l.Latest = append(l.Latest, r)
		if r.Run.State == checker.RunSucceeded {
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

// keyed is a row's place with the time that orders it.
type keyed struct {
	at     time.Time
	line   int // the run's first line; 0 for a missed slot
	seq    int // the run's place in the snapshot; -1 for a missed slot
	missed *checker.MissedSlot
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
	max  int
	rows []keyed
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

// offer keeps k when it is among the max latest so far.
func (h *rowHeap) offer(k keyed) {
	if len(h.rows) == h.max && later(k, h.rows[0]) >= 0 {
		return // not later than the earliest kept
	}
	if len(h.rows) < h.max {
		heap.Push(h, k)
		return
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
