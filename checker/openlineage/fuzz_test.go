package openlineage_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
)

// FuzzCheck: any input, as JSON Lines or an array, gives a report without
// panicking, the same bytes twice, and a snapshot only when it matches
// snapshot.schema.json and no violation was found.
func FuzzCheck(f *testing.F) {
	f.Add(log(ev("START", 0, 1, app), ev("RUNNING", 1, 1, app), ev("COMPLETE", 2, 1, app)))
	f.Add(log(ev("START", 0, 2, task, parent(1, dag), try(1)), ev("FAIL", 1, 2, task, parent(1, dag), try(1)), ev("START", 2, 3, task, parent(1, dag), try(2))))
	f.Add("[" + ev("START", 0, 1, app) + "," + ev("START", 1, 2, act, parentRoot(1, app, 1, app)) + "]")
	f.Add(log(ev("START", 1, 1, app, parent(2, act)), ev("OTHER", 0, 2, act, parent(1, app))))
	f.Add("[\n")
	f.Add(pretty(ev("START", 0, 1, app, mapIndex(2), try(1))))
	f.Add(log(datasetEvent(0), jobEvent(1, app), ev("START", 2, 1, app, drop("eventType"))))
	f.Add(log(ev("COMPLETE", 1, 2, app, parentRoot(1, app, 1, "spark/App")), ev("START", 1, 2, app, parentRoot(1, app, 1, "spark/App"))))
	// A parent.root that contradicts the parent chain; two roots for one
	// unlogged parent; a chain where each run is the parent of the next.
	f.Add(log(ev("START", 0, 1, dag), ev("START", 1, 2, task, parent(1, dag)), ev("FAIL", 2, 3, app, parentRoot(2, task, 10, dag))))
	f.Add(log(ev("START", 0, 3, app, parentRoot(2, task, 1, dag)), ev("START", 1, 4, other, parentRoot(2, task, 10, dag))))
	f.Add(log(ev("START", 0, 1, app), ev("START", 1, 2, act, parent(1, app)), ev("START", 2, 3, act, parent(2, act)), ev("COMPLETE", 3, 3, act, parentRoot(2, act, 1, app))))
	f.Fuzz(func(t *testing.T, text string) {
		run := func() []byte {
			res, err := openlineage.Check(strings.NewReader(text), checker.Options{Now: testNow, File: "f"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot != nil && !res.Report.Valid {
				t.Fatal("a snapshot from an invalid log")
			}
			return doc(t, res)
		}
		a, b := run(), run()
		if !bytes.Equal(a, b) {
			t.Fatalf("two checks of the same input differ:\n%s\n%s", a, b)
		}
		validateDoc(t, a)
	})
}
