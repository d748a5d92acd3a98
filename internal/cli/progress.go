package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/greenlight-ci/greenlight/internal/words"
)

// The values of --progress and --color (docs/contract.md, "Text output").
const (
	whenAuto   = "auto"
	whenAlways = "always"
	whenNever  = "never"
)

// whenFlag is a flag taking auto, always or never. Like RangedInt, Set
// takes any text and Value checks it, so that the error is greenlight's own.
type whenFlag struct {
	name  string
	value string
}

func (f *whenFlag) String() string     { return f.value }
func (f *whenFlag) Type() string       { return "when" }
func (f *whenFlag) Set(s string) error { f.value = s; return nil }
func (f *whenFlag) Value() (string, error) {
	switch f.value {
	case whenAuto, whenAlways, whenNever:
		return f.value, nil
	}
	msg := fmt.Sprintf("--%s %q: use auto, always or never", f.name, f.value)
	if near := words.Nearest(f.value, []string{whenAuto, whenAlways, whenNever}); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return "", usageError{msg}
}

// addWhen defines --name auto|always|never, auto by default.
func addWhen(fs *pflag.FlagSet, name, usage string) *whenFlag {
	f := &whenFlag{name: name, value: whenAuto}
	fs.Var(f, name, usage)
	return f
}

// ProgressThreshold is the size of input (bytes) from which --progress auto
// shows progress on a terminal: the whole run for a file at least this big,
// and, for standard input, whose size is unknown, from the moment this much
// has been read. Below it a check takes a fraction of a second.
const ProgressThreshold = 16 << 20

// progressInterval is how often the progress line is redrawn at most.
const progressInterval = 200 * time.Millisecond

// isTerminal reports whether w is a terminal (a file whose descriptor
// golang.org/x/term says is one; never in the WASI module).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// useColor decides --color: always and never as said; auto paints only a
// terminal, and not when NO_COLOR is set to anything but "" (no-color.org)
// or TERM is "dumb".
func useColor(when string, stdoutTerminal bool, getenv func(string) string) bool {
	switch when {
	case whenAlways:
		return true
	case whenNever:
		return false
	}
	return stdoutTerminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// progressFor decides --progress: never shows nothing; always shows
// progress on stderr from the first byte, terminal or not; auto shows it
// only when stderr is a terminal, for input of ProgressThreshold bytes or
// more. size is the bytes expected in all (-1 when unknown). It returns a
// function that wraps each reader of the log so that one display counts
// them all, and a function that ends the display (clearing the line), to
// call once reading is done.
func progressFor(when string, size int64, stderr io.Writer, now func() time.Time) (func(io.Reader) io.Reader, func()) {
	if when == whenNever || (when == whenAuto && !isTerminal(stderr)) {
		return func(r io.Reader) io.Reader { return r }, func() {}
	}
	if now == nil {
		now = time.Now
	}
	p := &Progress{W: stderr, Total: size, Now: now}
	if when == whenAlways {
		p.From = 0
	} else {
		p.From = ProgressThreshold
	}
	return p.Reader, p.Done
}

// Progress draws a one-line progress display on a terminal: the bytes
// read, the events per second (the line breaks read, one event a line in
// JSON Lines) and, when Total is known (> 0), the share done and the
// estimated time left; else a spinner. It is first drawn progressInterval
// after the first byte (a quick check shows nothing), then redrawn at most
// every progressInterval, in place ("\r" and erase to the end of the line),
// and Done erases it. Now is the clock (injected for tests); From is how many
// bytes must be read, or Total reach, before anything is drawn.
type Progress struct {
	W     io.Writer
	Total int64 // the input's size in bytes; <= 0 when unknown (standard input)
	Now   func() time.Time
	From  int64

	started, drawn time.Time
	read, lines    int64
	frame          int
	shown          bool
}

// Reader returns r, counting through p what is read from it.
func (p *Progress) Reader(r io.Reader) io.Reader { return progressReader{r, p} }

type progressReader struct {
	r io.Reader
	p *Progress
}

func (pr progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Add(b[:n])
	return n, err
}

// Add counts b as read and redraws the line when it is due.
func (p *Progress) Add(b []byte) {
	now := p.Now()
	if p.started.IsZero() {
		p.started, p.drawn = now, now
	}
	if len(b) == 0 {
		return
	}
	p.read += int64(len(b))
	p.lines += int64(bytes.Count(b, []byte{'\n'}))
	if p.read < p.From && p.Total < p.From {
		return
	}
	if now.Sub(p.drawn) < progressInterval {
		return
	}
	p.drawn, p.shown = now, true
	io.WriteString(p.W, "\r"+p.Line(now)+"\x1b[K")
}

// spinner are the frames of the indeterminate display.
var spinner = []string{"|", "/", "-", "\\"}

// Line is the progress line at now, without "\r" or erasing.
func (p *Progress) Line(now time.Time) string {
	elapsed := now.Sub(p.started).Seconds()
	rate := ""
	if elapsed > 0 {
		rate = fmt.Sprintf(", %s events/s", groupDigits(int64(float64(p.lines)/elapsed)))
	}
	if p.Total > 0 {
		done := min(float64(p.read)/float64(p.Total), 1)
		eta := ""
		if elapsed > 0 && p.read > 0 && p.read < p.Total {
			left := time.Duration(elapsed * float64(p.Total-p.read) / float64(p.read) * float64(time.Second))
			eta = ", " + left.Round(time.Second).String() + " left"
		}
		return fmt.Sprintf("greenlight: read %s of %s (%d%%)%s%s", megabytes(p.read), megabytes(p.Total), int(done*100), rate, eta)
	}
	frame := spinner[p.frame%len(spinner)]
	p.frame++
	return fmt.Sprintf("greenlight: %s read %s%s", frame, megabytes(p.read), rate)
}

// Done erases the line, if one was drawn.
func (p *Progress) Done() {
	if p.shown {
		io.WriteString(p.W, "\r\x1b[K")
		p.shown = false
	}
}

// megabytes formats n bytes for people: "512 B", "2.6 kB", "12.3 MB",
// "1.37 GB" (powers of 1000).
func megabytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// groupDigits writes n with a comma every three digits: 1,234,567.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
