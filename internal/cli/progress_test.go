package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// clock is a fake clock that the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestProgressLine: the progress display at chosen moments, for a file of
// known size (share, rate, time left) and for standard input (spinner), drawn
// at most every progressInterval and erased at the end.
func TestProgressLine(t *testing.T) {
	chunk := bytes.Repeat([]byte("x\n"), 500_000) // 1 MB, 500,000 events
	for _, c := range []struct {
		name  string
		total int64
		steps []time.Duration // when each chunk is read, from the start
		want  string
	}{
		{"file", 4_000_000, []time.Duration{0, time.Second, 1100 * time.Millisecond, 2 * time.Second}, "" +
			"\rgreenlight: read 2.0 MB of 4.0 MB (50%), 1,000,000 events/s, 1s left\x1b[K" +
			"\rgreenlight: read 4.0 MB of 4.0 MB (100%), 1,000,000 events/s\x1b[K" +
			"\r\x1b[K"},
		{"stdin", -1, []time.Duration{0, time.Second, 2 * time.Second}, "" +
			"\rgreenlight: | read 2.0 MB, 1,000,000 events/s\x1b[K" +
			"\rgreenlight: / read 3.0 MB, 750,000 events/s\x1b[K" +
			"\r\x1b[K"},
		{"quick", 4_000_000, []time.Duration{0, 100 * time.Millisecond}, ""},
	} {
		var out strings.Builder
		clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		start := clk.t
		p := &Progress{W: &out, Total: c.total, Now: clk.now}
		for _, at := range c.steps {
			clk.t = start.Add(at)
			p.Add(chunk)
		}
		p.Done()
		if out.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, out.String(), c.want)
		}
	}
}

// TestProgressThreshold: with From set (auto), nothing is drawn, or
// erased, until that much is read or the size reaches it.
func TestProgressThreshold(t *testing.T) {
	var out strings.Builder
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	start := clk.t
	p := &Progress{W: &out, Total: -1, Now: clk.now, From: 3_000_000}
	chunk := bytes.Repeat([]byte("x\n"), 500_000)
	p.Add(chunk)
	clk.t = start.Add(time.Second)
	p.Add(chunk)
	if out.Len() != 0 {
		t.Fatalf("drawn below the threshold: %q", out.String())
	}
	clk.t = start.Add(2 * time.Second)
	p.Add(chunk)
	p.Done()
	if want := "\rgreenlight: | read 3.0 MB, 750,000 events/s\x1b[K\r\x1b[K"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	small := &Progress{W: &out, Total: 10, Now: clk.now, From: 3_000_000}
	small.Add([]byte("{}\n"))
	clk.t = clk.t.Add(time.Second)
	small.Add([]byte("{}\n"))
	small.Done()
	if out.Len() != 0 {
		t.Errorf("a small file shows progress: %q", out.String())
	}
}

// TestProgressFor: never and auto on a stderr that is no terminal read the
// log as it is and print nothing; always prints, whatever stderr is.
func TestProgressFor(t *testing.T) {
	for _, c := range []struct {
		when  string
		drawn bool
	}{{whenNever, false}, {whenAuto, false}, {whenAlways, true}} {
		var stderr strings.Builder
		src := strings.NewReader("{}\n")
		clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		tick := func() time.Time { clk.t = clk.t.Add(time.Second); return clk.t } // a slow reader
		wrap, done := progressFor(c.when, 3, &stderr, tick)
		r := wrap(iotest.OneByteReader(src))
		data, err := io.ReadAll(r)
		done()
		if err != nil || string(data) != "{}\n" {
			t.Errorf("%s: read %q, %v", c.when, data, err)
		}
		if drawn := stderr.Len() > 0; drawn != c.drawn {
			t.Errorf("%s: stderr %q", c.when, stderr.String())
		}
		if c.drawn && !strings.HasSuffix(stderr.String(), "\r\x1b[K") {
			t.Errorf("%s: the line is not erased: %q", c.when, stderr.String())
		}
	}
}

// TestUseColor: --color and NO_COLOR (https://no-color.org): auto paints a
// terminal unless NO_COLOR is set and not empty, or TERM is dumb; always
// and never override both.
func TestUseColor(t *testing.T) {
	for _, c := range []struct {
		when     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{whenAuto, true, nil, true},
		{whenAuto, false, nil, false},
		{whenAuto, true, map[string]string{"NO_COLOR": "1"}, false},
		{whenAuto, true, map[string]string{"NO_COLOR": ""}, true},
		{whenAuto, true, map[string]string{"TERM": "dumb"}, false},
		{whenAlways, false, map[string]string{"NO_COLOR": "1"}, true},
		{whenNever, true, nil, false},
	} {
		if got := useColor(c.when, c.terminal, func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%s, terminal %v, env %v: %v, want %v", c.when, c.terminal, c.env, got, c.want)
		}
	}
}
