package checker

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

// EncodeRuns appends the encoding of every run report, in order, with enc
// (given the run's 0-based index, for separators) and hands the bytes to
// write, a chunk of runs at a time. The reports of a checked log are built
// and encoded on several goroutines; enc must therefore not keep r or share state between calls.
// It returns the first error write returns.
func (s *Snapshot) EncodeRuns(enc func(dst []byte, i int, r *RunReport) []byte, write func([]byte) error) error {
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
	type chunk struct {
		from, to int
		out      []byte
		done     chan struct{}
	}
	jobs := make(chan *chunk, 2*encodeWorkers)
	// Buffers go back to the workers once written, so a snapshot of any
	// size reuses a handful of them.
	free := make(chan []byte, 4*encodeWorkers)
	order := make(chan *chunk, 2*encodeWorkers)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(order)
		for from := 0; from < src.count(); {
			to, attempts := from, 0
			for to < src.count() && to-from < encodeChunk && attempts < encodeChunkAttempts {
				attempts += src.attempts(to)
				to++
			}
			c := &chunk{from: from, to: to, done: make(chan struct{})}
			from = to
			select {
			case order <- c:
			case <-stop:
				return
			}
			jobs <- c
		}
	}()
	for w := 0; w < encodeWorkers; w++ {
		go func() {
			// enc keeps nothing of a report: its arena is transient.
			ar := reportArena{transient: true}
			for c := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				for i := c.from; i < c.to; i++ {
					ar.rr = src.report(i, &ar)
					b = enc(b, i, &ar.rr)
				}
				c.out = b
				close(c.done)
			}
		}()
	}
	var err error
	for c := range order {
		<-c.done
		if err == nil {
			if err = write(c.out); err != nil {
				close(stop)
			}
		}
		select {
		case free <- c.out[:0]:
		default:
		}
	}
	return err
}
