package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/greenlight-ci/greenlight/internal/atomicfile"
	"github.com/greenlight-ci/greenlight/internal/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"greenlight": main,
		// greenlight-stall-write is greenlight whose snapshot or report
		// write stops for good once the temporary file holds its first
		// bytes, after saying so on stderr: a test then signals it in the
		// middle of the write.
		"greenlight-stall-write": func() {
			atomicfile.MidWrite = func(tmp string) {
				fmt.Fprintf(os.Stderr, "mid-write %s\n", tmp)
				time.Sleep(time.Hour)
			}
			main()
		},
		// greenlight-at runs greenlight with the wall clock fixed at
		// 2026-01-01T12:00:00Z, for scripts that test the default of --now.
		"greenlight-at-noon": func() {
			noon := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: func() time.Time { return noon }}))
		},
	})
}

// TestScripts runs the CLI scenarios in testdata/script/*.txtar: command
// lines, exit codes, files written and output. UPDATE_SCRIPTS=1 rewrites
// their expected output files.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			// Scripts can reach the repository's testdata as $TESTDATA.
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("TESTDATA", wd+"/../../testdata")
			// The real OpenLineage captures live next to the repository.
			env.Setenv("SAMPLES", wd+"/../../../shared/samples")
			// $ESC is the escape character, for names that hold a terminal
			// escape sequence.
			env.Setenv("ESC", "\x1b")
			return nil
		},
		// [samples] holds when ../shared/samples is there.
		Condition: func(cond string) (bool, error) {
			if cond != "samples" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat("../../../shared/samples/openlineage")
			return err == nil, nil
		},
	})
}
