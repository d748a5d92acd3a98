package render

import (
	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// views are s's run views that checker keeps out of its API (a run's head
// and order without its report, the encoding of every report on several
// cores): the renderers reach them through checker/internal/runview.
func views(s *checker.Snapshot) runview.Views[checker.RunReport] {
	return runview.Of[checker.Snapshot, checker.RunReport](s)
}

// Latest returns the report of the run s names latest (LatestRunID), or nil
// when it has none, built in storage of its own; also when a window folded
// that run out of the listed ones (checker.Options.Window), as a full check
// would build it.
func Latest(s *checker.Snapshot) *checker.RunReport { return views(s).Latest() }
