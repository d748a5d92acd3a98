package checker

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
