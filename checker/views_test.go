package checker_test

import (
	"iter"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// views are s's run views, as checker/render reaches them.
func views(s *checker.Snapshot) runview.Views[checker.RunReport] {
	return runview.Of[checker.Snapshot, checker.RunReport](s)
}

// heads yields every run's place and head, in the order of s.Runs.
func heads(s *checker.Snapshot) iter.Seq2[int, runview.Head] {
	return func(yield func(int, runview.Head) bool) {
		v := views(s)
		for i := range s.Len() {
			if !yield(i, v.Head(i)) {
				return
			}
		}
	}
}
