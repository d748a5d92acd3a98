package openlineage_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
)

// TestMemoryPerRun: without a pipeline definition every OpenLineage run has
// its own expected stages, and its state must still cost what a native
// run's does, not a slab of its own (80 KB a run, once).
func TestMemoryPerRun(t *testing.T) {
	const runs = 3000
	var b strings.Builder
	for r := range runs {
		b.WriteString(ev("START", r%50, r, "ns/job") + "\n")
		b.WriteString(ev("COMPLETE", r%50+1, r, "ns/job") + "\n")
	}
	log := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := openlineage.Check(strings.NewReader(log), checker.Options{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || res.Snapshot == nil || res.Snapshot.RunCount != runs {
		t.Fatalf("%v; %+v", err, res.Report.Violations)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRun := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / runs
	t.Logf("%d bytes of live heap per run", perRun)
	if perRun > 4000 {
		t.Errorf("%d bytes of live heap per run, want at most 4000", perRun)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(log)
}
