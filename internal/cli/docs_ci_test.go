package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// ciCommand is a greenlight command line in a documented CI example, up to
// a redirection, a pipe, a list operator or the end of its quoted string.
var ciCommand = regexp.MustCompile(`greenlight (check|gate|validate) [^'"|;&>\n#` + "`" + `]*`)

// documentedCICommands returns the command lines of the CI examples: every
// check, gate and validate of docs/formats.md but the cron job that feeds
// OpenMetrics (a metrics writer, not a job that should fail), and the
// README's lines that write a CI format.
func documentedCICommands(t *testing.T) []string {
	t.Helper()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	var cmds []string
	for _, m := range ciCommand.FindAllString(read("docs/formats.md"), -1) {
		// Prose that elides the arguments ("greenlight gate … --format
		// sarif") is no command line.
		if !strings.Contains(m, "--format openmetrics") && !strings.Contains(m, "…") {
			cmds = append(cmds, strings.TrimSpace(m))
		}
	}
	for _, line := range strings.Split(read("README.md"), "\n") {
		if regexp.MustCompile(`--format (junit|sarif|gitlab) `).MatchString(line) {
			cmds = append(cmds, strings.TrimSpace(ciCommand.FindString(line)))
		}
	}
	return cmds
}

// TestDocumentedCIExamplesFail runs every command line of the documented
// CI examples (documentedCICommands) as a job would, on an unhealthy log
// for check and gate and on an invalid one for validate (which judges the
// contract only), and asserts each fails the job: a non-zero exit. A check
// without --fail-on-unhealthy exits 0 on an unhealthy log, so an example
// that uses it never fails its job (and Jenkins' "|| test $? -eq 1" could
// never trigger).
func TestDocumentedCIExamplesFail(t *testing.T) {
	cmds := documentedCICommands(t)
	if len(cmds) < 10 {
		t.Fatalf("found %d documented CI command lines, want the six CI systems' and the others: %q", len(cmds), cmds)
	}
	const unhealthy = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:05:00Z","error":"boom","returncode":1}
`
	const invalid = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"failed","timestamp_utc":"2026-01-01T10:05:00Z"}
`
	for _, cmd := range cmds {
		t.Run(cmd, func(t *testing.T) {
			log := unhealthy
			if strings.HasPrefix(cmd, "greenlight validate ") {
				log = invalid
			}
			dir := t.TempDir()
			for _, name := range []string{"logs/orders.jsonl", "events.jsonl"} {
				writeFile(t, filepath.Join(dir, name), log)
			}
			// A gating pipeline declares its freshness, as a user's must:
			// without one, gate and check --fail-on-unhealthy exit 2.
			for _, name := range []string{"pipelines/orders.yaml", "pipeline.yaml"} {
				writeFile(t, filepath.Join(dir, name), "pipeline: orders\nmax_age: 26h\nstages: [{id: 1}, {id: 2}]\n")
			}
			t.Chdir(dir)
			args := strings.Fields(strings.ReplaceAll(cmd, "'", ""))[1:]
			var stdout, stderr strings.Builder
			code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }})
			if code == ExitOK {
				t.Errorf("exit 0 on an unhealthy or invalid log: the job would pass\nstderr: %s", stderr.String())
			}
			if code == ExitInvalid && log == unhealthy {
				t.Errorf("exit 2 on a valid unhealthy log (a usage error?): %s", stderr.String())
			}
		})
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
