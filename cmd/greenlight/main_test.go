package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

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
		// gen-runs N EVERY FILE writes a log of N two-stage runs, a minute
		// apart from 2026-01-01T00:00:00Z, whose every EVERY-th run fails
		// in stage 2: a large log for the scripts, made in the script.
		"gen-runs": genRuns,
		// greenlight-at runs greenlight with the wall clock fixed at
		// 2026-01-01T12:00:00Z, for scripts that test the default of --now.
		"greenlight-at-noon": func() {
			noon := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: func() time.Time { return noon }}))
		},
	})
}

// genRuns is the gen-runs command of the scripts.
func genRuns() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gen-runs N EVERY FILE")
		os.Exit(2)
	}
	n, err1 := strconv.Atoi(os.Args[1])
	every, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || every < 1 {
		fmt.Fprintln(os.Stderr, "gen-runs: N and EVERY are whole numbers, EVERY at least 1")
		os.Exit(2)
	}
	var b strings.Builder
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(id string, stage int, status string, at time.Time, extra string) {
		fmt.Fprintf(&b, `{"run_id":"%s","stage":%d,"attempt":1,"status":"%s","timestamp_utc":"%s"%s}`+"\n", id, stage, status, at.Format(time.RFC3339), extra)
	}
	for i := 1; i <= n; i++ {
		id, at := fmt.Sprintf("r-%05d", i), start.Add(time.Duration(i)*time.Minute)
		ev(id, 1, "started", at, "")
		ev(id, 1, "succeeded", at.Add(10*time.Second), "")
		ev(id, 2, "started", at.Add(20*time.Second), "")
		if i%every == 0 {
			ev(id, 2, "failed", at.Add(30*time.Second), `,"returncode":1,"error":"boom"`)
		} else {
			ev(id, 2, "succeeded", at.Add(30*time.Second), "")
		}
	}
	if err := os.WriteFile(os.Args[3], []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"compress": compressCmd,
			// lines FILE N asserts that FILE (stdout, stderr or a file)
			// has exactly N lines.
			"lines": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: lines FILE N")
				}
				want, err := strconv.Atoi(args[1])
				ts.Check(err)
				got := strings.Count(ts.ReadFile(args[0]), "\n")
				if (got == want) == neg {
					ts.Fatalf("%s has %d lines, want %s%d", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
				}
			},
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

// compressCmd is the script command "compress gzip|zstd SRC DST [CUT|flip]":
// it writes SRC compressed to DST, the last CUT bytes cut off when CUT is
// given (a truncated stream), or with the middle byte's bits inverted for
// flip (a corrupt stream), so that scripts build their compressed
// fixtures from text.
func compressCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: compress gzip|zstd SRC DST [CUT|flip]")
	}
	text, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var b bytes.Buffer
	switch args[0] {
	case "gzip":
		w := gzip.NewWriter(&b)
		_, err = w.Write(text)
		if err == nil {
			err = w.Close()
		}
	case "zstd":
		var w *zstd.Encoder
		if w, err = zstd.NewWriter(&b); err == nil {
			if _, err = w.Write(text); err == nil {
				err = w.Close()
			}
		}
	default:
		ts.Fatalf("compress: unknown format %q", args[0])
	}
	ts.Check(err)
	out := b.Bytes()
	if len(args) == 4 && args[3] == "flip" {
		out[len(out)/2] ^= 0xff
	} else if len(args) == 4 {
		cut, err := strconv.Atoi(args[3])
		ts.Check(err)
		out = out[:len(out)-cut]
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}
