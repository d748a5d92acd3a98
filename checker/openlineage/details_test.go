package openlineage_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/schemas"
)

// attempt returns attempt n (1-based) of the stage labelled stage in the
// snapshot's only run.
func attempt(t *testing.T, res *checker.Result, stage string, n int) checker.AttemptReport {
	t.Helper()
	if res.Snapshot == nil {
		t.Fatalf("no snapshot: %+v", res.Report.Violations)
	}
	for _, s := range res.Snapshot.Collect()[0].Stages {
		if s.Stage.String() == stage && len(s.Attempts) >= n {
			return s.Attempts[n-1]
		}
	}
	t.Fatalf("no attempt %d of stage %s", n, stage)
	return checker.AttemptReport{}
}

// TestRunningIsLiveness: RUNNING refreshes the attempt's last evidence, so
// the silence is counted from it and the attempt's line is its line.
func TestRunningIsLiveness(t *testing.T) {
	text := log(ev("START", 0, 1, app), ev("RUNNING", 7140, 1, app))
	a := attempt(t, check(t, text, nil), app, 1)
	if a.Status != checker.StageRunning || a.SilentForSeconds == nil || *a.SilentForSeconds != 60 || a.Line != 2 {
		t.Errorf("got status %s, silent %v, line %d; want running, 60 s, line 2", a.Status, a.SilentForSeconds, a.Line)
	}
	// Without the heartbeat the same attempt is a stall candidate.
	a = attempt(t, check(t, log(ev("START", 0, 1, app)), nil), app, 1)
	if a.Status != checker.StageStalled || *a.SilentForSeconds != 7200 {
		t.Errorf("got status %s, silent %v; want stalled, 7200 s", a.Status, *a.SilentForSeconds)
	}
}

