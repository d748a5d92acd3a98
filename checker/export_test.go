package checker

import (
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// WithPieceSize is rd writing checkpoints whose proof pieces are n bytes
// (checkpoint.go), so that the split tests cut small logs into many
// pieces and prove them on every core.
func WithPieceSize(rd Reading, n int64) Reading {
	rd.pieceSize = n
	return rd
}

// CheckpointFiles is where cp's check stopped in each file it read, in
// reading order: a test's view of a parsed checkpoint.
func CheckpointFiles(cp *Checkpoint) any { return cp.files }

// DecodedRuns counts the runs of a checkpoint that the check of s, resumed
// from it, decoded so far (runstore.Store.Decoded): a test's view of how
// lazily a checkpoint is read.
func DecodedRuns(s *Snapshot) int {
	f, ok := s.runs.(*foldedRuns)
	if !ok {
		return 0
	}
	return f.c.runs.Decoded()
}

// CheckpointIndexBits is log2 of the slots of cp's run index (0: it holds
// none, runstore's maxProbe), loaded as a check with opts would load it.
func CheckpointIndexBits(cp *Checkpoint, opts Options) (uint, error) {
	opts, err := opts.normalized()
	if err != nil {
		return 0, err
	}
	c := newContractState(opts)
	if err := c.decodeFold(cp.fold); err != nil {
		return 0, err
	}
	return c.runs.IndexBits(), nil
}

// CheckpointParts is the encoding of cp in its parts (Checkpoint.encode):
// more than the stored bytes and the trailer when stretches of the runs of
// the checkpoint it resumed from are borrowed, not copied.
func CheckpointParts(cp *Checkpoint) ([][]byte, error) { return cp.encode() }

// The schedule's slot arithmetic, for the table of TestSchedule.
func (s *Schedule) JudgedSlots(now time.Time) []time.Time    { return s.judgedSlots(now) }
func (s *Schedule) IsSlot(t time.Time) bool                  { return s.isSlot(t) }
func (s *Schedule) WindowSlot(t time.Time) (time.Time, bool) { return s.windowSlot(t) }

// ProgressEvery is how many bytes Reading.Progress lets pass between calls.
const ProgressEvery = eventline.ProgressEvery

// NextSlot is s.nextSlot: the first slot not yet judged at now.
func NextSlot(s *Schedule, now time.Time) (time.Time, bool) { return s.nextSlot(now) }

// ParseMaxAge is parseMaxAge: a max_age's text read as Definition reads it.
func ParseMaxAge(text string) (MaxAge, error) { return parseMaxAge(text) }

// MaxNumberChars is the longest a number in a contract field may be
// written, in characters (eventline.MaxNumberChars).
const MaxNumberChars = eventline.MaxNumberChars

// ClearBrake forgets s's retry brake (a value for readers only, absent
// from the JSON), so that a report read back compares with the original.
func ClearBrake(s *StageReport) { s.brake = nil }

// BrokenStreamError is a LogFile reader's broken stream, as
// internal/logsource returns it (checker knows it by its BrokenStream
// method only).
type BrokenStreamError struct{ Msg string }

func (e *BrokenStreamError) Error() string        { return e.Msg }
func (e *BrokenStreamError) BrokenStream() string { return e.Msg }

// The compressions a checkpoint records.
const (
	CompressionNone = compressionNone
	CompressionGzip = compressionGzip
	CompressionZstd = compressionZstd
)

// WindowText is w as the snapshot's window.window writes it.
func WindowText(w Window) string { return w.text() }
