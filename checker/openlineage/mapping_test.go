package openlineage_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
)

// id returns the UUID written as run n in these tests.
func id(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// at is 10:00 UTC on the test day plus sec seconds.
func at(sec int) string {
	return time.Date(2026, 1, 1, 10, 0, sec, 0, time.UTC).Format(time.RFC3339Nano)
}

type opt func(m map[string]any)

func facets(m map[string]any) map[string]any {
	run := m["run"].(map[string]any)
	if run["facets"] == nil {
		run["facets"] = map[string]any{}
	}
	return run["facets"].(map[string]any)
}

func ref(run int, job string) map[string]any {
	ns, name, _ := strings.Cut(job, "/")
	return map[string]any{"run": map[string]any{"runId": id(run)}, "job": map[string]any{"namespace": ns, "name": name}}
}

// parent sets the parent facet; root, when given, its root.
func parent(run int, job string) opt {
	return func(m map[string]any) { facets(m)["parent"] = ref(run, job) }
}

func parentRoot(run int, job string, root int, rootJob string) opt {
	return func(m map[string]any) {
		p := ref(run, job)
		p["root"] = ref(root, rootJob)
		facets(m)["parent"] = p
	}
}

// mapIndex sets the Airflow taskInstance.map_index (keeping a try_number).
func mapIndex(n int) opt {
	return func(m map[string]any) {
		f := facets(m)
		if f["airflow"] == nil {
			f["airflow"] = map[string]any{"taskInstance": map[string]any{}}
		}
		f["airflow"].(map[string]any)["taskInstance"].(map[string]any)["map_index"] = n
	}
}

func try(n int) opt {
	return func(m map[string]any) {
		f := facets(m)
		if f["airflow"] == nil {
			f["airflow"] = map[string]any{"taskInstance": map[string]any{}}
		}
		f["airflow"].(map[string]any)["taskInstance"].(map[string]any)["try_number"] = n
	}
}

func errMsg(msg string) opt {
	return func(m map[string]any) {
		facets(m)["errorMessage"] = map[string]any{"message": msg, "programmingLanguage": "python"}
	}
}

func processing(p string) opt {
	return func(m map[string]any) {
		m["job"].(map[string]any)["facets"] = map[string]any{"jobType": map[string]any{"processingType": p, "integration": "SPARK"}}
	}
}

// set overrides a top-level field; drop removes it.
func set(k string, v any) opt { return func(m map[string]any) { m[k] = v } }
func drop(k string) opt       { return func(m map[string]any) { delete(m, k) } }
func runID(s string) opt {
	return func(m map[string]any) { m["run"].(map[string]any)["runId"] = s }
}

// ev writes one OpenLineage run event as one JSON line.
func ev(typ string, sec, run int, job string, opts ...opt) string {
	ns, name, _ := strings.Cut(job, "/")
	m := map[string]any{
		"eventType": typ,
		"eventTime": at(sec),
		"run":       map[string]any{"runId": id(run)},
		"job":       map[string]any{"namespace": ns, "name": name},
		"producer":  "https://example.com/test",
		"schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
	}
	for _, o := range opts {
		o(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// datasetEvent and jobEvent write design-time events (no run), as Marquez's
// test resources hold them.
func datasetEvent(sec int, opts ...opt) string {
	m := map[string]any{
		"eventTime": at(sec),
		"dataset":   map[string]any{"namespace": "warehouse", "name": "sales"},
		"producer":  "https://example.com/test",
		"schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
	}
	for _, o := range opts {
		o(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func jobEvent(sec int, job string) string {
	ns, name, _ := strings.Cut(job, "/")
	b, _ := json.Marshal(map[string]any{
		"eventTime": at(sec),
		"job":       map[string]any{"namespace": ns, "name": name},
		"producer":  "https://example.com/test",
		"schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
	})
	return string(b)
}

func log(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// testNow is 12:00 UTC, two hours after the events above.
var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func check(t *testing.T, text string, def *checker.Definition) *checker.Result {
	t.Helper()
	res, err := openlineage.Check(strings.NewReader(text), checker.Options{Now: testNow, File: "ol.jsonl", Definition: def})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot != nil {
		validateDoc(t, doc(t, res))
	}
	return res
}

// stages renders a run's stages as "label=state/attempts" for comparison.
func stages(r checker.RunReport) string {
	var parts []string
	for _, s := range r.Stages {
		parts = append(parts, fmt.Sprintf("%s=%s/%d", s.Stage, s.State, s.AttemptCount))
	}
	return strings.Join(parts, " ")
}

const (
	dag   = "airflow/dag"
	task  = "airflow/dag.task"
	app   = "spark/app"
	act   = "spark/app.action"
	other = "spark/app.other"
)

// TestMapping gives each mapping rule of docs/openlineage.md a small log
// and asserts the exact run states, stages and attempts, or violations.
func TestMapping(t *testing.T) {
	cases := []struct {
		name       string
		log        string
		verdict    string            // "" when the log is invalid
		runs       map[string]string // run id -> "state: stages"
		reordered  int
		ignored    checker.IgnoredEvents
		aliases    string // "run: job as alias (facet in run, line)", one per alias
		violations []violation
	}{
		{name: "a run with no parent is a one-stage pipeline",
			log:     log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "parent.root names the pipeline run across levels",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag)),
				ev("START", 2, 3, app, parentRoot(2, task, 1, dag)),
				ev("START", 3, 4, act, parentRoot(3, app, 1, dag)),
				ev("COMPLETE", 4, 4, act, parentRoot(3, app, 1, dag)),
				ev("COMPLETE", 5, 3, app, parentRoot(2, task, 1, dag)),
				ev("COMPLETE", 6, 2, task, parent(1, dag)),
				ev("COMPLETE", 7, 1, dag)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag=succeeded/1 airflow/dag.task=succeeded/1 spark/app=succeeded/1 spark/app.action=succeeded/1"}},
		{name: "without root facets the parent chain is followed to the root",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag)),
				ev("START", 2, 3, app, parent(2, task)),
				ev("COMPLETE", 3, 3, app, parent(2, task)),
				ev("COMPLETE", 4, 2, task, parent(1, dag)),
				ev("COMPLETE", 5, 1, dag)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag=succeeded/1 airflow/dag.task=succeeded/1 spark/app=succeeded/1"}},
		{name: "a parent known only from the facet is an expected stage that never logged",
			log:     log(ev("START", 0, 2, act, parent(1, app)), ev("COMPLETE", 1, 2, act, parent(1, app))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "incomplete: spark/app=pending/0 spark/app.action=succeeded/1"}},
		{name: "try_number tries are attempts of one stage",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag), try(1)),
				ev("FAIL", 2, 2, task, parent(1, dag), try(1), errMsg("boom")),
				ev("START", 3, 3, task, parent(1, dag), try(2)),
				ev("COMPLETE", 4, 3, task, parent(1, dag), try(2)),
				ev("COMPLETE", 5, 1, dag)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag=succeeded/1 airflow/dag.task=succeeded/2"}},
		{name: "runs of one job without try_number are repeats job#2 that must all succeed",
			log: log(
				ev("START", 0, 1, app),
				ev("START", 1, 2, act, parent(1, app)),
				ev("COMPLETE", 2, 2, act, parent(1, app)),
				ev("START", 3, 3, act, parent(1, app)),
				ev("FAIL", 4, 3, act, parent(1, app), errMsg("Job aborted due to stage failure")),
				ev("COMPLETE", 5, 1, app)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=succeeded/1 spark/app.action=succeeded/1 spark/app.action#2=failed/1"}},
		{name: "the same try_number twice is ambiguous",
			log: log(
				ev("START", 0, 2, task, parent(1, dag), try(1)),
				ev("START", 1, 3, task, parent(1, dag), try(1))),
			violations: []violation{{2, checker.RuleAmbiguousAttempt}}},
		{name: "try_number on some runs of a job only is ambiguous",
			log: log(
				ev("START", 0, 2, task, parent(1, dag), try(1)),
				ev("START", 1, 3, task, parent(1, dag))),
			violations: []violation{{1, checker.RuleAmbiguousAttempt}, {2, checker.RuleAmbiguousAttempt}}},
		{name: "events are put in eventTime order within a pipeline run, and counted",
			log: log(
				ev("START", 0, 1, app),
				ev("COMPLETE", 3, 2, act, parent(1, app)),
				ev("START", 2, 2, act, parent(1, app)),
				ev("START", 1, 3, other, parent(1, app)),
				ev("COMPLETE", 4, 3, other, parent(1, app)),
				ev("COMPLETE", 5, 1, app)),
			verdict:   checker.VerdictHealthy,
			reordered: 2,
			runs:      map[string]string{id(1): "succeeded: spark/app=succeeded/1 spark/app.other=succeeded/1 spark/app.action=succeeded/1"}},
		{name: "RUNNING after the terminal event",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app), ev("RUNNING", 2, 1, app)),
			violations: []violation{{3, checker.RuleEventAfterTerminal}}},
		{name: "RUNNING before START",
			log:        log(ev("RUNNING", 0, 1, app), ev("START", 1, 1, app), ev("COMPLETE", 2, 1, app)),
			violations: []violation{{1, checker.RuleRunningWithoutStart}}},
		{name: "a second START after the terminal event",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app), ev("START", 2, 1, app)),
			violations: []violation{{3, checker.RuleDuplicateStart}}},
		{name: "a terminal event without START",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 1, 2, act, parent(1, app)), ev("COMPLETE", 2, 1, app)),
			violations: []violation{{2, checker.RuleTerminalWithoutStart}}},
		{name: "a RunEvent without eventType changes nothing",
			log:     log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app, drop("eventType"))),
			verdict: checker.VerdictUnhealthy,
			ignored: checker.IgnoredEvents{NoEventType: 1},
			runs:    map[string]string{id(1): "stalled: spark/app=stalled/1"}},
		{name: "DatasetEvents and JobEvents are counted and change nothing",
			log: log(datasetEvent(0), ev("START", 1, 1, app), jobEvent(2, app), ev("COMPLETE", 3, 1, app),
				ev("OTHER", 4, 1, app), ev("RUNNING", 5, 2, act, drop("eventType"))),
			verdict: checker.VerdictHealthy,
			ignored: checker.IgnoredEvents{Other: 1, NoEventType: 1, DatasetEvent: 1, JobEvent: 1},
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "a log of design-time events only has no runs",
			log:     log(datasetEvent(0), jobEvent(1, app)),
			verdict: checker.VerdictUnhealthy,
			ignored: checker.IgnoredEvents{DatasetEvent: 1, JobEvent: 1},
			runs:    map[string]string{}},
		{name: "a DatasetEvent is validated",
			log:        log(datasetEvent(0, func(m map[string]any) { delete(m["dataset"].(map[string]any), "name") })),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "a JobEvent is validated",
			log:        log(jobEvent(0, "ns/")),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "an event with neither run, dataset nor job",
			log:        log(`{"eventTime":"2026-01-01T10:00:00Z","producer":"p"}`),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "a root facet naming the run's job differently is an alias (Spark 1.31 to 1.43)",
			log: log(
				ev("START", 0, 1, app),
				ev("START", 1, 2, act, parentRoot(1, app, 1, "spark/My App")),
				ev("COMPLETE", 2, 2, act, parentRoot(1, app, 1, "spark/My App")),
				ev("COMPLETE", 3, 1, app)),
			verdict: checker.VerdictHealthy,
			aliases: id(1) + ": spark/app as spark/My App (root in " + id(2) + ", 2)",
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1 spark/app.action=succeeded/1"}},
		{name: "a run's own events name its job over every facet, whenever they come",
			log: log(
				ev("START", 0, 2, act, parent(1, "spark/App")),
				ev("START", 1, 1, app),
				ev("COMPLETE", 2, 2, act, parent(1, "spark/App")),
				ev("COMPLETE", 3, 1, app)),
			verdict:   checker.VerdictHealthy,
			reordered: 0,
			aliases:   id(1) + ": spark/app as spark/App (parent in " + id(2) + ", 1)",
			runs:      map[string]string{id(1): "succeeded: spark/app=succeeded/1 spark/app.action=succeeded/1"}},
		{name: "a run that never logs is named by the parent facet, the root facet's name is an alias",
			log: log(
				ev("START", 0, 2, act, parentRoot(1, app, 1, "spark/My App")),
				ev("COMPLETE", 1, 2, act, parentRoot(1, app, 1, "spark/My App"))),
			verdict: checker.VerdictUnhealthy,
			aliases: id(1) + ": spark/app as spark/My App (root in " + id(2) + ", 1)",
			runs:    map[string]string{id(1): "incomplete: spark/app=pending/0 spark/app.action=succeeded/1"}},
		{name: "two runIds with one job name are two runs",
			log: log(
				ev("START", 0, 3, act, parentRoot(1, app, 1, app)),
				ev("COMPLETE", 1, 3, act, parentRoot(1, app, 1, app)),
				ev("START", 2, 4, act, parentRoot(2, app, 2, app)),
				ev("COMPLETE", 3, 4, act, parentRoot(2, app, 2, app))),
			verdict: checker.VerdictUnhealthy,
			runs: map[string]string{
				id(1): "incomplete: spark/app=pending/0 spark/app.action=succeeded/1",
				id(2): "incomplete: spark/app=pending/0 spark/app.action=succeeded/1"}},
		{name: "each map index of a mapped Airflow task is a stage that must succeed",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag), try(1), mapIndex(0)),
				ev("START", 1, 3, task, parent(1, dag), try(1), mapIndex(1)),
				ev("START", 1, 4, task, parent(1, dag), try(1), mapIndex(2)),
				ev("COMPLETE", 2, 2, task, parent(1, dag), try(1), mapIndex(0)),
				ev("FAIL", 2, 3, task, parent(1, dag), try(1), mapIndex(1)),
				ev("START", 3, 5, task, parent(1, dag), try(2), mapIndex(1)),
				ev("COMPLETE", 4, 5, task, parent(1, dag), try(2), mapIndex(1)),
				ev("FAIL", 4, 4, task, parent(1, dag), try(1), mapIndex(2)),
				ev("COMPLETE", 5, 1, dag)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: airflow/dag=succeeded/1 airflow/dag.task[0]=succeeded/1 airflow/dag.task[1]=succeeded/2 airflow/dag.task[2]=failed/1"}},
		{name: "map_index -1 is a task that is not mapped",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag), try(1), mapIndex(-1)),
				ev("COMPLETE", 2, 2, task, parent(1, dag), try(1), mapIndex(-1)),
				ev("COMPLETE", 3, 1, dag)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag=succeeded/1 airflow/dag.task=succeeded/1"}},
		{name: "the same try_number twice at one map index is ambiguous",
			log: log(
				ev("START", 0, 2, task, parent(1, dag), try(1), mapIndex(0)),
				ev("START", 1, 3, task, parent(1, dag), try(1), mapIndex(0))),
			violations: []violation{{2, checker.RuleAmbiguousAttempt}}},
		{name: "a runId that changes its map_index",
			log:        log(ev("START", 0, 2, task, parent(1, dag), try(1), mapIndex(0)), ev("COMPLETE", 1, 2, task, parent(1, dag), try(1), mapIndex(1))),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "a mapped stage name that is another job's name",
			log: log(
				ev("START", 0, 2, task, parent(1, dag), try(1), mapIndex(0)),
				ev("START", 1, 3, task+"[0]", parent(1, dag), try(1))),
			violations: []violation{{2, checker.RuleAmbiguousAttempt}}},
		{name: "a child with its parent's job name is a stage of its own, and a silent root is pending",
			log: log(
				ev("START", 0, 2, app, parent(1, app)),
				ev("COMPLETE", 1, 2, app, parent(1, app))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "incomplete: spark/app=pending/0 spark/app#2=succeeded/1"}},
		{name: "a child with its parent's job name is execution 2, also with try_number",
			log: log(
				ev("START", 0, 1, task),
				ev("START", 1, 2, task, parent(1, task), try(1)),
				ev("COMPLETE", 2, 2, task, parent(1, task), try(1)),
				ev("COMPLETE", 3, 1, task)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag.task=succeeded/1 airflow/dag.task#2=succeeded/1"}},
		{name: "a child with its parent's job name is never an attempt of the parent's stage, at any depth",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag), try(1)),
				ev("START", 2, 3, task, parentRoot(2, task, 1, dag), try(1)),
				ev("FAIL", 3, 3, task, parentRoot(2, task, 1, dag), try(1)),
				ev("COMPLETE", 4, 2, task, parent(1, dag), try(1)),
				ev("COMPLETE", 5, 1, dag)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: airflow/dag=succeeded/1 airflow/dag.task=succeeded/1 airflow/dag.task#2=failed/1"}},
		{name: "a parent.root that contradicts the root the parent chain reaches",
			// A failing Spark application whose parent is task P of today's
			// DAG run R, but whose parent.root names yesterday's run O: the
			// failure must not be filed under O while R looks healthy.
			log: log(
				ev("START", 0, 10, dag),
				ev("COMPLETE", 1, 10, dag),
				ev("START", 2, 1, dag),
				ev("START", 3, 2, task, parent(1, dag)),
				ev("START", 4, 3, app, parentRoot(2, task, 10, dag)),
				ev("FAIL", 5, 3, app, parentRoot(2, task, 10, dag)),
				ev("COMPLETE", 6, 2, task, parent(1, dag)),
				ev("COMPLETE", 7, 1, dag)),
			violations: []violation{{5, checker.RuleConflictingRun}}},
		{name: "a parent.root that names a run inside its own chain",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 2, task, parent(1, dag)),
				ev("START", 2, 3, app, parentRoot(2, task, 2, task)),
				ev("COMPLETE", 3, 3, app, parentRoot(2, task, 2, task)),
				ev("COMPLETE", 4, 2, task, parent(1, dag)),
				ev("COMPLETE", 5, 1, dag)),
			violations: []violation{{3, checker.RuleConflictingRun}}},
		{name: "parent.root gives the root above a parent the log knows only from facets",
			log: log(
				ev("START", 0, 1, dag),
				ev("START", 1, 3, app, parentRoot(2, task, 1, dag)),
				ev("COMPLETE", 2, 3, app, parentRoot(2, task, 1, dag)),
				ev("START", 3, 4, other, parent(2, task)),
				ev("COMPLETE", 4, 4, other, parent(2, task)),
				ev("COMPLETE", 5, 1, dag)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: airflow/dag=succeeded/1 spark/app=succeeded/1 spark/app.other=succeeded/1"}},
		{name: "two parent.root facets that give one unlogged parent two roots",
			log: log(
				ev("START", 0, 3, app, parentRoot(2, task, 1, dag)),
				ev("START", 1, 4, other, parentRoot(2, task, 10, dag))),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "a parent.root that names a run whose own events give it a parent",
			log: log(
				ev("START", 0, 1, dag, parent(9, dag)),
				ev("START", 1, 3, app, parentRoot(2, task, 1, dag))),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "a run whose parent.root names itself is a root",
			log: log(
				ev("START", 0, 1, app, parentRoot(9, dag, 1, app)),
				ev("COMPLETE", 1, 1, app, parentRoot(9, dag, 1, app))),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "at one eventTime a run's events follow its run cycle",
			log: log(
				ev("START", 0, 1, app),
				ev("COMPLETE", 1, 2, act, parent(1, app)),
				ev("RUNNING", 1, 2, act, parent(1, app)),
				ev("START", 1, 3, other, parent(1, app)),
				ev("START", 1, 2, act, parent(1, app)),
				ev("COMPLETE", 2, 3, other, parent(1, app)),
				ev("COMPLETE", 3, 1, app)),
			verdict:   checker.VerdictHealthy,
			reordered: 3,
			runs:      map[string]string{id(1): "succeeded: spark/app=succeeded/1 spark/app.action=succeeded/1 spark/app.other=succeeded/1"}},
		{name: "at one eventTime two terminal events stay in file order",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app), ev("FAIL", 1, 1, app)),
			violations: []violation{{3, checker.RuleDuplicateTerminal}}},
		{name: "eventTime without an offset",
			log:        log(ev("START", 0, 1, app, set("eventTime", "2026-01-01T10:00:00.000"))),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "a runId that is not a UUID",
			log:        log(ev("START", 0, 1, app, runID("run-1"))),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "a parent runId that is not a UUID",
			log: log(ev("START", 0, 2, act, func(m map[string]any) {
				facets(m)["parent"] = map[string]any{"run": map[string]any{"runId": "x"}, "job": map[string]any{"namespace": "a", "name": "b"}}
			})),
			violations: []violation{{1, checker.RuleSchema}}},
		{name: "a batch job silent past the threshold is a stall candidate",
			log:     log(ev("START", 0, 1, app), ev("START", 1, 2, act, parent(1, app), processing("BATCH"))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "stalled: spark/app=stalled/1 spark/app.action=stalled/1"}},
		{name: "a streaming job is running however long it is silent",
			log:     log(ev("START", 0, 1, app, processing("STREAMING"))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "running: spark/app=running/1"}},
		{name: "a Spark application COMPLETE with a failed action is failed",
			log: log(
				ev("START", 0, 1, app),
				ev("START", 1, 2, act, parent(1, app)),
				ev("FAIL", 2, 2, act, parent(1, app)),
				ev("COMPLETE", 3, 1, app)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=succeeded/1 spark/app.action=failed/1"}},
		{name: "OTHER changes nothing and may come at any time",
			log: log(
				ev("OTHER", 0, 1, app),
				ev("START", 1, 1, app),
				ev("COMPLETE", 2, 1, app),
				ev("OTHER", 3, 1, app),
				ev("OTHER", 4, 9, "x/only-other")),
			verdict: checker.VerdictHealthy,
			ignored: checker.IgnoredEvents{Other: 3},
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "ABORT is a failure",
			log:     log(ev("START", 0, 1, app), ev("ABORT", 1, 1, app)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=failed/1"}},
		{name: "a runId that changes its job",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, other)),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "a runId that changes its parent",
			log:        log(ev("START", 0, 3, act, parent(1, app)), ev("COMPLETE", 1, 3, act, parent(2, app))),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "a runId that changes its try_number",
			log:        log(ev("START", 0, 2, task, parent(1, dag), try(1)), ev("COMPLETE", 1, 2, task, parent(1, dag), try(2))),
			violations: []violation{{2, checker.RuleConflictingRun}}},
		{name: "parent facets that loop",
			log:        log(ev("START", 0, 1, app, parent(2, act)), ev("START", 1, 2, act, parent(1, app))),
			violations: []violation{{1, checker.RuleConflictingRun}, {2, checker.RuleConflictingRun}}},
		{name: "a repeat name that is another job's name",
			log: log(
				ev("START", 0, 1, app),
				ev("START", 1, 2, act, parent(1, app)),
				ev("START", 2, 3, "spark/app.action#2", parent(1, app)),
				ev("START", 3, 4, act, parent(1, app))),
			violations: []violation{{4, checker.RuleAmbiguousAttempt}}},
		{name: "a runId in capitals is the same run",
			log:     log(ev("START", 0, 1, app, runID(strings.ToUpper(id(1)))), ev("COMPLETE", 1, 1, app)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "an event from the future",
			log:        log(ev("START", 0, 1, app), ev("COMPLETE", 9000, 1, app)),
			violations: []violation{{2, checker.RuleTimestampInFuture}}},
		{name: "a duplicate key",
			log:        log(`{"eventType":"START","eventType":"COMPLETE"}`),
			violations: []violation{{1, checker.RuleDuplicateKey}}},
		{name: "a blank line and a line that is not JSON",
			log:        log(ev("START", 0, 1, app), "", "nope", ev("COMPLETE", 1, 1, app)),
			violations: []violation{{2, checker.RuleInvalidJSON}, {3, checker.RuleInvalidJSON}}},
		{name: "no runs prove nothing",
			log:     log(ev("OTHER", 0, 1, app)),
			verdict: checker.VerdictUnhealthy,
			ignored: checker.IgnoredEvents{Other: 1},
			runs:    map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := check(t, c.log, nil)
			var got []violation
			for _, v := range res.Report.Violations {
				got = append(got, violation{v.Line, v.Rule})
			}
			if !equalViolations(got, c.violations) {
				t.Fatalf("violations %v, want %v\n%+v", got, c.violations, res.Report.Violations)
			}
			if c.verdict == "" {
				if res.Snapshot != nil {
					t.Fatal("an invalid log has a snapshot")
				}
				return
			}
			s := res.Snapshot
			if string(s.Verdict) != c.verdict {
				t.Errorf("verdict %s, want %s", s.Verdict, c.verdict)
			}
			if *s.Source.ReorderedEvents != c.reordered {
				t.Errorf("%d events reordered, want %d", *s.Source.ReorderedEvents, c.reordered)
			}
			if *s.Source.IgnoredEvents != c.ignored {
				t.Errorf("ignored %+v, want %+v", *s.Source.IgnoredEvents, c.ignored)
			}
			var aliases []string
			for _, a := range s.Source.JobAliases {
				aliases = append(aliases, fmt.Sprintf("%s: %s as %s (%s in %s, %d)", a.RunID, a.Job, a.Alias, a.Facet, a.InRun, a.Line))
			}
			if got := strings.Join(aliases, "; "); got != c.aliases {
				t.Errorf("aliases\n got %s\nwant %s", got, c.aliases)
			}
			gotRuns := map[string]string{}
			for _, r := range s.Collect() {
				gotRuns[r.RunID] = string(r.State) + ": " + stages(r)
			}
			if fmt.Sprint(gotRuns) != fmt.Sprint(c.runs) {
				t.Errorf("runs\n got %v\nwant %v", gotRuns, c.runs)
			}
		})
	}
}
