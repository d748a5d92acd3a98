package runstore

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// The primitives of a checkpoint's encoding (docs/state.md, "Format"):
// varints, strings, times; and the encoding of a run's body (its flags,
// slot, people and attempts, times and lines as deltas from the run's
// head), which lazy.go's store and EncodeRuns share.

// Encoder appends a checkpoint's encoding to B: encoding/binary varints
// (Uvarint, Varint), strings as their length and bytes, times as Unix
// seconds and nanoseconds. A long stretch of bytes that are already
// encoded elsewhere (a loaded checkpoint's runs) is borrowed, not copied
// (Borrow): the encoding is then the parts Parts gives, in order, and B
// holds only what was appended since the last borrowed stretch.
type Encoder struct {
	B []byte
	// parts is the encoding before B: stretches of B's earlier storage
	// and borrowed ones, in order.
	parts [][]byte
}

// borrowMin is the shortest stretch Borrow does not copy: a shorter one
// costs less copied than written as a part of its own.
const borrowMin = 64 << 10

// Borrow appends b to the encoding without copying it (a stretch shorter
// than borrowMin is copied): b must not change until the encoding is
// written.
func (e *Encoder) Borrow(b []byte) {
	if len(b) < borrowMin {
		e.B = append(e.B, b...)
		return
	}
	if len(e.B) > 0 {
		e.parts = append(e.parts, e.B)
		e.B = e.B[len(e.B):]
	}
	e.parts = append(e.parts, b)
}

// Reserve appends n zero bytes to the encoding and returns them, to be
// filled in before the encoding is written (a count known only once what
// follows is encoded, borrowed stretches and all).
func (e *Encoder) Reserve(n int) []byte {
	at := len(e.B)
	e.B = append(e.B, make([]byte, n)...)
	v := e.B[at : at+n : at+n]
	// B's storage up to here is a part: appending to B can no longer
	// move v elsewhere.
	e.parts = append(e.parts, e.B)
	e.B = e.B[len(e.B):]
	return v
}

// Parts is the encoding, in order: the parts before B, then B. It aliases
// what was borrowed and e's storage.
func (e *Encoder) Parts() [][]byte {
	if len(e.B) == 0 {
		return e.parts
	}
	return append(e.parts[:len(e.parts):len(e.parts)], e.B)
}

// Uvarint appends v as an unsigned varint.
func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v as a signed (zig-zag) varint.
func (e *Encoder) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Byte appends one byte.
func (e *Encoder) Byte(v byte) { e.B = append(e.B, v) }

// Bool appends 1 for true, 0 for false.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Byte(1)
	} else {
		e.Byte(0)
	}
}

// String appends s's length and bytes.
func (e *Encoder) String(s string) {
	e.Uvarint(uint64(len(s)))
	e.B = append(e.B, s...)
}

