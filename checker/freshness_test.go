package checker_test

import (
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/limits"
)

// TestParseMaxAge pins the syntax of max_age and --max-age: Go durations,
// whole days with d, none; 1s to 366 days.
func TestParseMaxAge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want checker.MaxAge
		err  bool
	}{
		{"26h", checker.MaxAge{Duration: 26 * time.Hour}, false},
		{"90m", checker.MaxAge{Duration: 90 * time.Minute}, false},
		{"2d", checker.MaxAge{Duration: 48 * time.Hour}, false},
		{"1d12h", checker.MaxAge{Duration: 36 * time.Hour}, false},
		{"366d", checker.MaxAge{Duration: limits.MaxAge}, false},
		{"none", checker.MaxAge{None: true}, false},
		{"1s", checker.MaxAge{Duration: time.Second}, false},
		{"367d", checker.MaxAge{}, true},
		{"1.5d", checker.MaxAge{}, true},
		{"0s", checker.MaxAge{}, true},
		{"500ms", checker.MaxAge{}, true},
		{"", checker.MaxAge{}, true},
		{"26", checker.MaxAge{}, true},
		{"h", checker.MaxAge{}, true},
		{"None", checker.MaxAge{}, true},
		{"-1h", checker.MaxAge{}, true},
	} {
		got, err := checker.ParseMaxAge(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseMaxAge(%q) = %+v, %v; want %+v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// TestMaxAgeInDefinition: the definition's max_age is read, and one the
// schema takes but the range refuses is an error naming the field.
func TestMaxAgeInDefinition(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("max_age: 2d\nstages: [{id: 1}]\n"))
	if err != nil || def.MaxAge != (checker.MaxAge{Duration: 48 * time.Hour}) {
		t.Fatalf("got %+v, %v", def, err)
	}
	_, err = checker.ParseDefinition([]byte("max_age: 400d\nstages: [{id: 1}]\n"))
	if want := `the pipeline definition: max_age "400d": use a duration from 1s to 8784h0m0s, such as 26h, 90m or 2d`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err = checker.ParseDefinition([]byte("max_age: soon\nstages: [{id: 1}]\n")); err == nil {
		t.Fatal("max_age: soon was accepted")
	}
}

// TestGateNeedsFreshness: a gating request without a freshness
// expectation is refused; with max_age none, a max_age or a schedule it
// is not.
func TestGateNeedsFreshness(t *testing.T) {
	for _, c := range []struct {
		req checker.Request
		ok  bool
	}{
		{checker.Request{Stages: "1", Gating: true}, false},
		{checker.Request{Stages: "1", Gating: true, MaxAge: "none"}, true},
		{checker.Request{Stages: "1", Gating: true, MaxAge: "26h"}, true},
		{checker.Request{Pipeline: []byte("max_age: 26h\nstages: [{id: 1}]\n"), Gating: true}, true},
		{checker.Request{Pipeline: []byte("stages: [{id: 1}]\nschedule: {cron: '0 2 * * *'}\n"), Gating: true}, true},
		{checker.Request{Stages: "1"}, true},
	} {
		_, err := c.req.Options()
		if (err == nil) != c.ok {
			t.Errorf("%+v: error %v, want ok %v", c.req, err, c.ok)
		}
	}
}
