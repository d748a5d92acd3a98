package eventline

// CountFrom makes the reader number its lines on from n, lines already
// read: a check resumed from a checkpoint (docs/state.md) reads the log
// from the end of its n-th line. Call it before the first Next.
func (lr *LineReader) CountFrom(n int) { lr.line = n }