// TestErrors: FAIL takes its error from the errorMessage facet (none: null),
// ABORT is failed with error "aborted".
func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		end  string
		want *string
	}{
		{"FAIL with errorMessage", ev("FAIL", 1, 1, app, errMsg("Job aborted due to stage failure")), ptr("Job aborted due to stage failure")},
		{"FAIL without errorMessage", ev("FAIL", 1, 1, app), nil},
		{"ABORT", ev("ABORT", 1, 1, app), ptr("aborted")},
		{"ABORT with errorMessage", ev("ABORT", 1, 1, app, errMsg("killed")), ptr("aborted: killed")},
		{"COMPLETE", ev("COMPLETE", 1, 1, app), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := attempt(t, check(t, log(ev("START", 0, 1, app), c.end), nil), app, 1)
			if (a.Error == nil) != (c.want == nil) || (a.Error != nil && *a.Error != *c.want) {
				t.Errorf("error %v, want %v", deref(a.Error), deref(c.want))
			}
			if a.Returncode != nil {
				t.Errorf("returncode %d, want null: OpenLineage has no exit codes", *a.Returncode)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// TestInputForms: a JSON array places each event at the line where it
// starts; a set of documents names the file of a violation, and the snapshot
// records the file's position as the line.
func TestInputForms(t *testing.T) {
	array := "[\n  " + ev("START", 0, 1, app) + ",\n\n  " + ev("COMPLETE", 1, 1, app, drop("producer")) + "\n]\n"
	res := check(t, array, nil)
	if v := res.Report.Violations; len(v) != 1 || v[0].Line != 4 || v[0].Rule != checker.RuleSchema || v[0].File != "ol.jsonl" {
		t.Fatalf("array: got %+v, want one schema violation on line 4", v)
	}
	if !strings.Contains(res.Report.Violations[0].Message, `the required field "producer" is missing`) {
		t.Errorf("message %q does not name the missing field", res.Report.Violations[0].Message)
	}
	res = check(t, "["+ev("START", 0, 1, app)+",\n"+ev("COMPLETE", 1, 1, app)+"]", nil)
	if res.Snapshot == nil || res.Snapshot.Verdict != checker.VerdictHealthy || res.Snapshot.Source.LineCount != 2 || res.Snapshot.Source.EventCount != 2 {
		t.Fatalf("array: got %+v %+v", res.Report.Violations, res.Snapshot)
	}
	for _, c := range []struct{ text, msg string }{
		{"[" + ev("START", 0, 1, app) + ",\n", "truncated JSON: the array ends before it is closed"},
		{"[" + ev("START", 0, 1, app) + "]\n[]", "trailing data after the JSON array"},
		{"[\n1]", "the event is a JSON number, not an object"},
	} {
		res = check(t, c.text, nil)
		if v := res.Report.Violations; len(v) != 1 || v[0].Rule != checker.RuleInvalidJSON || v[0].Message != c.msg {
			t.Errorf("%q: got %+v, want invalid_json %q", c.text, v, c.msg)
		}
	}

	docs := []openlineage.Document{
		{Name: "events/a.json", Data: []byte("{\n  \"pretty\": true\n}\n")},
		{Name: "events/b.json", Data: []byte("\n\n" + ev("START", 0, 1, app) + "\n")},
		{Name: "events/c.json", Data: []byte(ev("COMPLETE", 1, 1, app))},
		{Name: "events/d.json", Data: []byte("  \n")},
	}
	res, err := openlineage.CheckDocuments(docs, checker.Options{Now: testNow, File: "events"})
	if err != nil {
		t.Fatal(err)
	}
	want := []checker.Violation{
		{File: "events/a.json", Line: 1, Rule: checker.RuleSchema},
		{File: "events/d.json", Line: 2, Rule: checker.RuleInvalidJSON, Message: "the file is empty: it must hold one JSON object"},
	}
	got := res.Report.Violations
	if len(got) != len(want) {
		t.Fatalf("documents: got %+v", got)
	}
	for i := range want {
		if got[i].File != want[i].File || got[i].Line != want[i].Line || got[i].Rule != want[i].Rule || (want[i].Message != "" && got[i].Message != want[i].Message) {
			t.Errorf("documents: violation %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	res, err = openlineage.CheckDocuments(docs[1:3], checker.Options{Now: testNow, File: "events"})
	if err != nil || res.Snapshot == nil {
		t.Fatalf("documents: %v %+v", err, res.Report)
	}
	validateDoc(t, doc(t, res))
	if a := res.Snapshot.Collect()[0].Stages[0].Attempts[0]; a.Line != 2 || res.Snapshot.Collect()[0].FirstLine != 1 || res.Snapshot.Source.LineCount != 4 {
		t.Errorf("documents: attempt line %d, first line %d, line count %d; want 2, 1, 4", a.Line, res.Snapshot.Collect()[0].FirstLine, res.Snapshot.Source.LineCount)
	}
}

// TestLineTooLong: a line over the limit is reported and reading goes on.
func TestLineTooLong(t *testing.T) {
	long := ev("START", 0, 1, app, set("pad", strings.Repeat("x", 600)))
	res, err := openlineage.Check(strings.NewReader(log(long, "nope")), checker.Options{Now: testNow, File: "ol.jsonl", MaxLineBytes: 500})
	if err != nil {
		t.Fatal(err)
	}
	var got []violation
	for _, v := range res.Report.Violations {
		got = append(got, violation{v.Line, v.Rule})
	}
	if want := []violation{{1, checker.RuleLineTooLong}, {2, checker.RuleInvalidJSON}}; !equalViolations(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

const sparkPipeline = `pipeline: spark_app
stages:
  - {id: app, name: spark/app, depends_on: []}
  - {id: action, name: spark/app.action, depends_on: []}
  - {id: again, name: "spark/app.action#2", depends_on: [action]}
`

// TestDefinitionMapped: a definition names each map index of a mapped
// Airflow task as its own stage, namespace/name[i].
func TestDefinitionMapped(t *testing.T) {
	def, err := checker.ParseDefinition([]byte(`pipeline: mapped
stages:
  - {id: dag, name: airflow/dag, depends_on: []}
  - {id: t0, name: "airflow/dag.task[0]", depends_on: []}
  - {id: t1, name: "airflow/dag.task[1]", depends_on: []}
`))
	if err != nil {
		t.Fatal(err)
	}
	res := check(t, log(
		ev("START", 0, 1, dag),
		ev("START", 1, 2, task, parent(1, dag), try(1), mapIndex(0)),
		ev("COMPLETE", 2, 2, task, parent(1, dag), try(1), mapIndex(0)),
		ev("COMPLETE", 3, 1, dag)), def)
	if res.Snapshot == nil {
		t.Fatalf("got %+v", res.Report.Violations)
	}
	if got := stages(res.Snapshot.Collect()[0]); got != "dag=succeeded/1 t0=succeeded/1 t1=pending/0" || res.Snapshot.Collect()[0].State != checker.RunIncomplete {
		t.Errorf("stages %s, run %s", got, res.Snapshot.Collect()[0].State)
	}
}

// TestDefinition: a definition's stage names are the jobs; the snapshot
// uses its ids, a job it does not name is unknown_stage, and a stage that
// never logged is pending.
func TestDefinition(t *testing.T) {
	def, err := checker.ParseDefinition([]byte(sparkPipeline))
	if err != nil {
		t.Fatal(err)
	}
	full := log(
		ev("START", 0, 1, app),
		ev("START", 1, 2, act, parent(1, app)),
		ev("COMPLETE", 2, 2, act, parent(1, app)),
		ev("START", 3, 3, act, parent(1, app)),
		ev("COMPLETE", 4, 3, act, parent(1, app)),
		ev("COMPLETE", 5, 1, app))
	res := check(t, full, def)
	if res.Snapshot == nil || res.Snapshot.Verdict != checker.VerdictHealthy {
		t.Fatalf("got %+v", res.Report.Violations)
	}
	if got := stages(res.Snapshot.Collect()[0]); got != "app=succeeded/1 action=succeeded/1 again=succeeded/1" {
		t.Errorf("stages %s", got)
	}
	if p := res.Snapshot.Options.Pipeline; p == nil || *p != "spark_app" || len(res.Snapshot.Options.Stages) != 3 {
		t.Errorf("options %+v", res.Snapshot.Options)
	}

	res = check(t, log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app)), def)
	if got := stages(res.Snapshot.Collect()[0]); got != "app=succeeded/1 action=pending/0 again=pending/0" || res.Snapshot.Collect()[0].State != checker.RunIncomplete {
		t.Errorf("stages %s, run %s", got, res.Snapshot.Collect()[0].State)
	}

	res = check(t, log(ev("START", 0, 1, app), ev("START", 1, 2, other, parent(1, app))), def)
	v := res.Report.Violations
	if len(v) != 1 || v[0].Line != 2 || v[0].Rule != checker.RuleUnknownStage ||
		v[0].Message != "job spark/app.other is not named by the pipeline definition (named: spark/app, spark/app.action, spark/app.action#2)" {
		t.Errorf("got %+v", v)
	}

	for _, c := range []struct{ yaml, err string }{
		{"stages: [{id: a}]", "stage a of the pipeline definition has no name: for OpenLineage each stage's name is the job it stands for, namespace/name"},
		{"stages: [{id: a, name: x/y}, {id: b, name: x/y}]", `stages a and b of the pipeline definition name the same job "x/y"`},
	} {
		d, err := checker.ParseDefinition([]byte(c.yaml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = openlineage.Check(strings.NewReader(""), checker.Options{Now: testNow, Definition: d})
		if err == nil || err.Error() != c.err {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.err)
		}
	}
	if _, err := openlineage.Check(strings.NewReader(""), checker.Options{Now: testNow, Strict: true}); err == nil {
		t.Error("--strict was accepted")
	}
}

// TestSnapshotSchemaKeepsNativeStages: the snapshot schema lets a stage be
// named by its job only in an OpenLineage snapshot; the same document
// claiming to be native is refused.
func TestSnapshotSchemaKeepsNativeStages(t *testing.T) {
	res := check(t, log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, app)), nil)
	b := doc(t, res)
	s, err := schemas.Compile("snapshot")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		edit  func(string) string
		valid bool
	}{
		{"as written", func(s string) string { return s }, true},
		{"input_format native", func(s string) string {
			return strings.Replace(s, `"input_format": "openlineage",`, `"input_format": "native",`, 1)
		}, false},
		{"no input_format", func(s string) string { return strings.Replace(s, `"input_format": "openlineage",`, ``, 1) }, false},
		{"no reordered_events", func(s string) string {
			return strings.Replace(s, `"input_format": "openlineage",
    "reordered_events": 0`, `"input_format": "openlineage"`, 1)
		}, false},
	} {
		inst, err := schemas.Instance([]byte(c.edit(string(b))))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := s.Validate(inst); (err == nil) != c.valid {
			t.Errorf("%s: valid %v, want %v (%v)", c.name, err == nil, c.valid, err)
		}
	}
}

// TestRulesDocumented: docs/openlineage.md lists every OpenLineage rule as
// the rule table states it.
func TestRulesDocumented(t *testing.T) {
	docs, err := os.ReadFile("../../docs/openlineage.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range checker.OpenLineageRules() {
		row := fmt.Sprintf("| `%s` | %s | %s |\n", r.ID, r.Summary, r.Detail)
		if !strings.Contains(string(docs), row) {
			t.Errorf("docs/openlineage.md lacks the row\n%s", row)
		}
	}
}

// TestMessages: a conflict says where each side came from, and a refused
// event names its kind.
func TestMessages(t *testing.T) {
	cases := []struct{ name, log, want string }{
		{"a run's own events name two jobs",
			log(ev("START", 0, 1, app), ev("COMPLETE", 1, 1, other)),
			"run " + id(1) + " is job spark/app.other in this COMPLETE event, but job spark/app in its own START event at line 1"},
		{"a run's own events name two parents",
			log(ev("START", 0, 3, act, parent(1, app)), ev("COMPLETE", 1, 3, act, parent(2, app))),
			"run " + id(3) + " has parent run " + id(2) + " in this COMPLETE event, but parent run " + id(1) + " in its own START event at line 1"},
		{"a run's own events name two roots",
			log(ev("START", 0, 3, act, parentRoot(2, app, 1, dag)), ev("COMPLETE", 1, 3, act, parentRoot(2, app, 4, dag))),
			"run " + id(3) + " has root run " + id(4) + " in this COMPLETE event, but root run " + id(1) + " in its own START event at line 1"},
		{"a parent.root that contradicts the parent chain names both roots",
			log(ev("START", 0, 1, dag), ev("START", 1, 2, task, parent(1, dag)), ev("FAIL", 2, 3, app, parentRoot(2, task, 10, dag))),
			"run " + id(3) + " names root run " + id(10) + " in its parent.root facet, but its parent facets lead to root run " + id(1) + " (through parent run " + id(2) + ")"},
		{"two parent.root facets for one chain name both roots",
			log(ev("START", 0, 3, app, parentRoot(2, task, 1, dag)), ev("START", 1, 4, other, parentRoot(2, task, 10, dag))),
			"run " + id(4) + " names root run " + id(10) + " in its parent.root facet, but run " + id(3) + " names root run " + id(1) + " for the same parent chain (through run " + id(2) + ") in its own START event at line 1"},
		{"a run's own events give two map indexes",
			log(ev("START", 0, 2, task, parent(1, dag), mapIndex(0)), ev("COMPLETE", 1, 2, task, parent(1, dag), mapIndex(1))),
			"run " + id(2) + " has map_index 1 in this COMPLETE event, but 0 in its own START event at line 1"},
		{"a DatasetEvent without a dataset name",
			log(datasetEvent(0, func(m map[string]any) { delete(m["dataset"].(map[string]any), "name") })),
			"the DatasetEvent does not match openlineage-runevent.schema.json: at /dataset: the required field \"name\" is missing"},
		{"an event of no kind",
			log(`{"eventTime":"2026-01-01T10:00:00Z","producer":"p"}`),
			"the event (a JobEvent, as it has neither run nor dataset) does not match openlineage-runevent.schema.json: at /: the required field \"job\" is missing"},
		{"a mapped stage name that is another job's name",
			log(ev("START", 0, 2, task, parent(1, dag), try(1), mapIndex(0)), ev("START", 1, 3, task+"[0]", parent(1, dag), try(1))),
			"run " + id(3) + " (job airflow/dag.task[0]) in run " + id(1) + " would be stage airflow/dag.task[0], but that is the stage of job airflow/dag.task, map_index 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := check(t, c.log, nil)
			if v := res.Report.Violations; len(v) != 1 || v[0].Message != c.want {
				t.Errorf("got %+v\nwant one violation: %s", v, c.want)
			}
		})
	}
}

// pretty writes an event as indented JSON over many lines, as
// json.dumps(event, indent=2) does.
func pretty(line string) string {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		panic(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// TestPrettyDocument: a file holding one pretty-printed event is that one
// event; a file that is neither JSON Lines nor one document is one
// violation, not one for every line.
func TestPrettyDocument(t *testing.T) {
	one := pretty(ev("START", 0, 1, app))
	res := check(t, "\n\n"+one, nil)
	if res.Snapshot == nil || res.Snapshot.Source.EventCount != 1 || res.Snapshot.Collect()[0].FirstLine != 3 {
		t.Fatalf("one document: got %+v %+v", res.Report.Violations, res.Snapshot)
	}
	if got := stages(res.Snapshot.Collect()[0]); got != "spark/app=stalled/1" {
		t.Errorf("one document: stages %s", got)
	}
	res = check(t, pretty(ev("START", 0, 1, app, drop("producer"))), nil)
	if v := res.Report.Violations; len(v) != 1 || v[0].Rule != checker.RuleSchema || v[0].Line != 1 {
		t.Errorf("one document without producer: got %+v, want one schema violation at line 1", v)
	}
	for _, c := range []struct {
		name, text string
		line       int
		detail     string
	}{
		{"truncated", one[:len(one)-5], 1, "it ends before the JSON value is closed"},
		{"two documents", one + one, strings.Count(one, "\n") + 1, "more than one JSON value"},
	} {
		res = check(t, c.text, nil)
		want := "this file is not JSON Lines (its first line is not a whole JSON object, and no line is), nor one JSON document (" + c.detail + "); write one event per line"
		if v := res.Report.Violations; len(v) != 1 || v[0].Rule != checker.RuleInvalidJSON || v[0].Line != c.line || v[0].Message != want {
			t.Errorf("%s: got %+v, want one invalid_json at line %d: %s", c.name, v, c.line, want)
		}
	}
	// JSON Lines whose first line is broken is still JSON Lines: each
	// line is judged.
	res = check(t, log(`{"eventType": "START",`, ev("START", 0, 1, app), "nope"), nil)
	var got []violation
	for _, v := range res.Report.Violations {
		got = append(got, violation{v.Line, v.Rule})
	}
	if want := []violation{{1, checker.RuleInvalidJSON}, {3, checker.RuleInvalidJSON}}; !equalViolations(got, want) {
		t.Errorf("JSON Lines with a broken first line: got %v, want %v", got, want)
	}
}