// Time appends t as Unix seconds and nanoseconds.
func (e *Encoder) Time(t time.Time) {
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

// Decoder reads what an Encoder wrote. The first fault sticks (Fault) and
// every later read returns zeros.
type Decoder struct {
	b     []byte
	fault string
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Fault is what was wrong with the bytes, "" while nothing was.
func (d *Decoder) Fault() string { return d.fault }

// Rest is the bytes not read yet.
func (d *Decoder) Rest() []byte { return d.b }

// Fail records a fault, unless there is one already.
func (d *Decoder) Fail(what string) {
	if d.fault == "" {
		d.fault = what
	}
	d.b = nil
}

// Uvarint reads an unsigned varint. Most numbers of a checkpoint (deltas,
// lengths, flags) fit in one byte, read without encoding/binary's loop.
func (d *Decoder) Uvarint() uint64 {
	b := d.b
	if len(b) == 0 || b[0] >= 0x80 {
		return d.uvarint()
	}
	d.b = b[1:]
	return uint64(b[0])
}

// Int reads an unsigned varint as an int. A value int cannot hold (over
// 2^31-1 on a 32-bit target, 2^63-1 on a 64-bit one) is a fault, never a
// number that wrapped to a small or negative int.
func (d *Decoder) Int() int {
	v := d.Uvarint()
	if v > math.MaxInt {
		d.Fail("a number out of range")
		return 0
	}
	return int(v)
}

func (d *Decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail("a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint, one byte inline (as Uvarint).
func (d *Decoder) Varint() int64 {
	b := d.b
	if len(b) == 0 || b[0] >= 0x80 {
		return d.varint()
	}
	d.b = b[1:]
	return int64(b[0]>>1) ^ -int64(b[0]&1)
}

func (d *Decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.Fail("a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) == 0 {
		return d.early()
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// early records that the bytes end early.
func (d *Decoder) early() byte {
	d.Fail("it ends early")
	return 0
}

// Bool reads a byte and tells whether it is 1.
func (d *Decoder) Bool() bool { return d.Byte() == 1 }

// Count reads how many elements follow, each at least one byte long, so a
// damaged count cannot ask for more memory than the bytes left.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail("a count beyond its end")
		return 0
	}
	return int(n)
}

// Bytes reads a length and that many bytes; the slice aliases the input.
func (d *Decoder) Bytes() []byte {
	n := d.Count()
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// Fixed reads n bytes; the slice aliases the input. Short of n bytes it is
// a fault, and the slice is zeroed and at most 64 bytes long. A negative n
// (a crafted 32-bit length that int cannot hold on a 32-bit target) is the
// same fault.
func (d *Decoder) Fixed(n int) []byte {
	if n < 0 || len(d.b) < n {
		// A zeroed stand-in for the callers that read a few bytes of it
		// before they look at the fault; never n bytes, which a crafted
		// length makes gigabytes.
		d.Fail("it ends early")
		return make([]byte, max(0, min(n, 64)))
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// String reads a length and that many bytes as a string.
func (d *Decoder) String() string { return string(d.Bytes()) }

// Time reads Unix seconds and nanoseconds as a UTC time.
func (d *Decoder) Time() time.Time {
	sec, nsec := d.Varint(), d.Uvarint()
	if nsec >= 1e9 {
		d.Fail("a time out of range")
		return time.Time{}
	}
	return unixTime(sec, int32(nsec))
}

// Flags of a run, an attempt, its recovery fields and a resolution.
const (
	runScheduled  = 1 << 0
	runRequesters = 1 << 1
	runApprovers  = 1 << 2
	runRerun      = 1 << 3
	// runClosed marks a run with a close (close.go); a checkpoint written
	// before closes existed never sets it, and reads the same.
	runClosed = 1 << 4

	attemptCode     = 1 << 0
	attemptError    = 1 << 1
	attemptNever    = 1 << 2
	attemptRecovery = 1 << 3

	recoveryLease      = 1 << 0
	recoveryRerun      = 1 << 1
	recoveryResolution = 1 << 2
	recoveryTakeover   = 1 << 3

	resolutionManual      = 1 << 0
	resolutionCompensated = 1 << 1
)

// ErrOwnDefinition is Encode's error for a run that follows a definition
// of its own (a Feed's): its number means nothing to another check.
var ErrOwnDefinition = errors.New("runstore: a run follows a definition of its own")

// EncodeRuns appends runs, which need not be a store's, on their own: their
// count and attempts, the error texts they hold (in order of first use),
// then each run's id, head and body, each with stages stages (0 for stubs,
// which have none). A check with a window keeps its latest folded run and
// its stubs so (docs/state.md).
func (e *Encoder) EncodeRuns(runs []*Run, stages int) {
	attempts := 0
	texts := map[string]uint64{}
	var list []string
	for _, run := range runs {
		for _, atts := range run.stages {
			attempts += len(atts)
			for k := range atts {
				if a := &atts[k]; a.hasError {
					if _, ok := texts[a.err]; !ok {
						texts[a.err] = uint64(len(list))
						list = append(list, a.err)
					}
				}
			}
		}
	}
	e.Uvarint(uint64(len(runs)))
	e.Uvarint(uint64(attempts))
	e.Uvarint(uint64(len(list)))
	for _, t := range list {
		e.String(t)
	}
	for _, run := range runs {
		if len(run.stages) != stages {
			panic("runstore: EncodeRuns of a run of another number of stages")
		}
		e.String(run.id)
		e.Uvarint(uint64(run.firstLine))
		e.Varint(run.firstSec)
		e.Uvarint(uint64(run.firstNsec))
		e.Varint(run.lastSec - run.firstSec)
		e.Uvarint(uint64(run.lastNsec))
		e.body(run, texts)
	}
}

// DecodeRuns reads the runs EncodeRuns wrote, with room for stages stages,
// into storage of their own; intern gives an error text its string. A
// fault is left in d.
func (d *Decoder) DecodeRuns(stages int, intern func([]byte) string) []*Run {
	n, attempts := d.Count(), d.Count()
	texts := make([]string, d.Count())
	for i := range texts {
		texts[i] = intern(d.Bytes())
	}
	if d.fault != "" {
		return nil
	}
	s := New()
	s.alloc(n, attempts, stages)
	for range n {
		id := d.String()
		firstLine := d.Uvarint()
		sec, nsec := d.Varint(), d.Uvarint()
		lastDelta, lastNsec := d.Varint(), d.Uvarint()
		if d.fault != "" {
			return nil
		}
		if nsec >= 1e9 || lastNsec >= 1e9 || firstLine > maxLine {
			d.Fail("a time out of range")
			return nil
		}
		if s.Lookup([]byte(id)) != nil {
			d.Fail("a run twice")
			return nil
		}
		run := s.Add(id, int(firstLine), unixTime(sec, int32(nsec)), stages)
		run.lastSec, run.lastNsec = sec+lastDelta, int32(lastNsec)
		if !d.body(run, stages, texts, s) {
			return nil
		}
	}
	s.last = nil
	return s.order
}

// alloc gives the empty store s room for n runs of stages stages and
// attempts attempts.
func (s *Store) alloc(n, attempts, stages int) {
	s.runs = make([]Run, 0, n)
	s.order = make([]*Run, 0, n)
	s.stages = make([][]Attempt, 0, n*stages)
	s.attempts = make([]Attempt, 0, attempts)
	s.index.reserve(n)
}

func (e *Encoder) people(p *People) {
	e.Uvarint(uint64(len(p.list)))
	for _, id := range p.list {
		e.String(id.Name)
		e.String(id.Key)
		e.Uvarint(uint64(id.Line))
	}
}

// body appends run's body: its flags, slot, people and attempts, each
// error text as its number in texts.
func (e *Encoder) body(run *Run, texts map[string]uint64) {
	x := run.ext
	var flags byte
	if x != nil {
		if x.hasScheduledFor {
			flags |= runScheduled
		}
		if len(x.requesters.list) > 0 {
			flags |= runRequesters
		}
		if len(x.approvers.list) > 0 {
			flags |= runApprovers
		}
		if x.rerunStage > 0 {
			flags |= runRerun
		}
		if x.close != nil {
			flags |= runClosed
		}
	}
	e.Byte(flags)
	if flags&runScheduled != 0 {
		e.Time(x.scheduledFor)
		e.Uvarint(uint64(x.scheduledLine))
	}
	if flags&runRequesters != 0 {
		e.people(&x.requesters)
	}
	if flags&runApprovers != 0 {
		e.people(&x.approvers)
	}
	if flags&runRerun != 0 {
		e.Uvarint(uint64(x.rerunStage))
		e.Uvarint(uint64(x.rerunLine))
	}
	if flags&runClosed != 0 {
		e.encodeClose(x.close)
	}
	for _, atts := range run.stages {
		e.Uvarint(uint64(len(atts)))
		for k := range atts {
			e.attempt(run, &atts[k], texts)
		}
	}
}

// hasRecovery tells whether r holds anything a later line or the snapshot
// reads besides the job log's adjudication: an empty recovery part is the
// same as none.
func hasRecovery(r *AttemptRecovery) bool {
	return r != nil && (r.Owner != "" || r.AttemptID != "" || r.ErrorCode != "" || !r.Lease.IsZero() || r.Reason != "" || r.RerunFrom || r.Resolution != nil || r.Takeover != nil)
}

func (e *Encoder) attempt(run *Run, a *Attempt, texts map[string]uint64) {
	e.Byte(byte(a.status))
	var flags byte
	if a.hasCode {
		flags |= attemptCode
	}
	if a.hasError {
		flags |= attemptError
	}
	if a.neverStalls {
		flags |= attemptNever
	}
	if hasRecovery(a.rec) {
		flags |= attemptRecovery
	}
	e.Byte(flags)
	e.Varint(a.startSec - run.firstSec)
	e.Uvarint(uint64(a.startNsec))
	e.Varint(int64(a.startLine - run.firstLine))
	e.Varint(a.lastSec - a.startSec)
	e.Uvarint(uint64(a.lastNsec))
	e.Varint(int64(a.lastLine - a.startLine))
	if a.hasCode {
		e.Varint(a.returncode)
	}
	if a.hasError {
		e.Uvarint(texts[a.err])
	}
	if flags&attemptRecovery == 0 {
		return
	}
	r := a.rec
	var rf byte
	if !r.Lease.IsZero() {
		rf |= recoveryLease
	}
	if r.RerunFrom {
		rf |= recoveryRerun
	}
	if r.Resolution != nil {
		rf |= recoveryResolution
	}
	if r.Takeover != nil {
		rf |= recoveryTakeover
	}
	e.Byte(rf)
	e.String(r.Owner)
	e.String(r.AttemptID)
	e.String(r.ErrorCode)
	e.String(r.Reason)
	if !r.Lease.IsZero() {
		e.Time(r.Lease)
	}
	if res := r.Resolution; res != nil {
		e.Byte(byte(res.Outcome))
		e.String(res.Reason)
		e.String(res.EvidenceRef)
		e.String(res.ResolvedBy)
		e.String(res.ApprovedBy)
		var f byte
		if res.ManualCompletion {
			f |= resolutionManual
		}
		if res.Compensated {
			f |= resolutionCompensated
		}
		e.Byte(f)
		e.Time(res.At)
		e.Uvarint(uint64(res.Line))
	}
	if t := r.Takeover; t != nil {
		e.Byte(byte(t.Outcome))
		e.String(t.Owner)
		e.String(t.ConfirmedBy)
		e.String(t.EvidenceRef)
		e.String(t.Method)
		e.Time(t.At)
		e.Uvarint(uint64(t.Line))
		e.Uvarint(uint64(t.AdvancedLine))
		if t.AdvancedLine > 0 {
			e.Time(t.AdvancedAt)
		}
	}
}

// body decodes run's body (Encoder.body) into run, whose head is set, with
// room for stages stages, its attempts from s's slabs; texts are the error
// texts by number. False after a fault.
func (d *Decoder) body(run *Run, stages int, texts []string, s *Store) bool {
	flags := d.Byte()
	if flags&^(runScheduled|runRequesters|runApprovers|runRerun|runClosed) != 0 {
		d.Fail("a run flag this greenlight does not know")
	}
	if d.fault != "" {
		return false
	}
	if flags&runScheduled != 0 {
		slot := d.Time()
		run.SetScheduledFor(slot, d.Int())
	}
	if flags&runRequesters != 0 {
		d.people(&run.wext().requesters)
	}
	if flags&runApprovers != 0 {
		d.people(&run.wext().approvers)
	}
	if flags&runRerun != 0 {
		si, line := d.Uvarint(), d.Uvarint()
		if si < 1 || si > uint64(stages) {
			d.Fail("a rerun of no stage")
			return false
		}
		x := run.wext()
		x.rerunStage, x.rerunLine = int32(si), int(line)
	}
	if flags&runClosed != 0 {
		d.decodeClose(run)
	}
	if d.fault != "" {
		return false
	}
	for si := range stages {
		k := d.Count()
		if k == 0 {
			continue
		}
		if len(s.attempts)+k > cap(s.attempts) {
			s.attempts = make([]Attempt, 0, max(k, slabSize))
		}
		atts := s.attempts[len(s.attempts) : len(s.attempts)+k : len(s.attempts)+k]
		s.attempts = s.attempts[:len(s.attempts)+k]
		for i := range atts {
			d.attempt(run, &atts[i], texts)
		}
		run.stages[si] = atts
	}
	return d.fault == ""
}

func (d *Decoder) people(p *People) {
	for range d.Count() {
		name, key := d.String(), d.String()
		p.Add(Identity{Name: name, Key: key, Line: d.Int()})
	}
}

func (d *Decoder) attempt(run *Run, a *Attempt, texts []string) {
	status := Status(d.Byte())
	flags := d.Byte()
	if status < eventline.StatusStarted || status > eventline.StatusSkipped {
		d.Fail("an unknown status")
		return
	}
	a.status = status
	a.hasCode, a.hasError, a.neverStalls = flags&attemptCode != 0, flags&attemptError != 0, flags&attemptNever != 0
	startDelta, startNsec, startLine := d.Varint(), d.Uvarint(), d.Varint()
	lastDelta, lastNsec, lastLine := d.Varint(), d.Uvarint(), d.Varint()
	if startNsec >= 1e9 || lastNsec >= 1e9 {
		d.Fail("a time out of range")
		return
	}
	a.startSec, a.startNsec, a.startLine = run.firstSec+startDelta, int32(startNsec), run.firstLine+int(startLine)
	a.lastSec, a.lastNsec, a.lastLine = a.startSec+lastDelta, int32(lastNsec), a.startLine+int(lastLine)
	if a.hasCode {
		a.returncode = d.Varint()
	}
	if a.hasError {
		i := d.Uvarint()
		if i >= uint64(len(texts)) {
			d.Fail("an error text of no number")
			return
		}
		a.err = texts[i]
	}
	if flags&attemptRecovery == 0 {
		return
	}
	r := a.recovery()
	rf := d.Byte()
	r.Owner, r.AttemptID, r.ErrorCode, r.Reason = d.String(), d.String(), d.String(), d.String()
	r.RerunFrom = rf&recoveryRerun != 0
	if rf&recoveryLease != 0 {
		r.Lease = d.Time()
	}
	if rf&recoveryResolution != 0 {
		res := &Resolution{Outcome: Status(d.Byte())}
		res.Reason, res.EvidenceRef, res.ResolvedBy, res.ApprovedBy = d.String(), d.String(), d.String(), d.String()
		f := d.Byte()
		res.ManualCompletion, res.Compensated = f&resolutionManual != 0, f&resolutionCompensated != 0
		res.At, res.Line = d.Time(), d.Int()
		r.Resolution = res
	}
	if rf&recoveryTakeover != 0 {
		t := &Takeover{Outcome: Status(d.Byte())}
		t.Owner, t.ConfirmedBy, t.EvidenceRef, t.Method = d.String(), d.String(), d.String(), d.String()
		t.At, t.Line = d.Time(), d.Int()
		if t.AdvancedLine = d.Int(); t.AdvancedLine > 0 {
			t.AdvancedAt = d.Time()
		}
		r.Takeover = t
	}
}
