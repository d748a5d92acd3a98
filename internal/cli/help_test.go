package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rollupUnusable is merge's closing line when snapshots could not be read.
var rollupUnusable = regexp.MustCompile(`^greenlight: \d+ of \d+ snapshots? unusable; the roll-up is unhealthy$`)

// TestHelpExamples: every example in the help of the commands Main runs
// itself takes only flags its command defines, with their values: run in a
// directory without the files it names, it fails (if at all) for a
// missing file, never for its command line.
func TestHelpExamples(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range []string{"check", "gate", "validate", "merge", "schema", "version"} {
		for _, ex := range Helps[name].Examples {
			if strings.HasPrefix(ex, "#") {
				continue
			}
			line, _, _ := strings.Cut(ex, " >") // a redirection
			args := strings.Fields(strings.ReplaceAll(line, "'", ""))
			if args[0] != "greenlight" || args[1] != name {
				t.Errorf("%s example %q does not run greenlight %s", name, ex, name)
				continue
			}
			var stdout, stderr bytes.Buffer
			Main(args[1:], Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }})
			// Each line of stderr is a missing file, or merge's count of the
			// snapshots it could not use for that reason.
			for _, l := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
				if l != "" && !strings.Contains(l, ": no such file or directory") && !rollupUnusable.MatchString(l) {
					t.Errorf("%s example %q fails for another reason than a missing file: %s", name, ex, l)
				}
			}
		}
	}
}

// TestUnknownCommandQuoting: a command name from the command line is quoted
// once, its escape sequence and bidi override escaped, never twice.
func TestUnknownCommandQuoting(t *testing.T) {
	got := unknownCommand("chek\x1b[31m\u202e", []string{"check"}).Error()
	want := `unknown command "chek\x1b[31m\u202e"; run "greenlight --help" for the commands`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
