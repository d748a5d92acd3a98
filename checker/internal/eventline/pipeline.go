package eventline

import (
	"fmt"
	"io"

	"github.com/greenlight-ci/greenlight/checker/internal/slab"
)

// Reading, decoding and applying run as a pipeline so that a log is checked
// on every core: one goroutine reads lines into batches, decodeWorkers
// goroutines decode and schema-check the batches, and the caller's goroutine
// applies them strictly in line order, so the result is the same bytes as a
// one-line-at-a-time loop. Memory stays bounded by the batches in flight.
//
// Each batch is a handoff between goroutines, and the caller's goroutine,
// waiting for the next batch, sleeps and is woken: with 512 lines a batch
// (2,000 batches for the 1M-event benchmark log) the two cores of the
// benchmark machine were 1.4 to 1.6 of 2 busy while the log was read (a
// Go execution trace), and 2,048 lines (and 1 MiB instead of 256 KiB)
// made check --format json 4 to 6 % faster (9 alternating runs, 326 ->
// 307 ms; peak RSS 115 -> 126 MB, the batches in flight).
const (
	batchLines    = 2048
	batchBytes    = 1 << 20 // a batch of long lines closes early
	decodeWorkers = 2
	batchesAhead  = 8
)

// lineRef locates one line in its batch's raw bytes.
type lineRef struct {
	n, start, end int
	tooLong       bool
	length        int
}

// batch is a run of consecutive lines and, once done is closed, their
// decoded form. Decoded events alias raw and arena, which belong to the
// batch until it is recycled after being applied.
type batch struct {
	raw   []byte
	refs  []lineRef
	out   []Decoded
	arena []byte
	err   error // a read error after the last line of the batch
	read  int64 // bytes of the log read when the batch closed
	done  chan struct{}
}

// Read runs the pipeline over the whole log and calls apply with every
// line, in line order, from the calling goroutine. A Decoded and what its
// event aliases are valid only during the call. Read returns the first read
// error.
func Read(lr *LineReader, cfg *Config, apply func(*Decoded)) error {
	var schema Schema
	jobs := make(chan *batch, batchesAhead)
	order := make(chan *batch, batchesAhead)
	free := make(chan *batch, 2*batchesAhead+decodeWorkers+1)
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			var b *batch
			select {
			case b = <-free:
			default:
				b = &batch{}
			}
			b.raw, b.refs, b.arena, b.err = b.raw[:0], b.refs[:0], b.arena[:0], nil
			b.done = make(chan struct{})
			eof := fillBatch(lr, b)
			b.read = lr.BytesRead()
			if len(b.refs) > 0 || b.err != nil {
				order <- b
				jobs <- b
			}
			if eof {
				return
			}
		}
	}()
	for i := 0; i < decodeWorkers; i++ {
		go func() {
			dec := NewDecoder()
			for b := range jobs {
				// The workers share the compiled schema: validation only
				// reads it (go test -race runs the slow path on the corpus).
				decodeBatch(dec, &schema, cfg, b)
				close(b.done)
			}
		}()
	}
	var readErr error
	var reported int64
	var words *Decoder // this goroutine's, for the messages of listed schema faults
	for b := range order {
		<-b.done
		if cfg.Warm != nil {
			cfg.Warm(b.out)
		}
		for i := range b.out {
			out := &b.out[i]
			if out.unworded != nil && cfg.Listed() {
				if words == nil {
					words = NewDecoder()
				}
				words.word(out, &schema, cfg)
			}
			apply(out)
		}
		if cfg.Progress != nil && b.read-reported >= ProgressEvery {
			cfg.Progress(b.read)
			reported = b.read
		}
		if b.err != nil && readErr == nil {
			readErr = b.err
		}
		select {
		case free <- b:
		default:
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(lr.BytesRead())
	}
	return readErr
}

// fillBatch reads lines into b, an empty batch, until it holds batchLines
// lines or batchBytes bytes, or the log ends (true) or breaks off (true,
// with b.err set).
func fillBatch(lr *LineReader, b *batch) (eof bool) {
	for len(b.refs) < batchLines && len(b.raw) < batchBytes {
		// The whole lines already buffered, copied at once.
		b.raw, b.refs = lr.buffered(b.raw, b.refs, batchLines, batchBytes)
		if len(b.refs) == batchLines || len(b.raw) >= batchBytes {
			break
		}
		// A line the buffer does not hold whole, or the end.
		line, err := lr.Next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			b.err = err
			return true
		}
		start := len(b.raw)
		b.raw = append(b.raw, line...)
		b.refs = append(b.refs, lineRef{n: lr.line, start: start, end: len(b.raw), tooLong: lr.tooLong, length: lr.length})
	}
	return false
}

// decodeBatch decodes every line of b into b.out.
func decodeBatch(dec *Decoder, schema *Schema, cfg *Config, b *batch) {
	if cap(b.out) < len(b.refs) {
		b.out = slab.Prefault(make([]Decoded, len(b.refs)))
	}
	b.out = b.out[:len(b.refs)]
	dec.arena = b.arena[:0]
	for i, ref := range b.refs {
		out := &b.out[i]
		if ref.tooLong {
			*out = Decoded{Line: ref.n, Fault: &Fault{FaultLineTooLong,
				fmt.Sprintf("the line is %d bytes, over the limit of %d (raise it with --max-line-bytes)", ref.length, cfg.MaxLineBytes)}}
			continue
		}
		dec.Decode(out, ref.n, b.raw[ref.start:ref.end], schema, cfg)
	}
	b.arena = dec.arena
}
