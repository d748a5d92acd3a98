package checker

import (
	"slices"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runview"
)

// TestBrakeLimit: deciding whether the brake tripped reads at most the
// threshold's attempts, so a stage retried thousands of times stays linear;
// the stage's status_reason still counts them all.
func TestBrakeLimit(t *testing.T) {
	atts := make([]attemptState, 5000)
	for i := range atts {
		atts[i].SetStart(time.Unix(0, 0), 1, false)
		atts[i].SetOutcome(StatusFailed, time.Unix(1, 0), 2, true, 1)
	}
	if _, n := brake(atts, 3); n != 3 {
		t.Errorf("brake with limit 3 counted %d", n)
	}
	if _, n := brake(atts, 0); n != 5000 {
		t.Errorf("brake without limit counted %d", n)
	}
	if got := tripBrake(atts, 3).String(); got != "RETRY_BRAKE:returncode:1x5000" {
		t.Errorf("brakeTrip = %q", got)
	}
}

// TestRunRankFollowsRunPrecedence: the precedence the renderers read
// (runview.Precedence) names these stage states, the fold's switch ranks
// them in its order, and every other state ranks 0.
func TestRunRankFollowsRunPrecedence(t *testing.T) {
	var p []StageState
	for _, s := range runview.Precedence() {
		p = append(p, StageState(s))
	}
	if want := []StageState{StageUnknown, StageFailed, StageCancelled, StageStalled, StageRunning}; !slices.Equal(p, want) {
		t.Fatalf("runview.Precedence() = %v, want %v", p, want)
	}
	for i, st := range p {
		if got := runRank(st); got != len(p)-i {
			t.Errorf("runRank(%s) = %d, want %d", st, got, len(p)-i)
		}
	}
	for _, st := range []StageState{StagePending, StageBlocked, StageSucceeded} {
		if runRank(st) != 0 {
			t.Errorf("runRank(%s) = %d, want 0", st, runRank(st))
		}
	}
}
