package checker

// Rerun from a node (docs/recovery.md, "Rerun from a node"): the runbook
// releases a retry brake with "rerun from node N", and N and every stage
// downstream of it run again, also those that succeeded. A started event
// with "rerun_from": true on stage N opens such a rerun in its run: a new
// attempt of a succeeded N or of a stage downstream of it is allowed
// (retry_without_failure does not apply), and a downstream stage whose
// latest attempt started before the rerun counts as pending until it runs
// again, so the run is judged by the rerun's attempts.

// downstream says stage si depends, directly or through other stages, on
// stage from (si != from). It walks si's dependencies, each stage once.
func (p *stagePlan) downstream(from, si int) bool {
	if si == from {
		return false
	}
	seen := make([]bool, len(p.depStart)-1)
	stack := []int32{int32(si)}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range p.deps(i) {
			if int(d) == from {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// rerunDue says attempt a, the latest of stage si of run, is older than the
// rerun the run opened on a stage si is downstream of: the stage is to run
// again. plan is the run's dependency plan (nil: no rerun is judged).
func rerunDue(run *runState, si int, a *attemptState, plan *stagePlan) bool {
	from, line, ok := run.Rerun()
	return ok && plan != nil && a.StartLine() < line && plan.downstream(from, si)
}
