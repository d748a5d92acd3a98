package openlineage_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// assertions sets a DataQualityAssertions facet on the run (input < 0) or
// on input dataset number input, under facets (or inputFacets when
// inputFacet is true); each assertion is {name, success, column}.
func assertions(input int, inputFacet bool, list ...[3]any) opt {
	return func(m map[string]any) {
		var as []any
		for _, a := range list {
			x := map[string]any{"assertion": a[0], "success": a[1]}
			if a[2] != nil {
				x["column"] = a[2]
			}
			as = append(as, x)
		}
		facet := map[string]any{"_producer": "https://example.com/test", "assertions": as}
		if input < 0 {
			facets(m)["dataQualityAssertions"] = facet
			return
		}
		ins, _ := m["inputs"].([]any)
		for len(ins) <= input {
			ins = append(ins, map[string]any{"namespace": "postgres://db", "name": "public.orders", "facets": map[string]any{"schema": map[string]any{"fields": []any{map[string]any{"name": "id", "type": "int"}}}}})
		}
		key := "facets"
		if inputFacet {
			key = "inputFacets"
		}
		d := ins[input].(map[string]any)
		if d[key] == nil {
			d[key] = map[string]any{}
		}
		d[key].(map[string]any)["dataQualityAssertions"] = facet
		m["inputs"] = ins
	}
}

// TestCompleteThatFailed: a COMPLETE that reports its own failure (an
// errorMessage facet, or a data quality assertion whose success is not
// true on the run or an input dataset) is a failed attempt whose error
// names the assertion, its column and the dataset, as OpenLineage itself
// now emits FAIL for it (OpenLineage/OpenLineage PR #4523). Passing
// assertions, and failed ones on an output dataset or on a START, change
// nothing.
func TestCompleteThatFailed(t *testing.T) {
	const dbt = "dbt/jaffle.run"
	const test = "dbt/jaffle.test.not_null_orders_id"
	cases := []struct {
		name    string
		log     string
		verdict string
		runs    map[string]string
		error   string // the error of the last attempt of the last stage of run 1
	}{
		{name: "an errorMessage facet on COMPLETE",
			log:     log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app, errMsg("Job aborted due to stage failure"))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=failed/1"},
			error:   "COMPLETE with an errorMessage: Job aborted due to stage failure"},
		{name: "a failed assertion on an input dataset's inputFacets",
			log:     log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app, assertions(0, true, [3]any{"not_null", false, "id"}, [3]any{"unique", true, "id"}))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=failed/1"},
			error:   "COMPLETE with failed data quality assertion not_null on column id of dataset postgres://db/public.orders"},
		{name: "failed assertions on the run and on an input dataset's facets, success not a boolean",
			log: log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app,
				assertions(-1, false, [3]any{"row_count_equal_to", false, nil}),
				assertions(0, false, [3]any{"is_string", "false", "name"}))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=failed/1"},
			error:   "COMPLETE with failed data quality assertion row_count_equal_to of the run; assertion is_string on column name of dataset postgres://db/public.orders (success is not true)"},
		{name: "four failed assertions: three named, one counted",
			log: log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app,
				assertions(0, true, [3]any{"a", false, nil}, [3]any{"b", false, nil}, [3]any{"c", false, nil}, [3]any{"d", false, nil}))),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: spark/app=failed/1"},
			error:   "COMPLETE with failed data quality assertion a of dataset postgres://db/public.orders; assertion b of dataset postgres://db/public.orders; assertion c of dataset postgres://db/public.orders; and 1 more"},
		{name: "every assertion passed",
			log:     log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app, assertions(0, true, [3]any{"not_null", true, "id"}))),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "a failed assertion on a START is not an outcome",
			log:     log(ev("START", 0, 1, app, assertions(0, true, [3]any{"not_null", false, "id"})), ev("COMPLETE", 5, 1, app)),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "a failed assertion on an output dataset is not read",
			log: log(ev("START", 0, 1, app), ev("COMPLETE", 5, 1, app, set("outputs", []any{map[string]any{"namespace": "pg", "name": "out",
				"facets": map[string]any{"dataQualityAssertions": map[string]any{"assertions": []any{map[string]any{"assertion": "not_null", "success": false}}}}}}))),
			verdict: checker.VerdictHealthy,
			runs:    map[string]string{id(1): "succeeded: spark/app=succeeded/1"}},
		{name: "dbt-ol send-events: the wrapper COMPLETEs, its test child failed",
			log: log(
				ev("START", 0, 1, dbt),
				ev("START", 1, 2, test, parent(1, dbt)),
				ev("COMPLETE", 2, 2, test, parent(1, dbt), assertions(0, true, [3]any{"not_null", false, "id"})),
				ev("COMPLETE", 3, 1, dbt)),
			verdict: checker.VerdictUnhealthy,
			runs:    map[string]string{id(1): "failed: dbt/jaffle.run=succeeded/1 dbt/jaffle.test.not_null_orders_id=failed/1"},
			error:   "COMPLETE with failed data quality assertion not_null on column id of dataset postgres://db/public.orders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := check(t, c.log, nil)
			if !res.Report.Valid || res.Snapshot == nil {
				t.Fatalf("invalid: %+v", res.Report.Violations)
			}
			if string(res.Snapshot.Verdict) != c.verdict {
				t.Errorf("verdict %s, want %s", res.Snapshot.Verdict, c.verdict)
			}
			for _, r := range res.Snapshot.Collect() {
				want, ok := c.runs[r.RunID]
				if got := string(r.State) + ": " + stages(r); !ok || got != want {
					t.Errorf("run %s: %s, want %s", r.RunID, got, want)
				}
				if r.RunID != id(1) || c.error == "" {
					continue
				}
				last := r.Stages[len(r.Stages)-1]
				a := last.Attempts[len(last.Attempts)-1]
				if a.Error == nil || *a.Error != c.error {
					t.Errorf("error %v, want %q", a.Error, c.error)
				}
				if !strings.HasPrefix(a.Status, "failed") {
					t.Errorf("attempt status %s", a.Status)
				}
			}
		})
	}
}
