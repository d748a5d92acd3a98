package checker

// WithPieceSize is opts writing checkpoints whose proof pieces are n bytes
// (checkpoint_proof.go), so that the split tests cut small logs into many
// pieces and prove them on every core.
func WithPieceSize(opts Options, n int64) Options {
	opts.pieceSize = n
	return opts
}

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
