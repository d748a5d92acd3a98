package words

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n      int
		phrase string
		want   string
	}{
		{1, "event", "1 event"},
		{0, "event", "0 events"},
		{2, "contract violation", "2 contract violations"},
		{3, "entry", "3 entries"},
		{2, "day", "2 days"},
		{2, "match", "2 matches"},
		{1, "event is", "1 event is"},
		{2, "event is", "2 events are"},
		{2, "file follows", "2 files follow"},
		{5, "more run", "5 more runs"},
		{1, "it is", "1 it is"},
		{2, "it is", "2 they are"},
		{2, "inconsistency", "2 inconsistencies"},
	} {
		if got := Count(c.n, c.phrase); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.phrase, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"started", "succeeded", "failed", "heartbeat", "unknown", "resolved"}
	for _, c := range []struct{ in, want string }{
		{"succeded", "succeeded"},
		{"Failed", "failed"},
		{"sucess", ""},
		{"strated", "started"},
		{"x", ""},
		{"", ""},
		{"hartbeat", "heartbeat"},
		{"stauts", ""},
	} {
		if got := Nearest(c.in, known); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("one two three four five", 9)
	want := "one two\nthree\nfour five"
	if got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"stauts", "status", 1},
		{"stauts", "stages", 2},
		{"succeded", "succeeded", 1},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
