package render_test

import (
	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// setRuns makes runs the run reports of s, a snapshot built by hand.
func setRuns(s *checker.Snapshot, runs []checker.RunReport) { runview.SetRuns(s, runs) }
