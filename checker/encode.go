package checker

import (
	"math/bits"
	"sync"
)

// Run reports are built and encoded on every core, in chunks, and written
// strictly in run order, so the output is the same bytes as a sequential
// loop; memory holds only the chunks in flight. A chunk closes at
// encodeChunk runs or encodeChunkAttempts attempts, whichever comes first:
// an attempt is about 600 bytes of JSON, and one run may have thousands.
const (
	encodeChunk         = 32
	encodeChunkAttempts = 2048
	encodeWorkers       = 2
)

// A worker may encode chunks ahead of the one written next while they hold
// fewer than encodeAhead chunks and encodeAheadAttempts attempts (about
// 5 MB of JSON): enough that a worker the system does not run for a few
// milliseconds does not stop the other one, and a bound on the memory of
// the chunks in flight.
const (
	encodeAhead         = 32
	encodeAheadAttempts = 4 * encodeChunkAttempts
)

// encodeRuns appends the encoding of every run report, in order, with enc
// (given the run's 0-based index, for separators) and hands the bytes to
// write, a chunk of runs at a time. The reports of a checked log are built
// and encoded on several goroutines; enc must therefore not keep r, nor
// anything r points at, or share state between calls. write is called
// once at a time, in order, but not always on the calling goroutine.
// It returns the first error write returns.
func (s *Snapshot) encodeRuns(enc func(dst []byte, i int, r *RunReport) []byte, write func([]byte) error) error {
	src := s.source()
	if l, ok := src.(reportList); ok {
		var b []byte
		for i := range l {
			b = enc(b[:0], i, &l[i])
			if err := write(b); err != nil {
				return err
			}
		}
		return nil
	}
	if f, ok := src.(*foldedRuns); ok {
		f.decodeAll() // the workers below read the store only
	}
	// Each worker (the calling goroutine one of them) takes the next chunk,
	// encodes it, and writes it when it is the next to be written, with
	// every chunk after it that is ready: no goroutine hands a chunk to
	// another to be cut or written, so the workers run on both cores
	// instead of waking each other in turn on one (which go test -trace
	// showed the channels of jobs and chunks in order doing).
	e := &chunkEncoder{src: src, enc: enc, write: write}
	e.ready.L = &e.mu
	var wg sync.WaitGroup
	for range encodeWorkers - 1 {
		wg.Go(e.work)
	}
	e.work()
	wg.Wait()
	return e.err
}

// chunkEncoder is the shared state of encodeRuns' workers, behind mu.
type chunkEncoder struct {
	src   runSource
	enc   func(dst []byte, i int, r *RunReport) []byte
	write func([]byte) error
	mu    sync.Mutex
	ready sync.Cond // a chunk was written, or the encoding stopped
	// next is the first run not yet in a chunk, taken the number of
	// chunks cut and written the number written; ahead counts the
	// attempts of the chunks cut and not written, attempts[k%encodeAhead]
	// those of chunk k.
	next, taken, written int
	ahead                int
	attempts             [encodeAhead]int
	// out holds the encodings of the chunks from written on that are
	// done (nil while one is not), at out[k%encodeAhead]; free the
	// buffers of written chunks, for reuse.
	out  [encodeAhead][]byte
	free [][]byte
	// writing says a worker is in writeReady.
	writing bool
	err     error
	// encoded counts the bytes of the chunks done and units their runs
	// and attempts, for the size of the next chunk's buffer (sizeFor).
	encoded, units int
}

// sizeFor is the capacity to give the buffer of a chunk of runs runs and
// attempts attempts, so that it is not grown (and copied) as it fills:
// an eighth more than the chunks done so far took for as many runs and
// attempts; 0 before the first is done. e.mu must be held.
func (e *chunkEncoder) sizeFor(runs, attempts int) int {
	if e.units == 0 {
		return 0
	}
	return (runs + attempts) * (e.encoded + e.encoded/8) / e.units
}

// work encodes chunks until none is left or write fails.
func (e *chunkEncoder) work() {
	ar := reportArena{transient: true} // enc keeps nothing of a report
	count := e.src.count()
	e.mu.Lock()
	for {
		for e.err == nil && (e.taken-e.written >= encodeAhead || e.ahead >= encodeAheadAttempts) {
			e.ready.Wait()
		}
		if e.err != nil || e.next == count {
			break
		}
		// Cut the next chunk: encodeChunk runs or encodeChunkAttempts
		// attempts, whichever comes first.
		k, from := e.taken, e.next
		to, attempts := from, 0
		for to < count && to-from < encodeChunk && attempts < encodeChunkAttempts {
			attempts += e.src.attempts(to)
			to++
		}
		e.next, e.taken = to, k+1
		e.attempts[k%encodeAhead] = attempts
		e.ahead += attempts
		var b []byte
		if n := len(e.free); n > 0 {
			b, e.free = e.free[n-1][:0], e.free[:n-1]
		}
		if size := e.sizeFor(to-from, attempts); cap(b) < size {
			// Not grown in steps, each a copy; a power of two, so that the
			// pooled buffers soon all fit the chunks that come.
			b = make([]byte, 0, 1<<bits.Len(uint(size)))
		}
		e.mu.Unlock()
		for i := from; i < to; i++ {
			e.src.report(i, &ar, &ar.rr)
			b = e.enc(b, i, &ar.rr)
		}
		ar.reset() // clears the last report's strings
		e.mu.Lock()
		if b == nil {
			b = []byte{} // done, though empty
		}
		e.out[k%encodeAhead] = b
		e.encoded += len(b)
		e.units += to - from + attempts
		if !e.writing {
			e.writeReady()
		}
	}
	e.mu.Unlock()
}

// writeReady writes the chunks that are next in order and done, the lock
// released while write runs; a worker that finishes a chunk meanwhile
// leaves it to this one (writing).
func (e *chunkEncoder) writeReady() {
	e.writing = true
	for e.err == nil && e.written < e.taken && e.out[e.written%encodeAhead] != nil {
		slot := e.written % encodeAhead
		b := e.out[slot]
		e.mu.Unlock()
		err := e.write(b)
		e.mu.Lock()
		if err != nil {
			e.err = err
		}
		e.free = append(e.free, b)
		e.out[slot] = nil
		e.ahead -= e.attempts[slot]
		e.written++
		e.ready.Broadcast()
	}
	e.writing = false
}
