package checker

// stagePlan is a definition's dependency graph resolved to stage indexes,
// built once per definition (newStagePlan) so that folding a run costs
// O(stages + dependencies): no stage id is looked up and no loop runs to a
// fixed point per run.
type stagePlan struct {
	// The dependencies of stage i are dep[depStart[i]:depStart[i+1]], as
	// indexes into Definition.Stages.
	depStart []int32
	dep      []int32
	// order holds every stage index once, each after the stages it depends
	// on: a topological order.
	order []int32
}

// deps returns the indexes of the stages stage i depends on.
func (p *stagePlan) deps(i int32) []int32 { return p.dep[p.depStart[i]:p.depStart[i+1]] }

// newStagePlan resolves def's dependencies through index (the stage id to
// index lookup of the check) and orders the stages topologically with
// Kahn's algorithm, in O(stages + dependencies). A checked definition
// (Definition.check) names only declared stages and has no cycle; for one
// that was not checked, an unknown dependency is left out and the stages
// on a cycle come last in declared order, so the fold still visits every
// stage once.
func newStagePlan(def *Definition, index func(StageID) (int, bool)) *stagePlan {
	n := len(def.Stages)
	p := &stagePlan{depStart: make([]int32, n+1)}
	for i := range def.Stages {
		for _, id := range def.Stages[i].DependsOn {
			if d, ok := index(id); ok {
				p.dep = append(p.dep, int32(d))
			}
		}
		p.depStart[i+1] = int32(len(p.dep))
	}
	// waiting[i] counts the dependencies of stage i not yet ordered; the
	// dependents of stage d are next[nextStart[d]:nextStart[d+1]].
	waiting := make([]int32, n)
	nextStart := make([]int32, n+1)
	for i := range n {
		for _, d := range p.deps(int32(i)) {
			waiting[i]++
			nextStart[d+1]++
		}
	}
	for d := range n {
		nextStart[d+1] += nextStart[d]
	}
	next := make([]int32, len(p.dep))
	fill := append([]int32(nil), nextStart[:n]...)
	for i := range n {
		for _, d := range p.deps(int32(i)) {
			next[fill[d]] = int32(i)
			fill[d]++
		}
	}
	p.order = make([]int32, 0, n)
	for i := range n {
		if waiting[i] == 0 {
			p.order = append(p.order, int32(i))
		}
	}
	for k := 0; k < len(p.order); k++ {
		d := p.order[k]
		for _, i := range next[nextStart[d]:nextStart[d+1]] {
			if waiting[i]--; waiting[i] == 0 {
				p.order = append(p.order, i)
			}
		}
	}
	if len(p.order) < n {
		for i := range n {
			if waiting[i] > 0 {
				p.order = append(p.order, int32(i))
			}
		}
	}
	return p
}
