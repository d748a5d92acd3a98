package requeststore

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
)

// TestAddPastTheLimit: past its limit a store refuses a request with
// ErrFull and keeps nothing; it never drops one it kept.
func TestAddPastTheLimit(t *testing.T) {
	s := New(2)
	for i, id := range []string{"a", "b"} {
		if err := s.Add(Request{ID: id, Line: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(Request{ID: "c", Line: 3}); !errors.Is(err, ErrFull) {
		t.Fatalf("err = %v, want ErrFull", err)
	}
	if s.Len() != 2 || s.Find("c") != nil || s.Find("a") == nil {
		t.Errorf("after a refused add: %d requests, c %v", s.Len(), s.Find("c"))
	}
}

// TestEncodeDecode: what Encode writes, Decode reads back field by field,
// with the index by run; a request twice, a run that answers two requests
// and a run without its line are damage.
func TestEncodeDecode(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 0, 0, 5, time.UTC)
	s := New(10)
	reqs := []Request{
		{ID: "rq-1", Line: 1, At: at, Slot: at.Truncate(24 * time.Hour), RequestedBy: "ana", ClaimLine: 2, ClaimedBy: "poller-a", ClaimedAt: at.Add(time.Minute), Lease: at.Add(time.Hour)},
		{ID: "rq-2", Line: 3, At: at, Reconciled: "INC-1", ClaimLine: 4, ClaimedBy: "poller-b", ClaimedAt: at, RunID: "r-1", RunLine: 4},
		{ID: "rq-3", Line: 5, At: at, SettledLine: 6},
	}
	for _, r := range reqs {
		if err := s.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	var e runstore.Encoder
	s.Encode(&e)
	d := runstore.NewDecoder(e.B)
	got := New(10)
	got.Decode(d)
	if d.Fault() != "" || len(d.Rest()) != 0 {
		t.Fatalf("fault %q, %d bytes left", d.Fault(), len(d.Rest()))
	}
	if !reflect.DeepEqual(got.list, s.list) || got.OfRun("r-1") != got.Find("rq-2") {
		t.Errorf("decoded %+v, want %+v", got.list, s.list)
	}
	for name, bad := range map[string][]Request{
		"a request twice":        {reqs[0], reqs[0]},
		"a run of two requests":  {reqs[1], {ID: "rq-9", Line: 9, RunID: "r-1", RunLine: 9}},
		"a run without its line": {{ID: "rq-9", Line: 9, RunID: "r-1"}},
		"a request without id":   {{Line: 9}},
		"a request on no line":   {{ID: "rq-9"}},
	} {
		b := New(10)
		b.list = bad // as a damaged checkpoint would hold them
		var e runstore.Encoder
		b.Encode(&e)
		d := runstore.NewDecoder(e.B)
		New(10).Decode(d)
		if want := "a request that contradicts another"; !strings.HasPrefix(d.Fault(), want) {
			t.Errorf("%s: fault %q, want one starting %q", name, d.Fault(), want)
		}
	}
}
