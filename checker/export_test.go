package checker

// WithPieceSize is opts writing checkpoints whose proof pieces are n bytes
// (checkpoint_proof.go), so that the split tests cut small logs into many
// pieces and prove them on every core.
func WithPieceSize(opts Options, n int64) Options {
	opts.pieceSize = n
	return opts
}
