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
		{2, "status", "2 statuses"},
		{2, "class", "2 classes"},
		{3, "box", "3 boxes"},
		{2, "key", "2 keys"},
		{2, "branch", "2 branches"},
		{1, "status", "1 status"},
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
	for _, c := range []struct {
		text  string
		width int
		want  string
	}{
		{"one two three four five", 9, "one two\nthree\nfour five"},
		{"", 9, ""},
		{"  spaced   out  ", 20, "spaced out"},
		{"a verylongwordindeed b", 5, "a\nverylongwordindeed\nb"},
		{"über naïve", 5, "über\nnaïve"},
		{"exactly nine", 7, "exactly\nnine"},
	} {
		if got := Wrap(c.text, c.width); got != c.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
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

func TestKnob(t *testing.T) {
	for _, c := range []struct {
		field, prefix string
		sep           byte
		want          string
	}{
		{"Stages", "--", '-', "--stages"},
		{"MaxAge", "--", '-', "--max-age"},
		{"StaleAfterSeconds", "", '-', "stale-after-seconds"},
		{"InputFormat", "", '_', "input_format"},
		{"JobLogFile", "--", '-', "--job-log"},
		{"JobLogFile", "", '_', "job_log"},
		{"Now", "", '_', "now"},
	} {
		if got := Knob(c.field, c.prefix, c.sep); got != c.want {
			t.Errorf("Knob(%q, %q, %q) = %q, want %q", c.field, c.prefix, c.sep, got, c.want)
		}
	}
}
