package checker_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// indexHome is the home slot of a run id in a checkpoint's run index of
// 2^bits slots: runstore's fnv64 (FNV-1a, then fmix64), written out again
// as the test's oracle.
func indexHome(id string, bits uint) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h >> (64 - bits)
}

// TestCheckpointCollidingIDs: run ids a log's writer chose so that they
// share one home slot in the checkpoint's run index (its hash has no key)
// would make every lookup walk a cluster as long as the log; a checkpoint
// whose index would need a probe past the bound holds none, and the check
// resumed from it finds the runs through a map: a full check's bytes, at
// every cut, events of old runs after the cut included.
func TestCheckpointCollidingIDs(t *testing.T) {
	const runs = 150 // an index of 512 slots (at least twice the runs)
	var ids []string
	for k := 0; len(ids) < runs; k++ {
		if id := fmt.Sprintf("c-%d", k); indexHome(id, 9) == 0 {
			ids = append(ids, id)
		}
	}
	var b bytes.Buffer
	for i, id := range ids {
		fmt.Fprintf(&b, `{"run_id":%q,"stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:%02d:%02dZ"}`+"\n", id, i/60, i%60)
	}
	for i, id := range ids {
		status, more := "succeeded", `"returncode":0`
		if i%7 == 3 {
			status, more = "failed", `"returncode":1,"error":"boom"`
		}
		fmt.Fprintf(&b, `{"run_id":%q,"stage":1,"attempt":1,"status":%q,"timestamp_utc":"2026-01-01T11:%02d:%02dZ",%s}`+"\n", id, status, i/60, i%60, more)
	}
	log := b.Bytes()
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	sc := splitCase{name: "colliding ids", log: log, opts: checker.Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), File: "events.jsonl"}}
	opts := sc.options()
	rd := reading(nil)
	res, err := checkRead(bytes.NewReader(log), opts, rd)
	if err != nil || res.Checkpoint == nil {
		t.Fatal(err, res.NoCheckpoint)
	}
	cp := reread(t, res.Checkpoint)
	if bits, err := checker.CheckpointIndexBits(cp, opts); err != nil || bits != 0 {
		t.Fatalf("the checkpoint of %d colliding ids holds an index of 2^%d slots (%v), want none", runs, bits, err)
	}
	full := outputsOf(t, res)
	resumed := 0
	for at := 0; at <= len(log); at++ {
		if at > 0 && log[at-1] != '\n' {
			continue
		}
		if checkSplit(t, sc, full, at) {
			resumed++
		}
	}
	if resumed != 2*runs+1 {
		t.Fatalf("%d of %d cuts resumed", resumed, 2*runs+1)
	}
}
