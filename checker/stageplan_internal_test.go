package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// defWithDeps builds a definition of integer stages 1..len(deps) where
// stage k depends on the stages deps[k-1] lists.
func defWithDeps(t *testing.T, deps [][]int64) *Definition {
	t.Helper()
	d := &Definition{}
	for k, ds := range deps {
		s := StageDef{ID: IntStage(int64(k + 1)), DependsOn: []StageID{}}
		for _, x := range ds {
			s.DependsOn = append(s.DependsOn, IntStage(x))
		}
		d.Stages = append(d.Stages, s)
	}
	if err := d.check(); err != nil {
		t.Fatal(err)
	}
	return d
}

// planFor is the plan a check builds for d.
func planFor(d *Definition) *stagePlan {
	return newContractState(Options{Definition: d}).plan
}

// TestStagePlanOrder: the plan lists every stage once, each after the
// stages it depends on, whatever order they are declared in.
func TestStagePlanOrder(t *testing.T) {
	tests := []struct {
		name string
		deps [][]int64
		want string // stage ids in plan order
	}{
		{"a chain declared forward", [][]int64{{}, {1}, {2}, {3}}, "[1 2 3 4]"},
		{"a chain declared backward", [][]int64{{2}, {3}, {4}, {}}, "[4 3 2 1]"},
		{"a diamond declared bottom up", [][]int64{{2, 3}, {4}, {4}, {}}, "[4 2 3 1]"},
		{"independent stages keep declared order", [][]int64{{}, {}, {}}, "[1 2 3]"},
		{"a join of two roots", [][]int64{{3, 2}, {}, {}}, "[2 3 1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := defWithDeps(t, tc.deps)
			p := planFor(d)
			var ids []int64
			for _, i := range p.order {
				ids = append(ids, d.Stages[i].ID.Int)
			}
			if got := fmt.Sprint(ids); got != tc.want {
				t.Errorf("order %s, want %s", got, tc.want)
			}
		})
	}
}

// markBlockedFixedPoint is the reference: sweep the stages in declared
// order, resolving ids by linear search, until nothing changes.
func markBlockedFixedPoint(rr *RunReport, def *Definition) {
	for changed := true; changed; {
		changed = false
		for i, sd := range def.Stages {
			if rr.Stages[i].State != StagePending {
				continue
			}
			for _, dep := range sd.DependsOn {
				switch rr.Stages[stageIndex(def, dep)].State {
				case StageFailed, StageUnknown, StageCancelled, StageBlocked:
					rr.Stages[i].State = StageBlocked
					changed = true
				}
				if rr.Stages[i].State == StageBlocked {
					break
				}
			}
		}
	}
}

// TestMarkBlockedMatchesFixedPoint compares the one-pass propagation with
// the fixed-point reference on random acyclic definitions, declared in a
// random order, with random stage states.
func TestMarkBlockedMatchesFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 7))
	states := []StageState{StagePending, StagePending, StagePending, StageFailed, StageSucceeded, StageUnknown, StageCancelled, StageRunning}
	for round := range 300 {
		n := 1 + rng.IntN(40)
		// Stage perm[k] may depend only on stages perm[j], j < k: acyclic,
		// but declared in the order of the ids, not of perm.
		perm := rng.Perm(n)
		deps := make([][]int64, n)
		for k := 1; k < n; k++ {
			for range rng.IntN(4) {
				deps[perm[k]] = append(deps[perm[k]], int64(perm[rng.IntN(k)]+1))
			}
			slices.Sort(deps[perm[k]])
			deps[perm[k]] = slices.Compact(deps[perm[k]])
		}
		d := defWithDeps(t, deps)
		got := RunReport{Stages: make([]StageReport, n)}
		for i := range got.Stages {
			got.Stages[i].State = states[rng.IntN(len(states))]
		}
		want := RunReport{Stages: slices.Clone(got.Stages)}
		markBlocked(&got, planFor(d))
		markBlockedFixedPoint(&want, d)
		for i := range got.Stages {
			if got.Stages[i].State != want.Stages[i].State {
				t.Fatalf("round %d, deps %v: stage %d is %s, the fixed point says %s", round, deps, i+1, got.Stages[i].State, want.Stages[i].State)
			}
		}
	}
}

// stageIndex is the position of id in d.Stages, or -1 when d does not
// declare it: the reference for the fold's index of stages.
func stageIndex(d *Definition, id StageID) int {
	for i := range d.Stages {
		if d.Stages[i].ID == id {
			return i
		}
	}
	return -1
}
