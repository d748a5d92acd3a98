package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

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
			if msg := stderr.String(); strings.Contains(msg, "flag") || strings.Contains(msg, "takes") || strings.Contains(msg, "--help") {
				t.Errorf("%s example %q: %s", name, ex, msg)
			}
		}
	}
}
