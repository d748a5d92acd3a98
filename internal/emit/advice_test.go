package emit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/cli"
	"github.com/greenlight-ci/greenlight/internal/emit"
)

// adviceFill fills the advice's placeholders (capitals) with values a
// person would give.
var adviceFill = strings.NewReplacer(
	"YOUR_NAME", "ana", "YOUR_OWNER_ID", "ops://ana", "STOP_EVIDENCE_REF", "ps: holder gone", "LIFECYCLE_STATUS_REF", "archive: ARCHIVED",
	"EVIDENCE_REF", "INC-1", "STOP_METHOD", "console", "STOP_REASON", "owner gone", "RESULT_CODE", "RUN_ARCHIVED", "NEW_REQUEST_ID", "rq-new")

// shellWords splits the shell command at the start of s into its words,
// as a POSIX shell reads the advice's commands (plain words and single
// quotes, shellWord's two forms). The command ends at the end of s or at a
// plain word that ends a sentence ("REF." before more prose).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case c == ' ':
			if in {
				words = append(words, w.String())
				if strings.HasSuffix(s[:i], ".") {
					words[len(words)-1] = strings.TrimSuffix(words[len(words)-1], ".")
					return words
				}
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestAdviceEmitLinesAccepted: every greenlight emit line the advice gives
// for a run or a request of testdata/recovery, its placeholders filled, is accepted by
// the log it was given for (each applied alone to a copy of it): the
// advice never tells the operator to write an event the log refuses (an
// event after an archived run's close, a finished close without its
// evidence).
func TestAdviceEmitLinesAccepted(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "recovery")
	pipeline := filepath.Join(dir, "pipeline.yaml")
	defText, err := os.ReadFile(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	def, err := checker.ParseDefinition(defText)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	logs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, path := range logs {
		name := filepath.Base(path)
		if strings.HasSuffix(name, ".joblog.jsonl") || name == "takeover_refused.jsonl" { // a job log; a log refused whole
			continue
		}
		log, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := checker.Check(bytes.NewReader(log), checker.Options{Definition: def, Now: now})
		if err != nil || !res.Report.Valid {
			t.Fatalf("%s: %v %+v", name, err, res.Report.Violations)
		}
		// apply runs the emit line in step, if it has one, on a copy of the log.
		apply := func(what, step string) {
			_, cmd, ok := strings.Cut(step, "greenlight emit ")
			if !ok {
				return
			}
			lines++
			args := shellWords(cmd)
			copyPath := filepath.Join(t.TempDir(), "events.jsonl")
			if err := os.WriteFile(copyPath, log, 0o644); err != nil {
				t.Fatal(err)
			}
			for k, a := range args {
				switch a {
				case "EVENTS.jsonl":
					args[k] = copyPath
				case "PIPELINE.yaml":
					args[k] = pipeline
				default:
					args[k] = adviceFill.Replace(a)
				}
			}
			args = append(args, "--now", "2026-01-01T12:00:00Z")
			var stderr bytes.Buffer
			env := cli.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Now: func() time.Time { return now }}
			if code := emit.Command(args, env); code != 0 {
				t.Errorf("%s, %s: greenlight emit %s: exit %d\n%s", name, what, strings.Join(args, " "), code, stderr.String())
			}
		}
		for i := range res.Snapshot.RunCount {
			r := res.Snapshot.At(i)
			for _, act := range r.Recovery.Actions {
				for _, step := range act.Steps {
					apply("run "+r.RunID+", "+string(act.Action), step)
				}
			}
		}
		if rq := res.Snapshot.Requests; rq != nil {
			for _, r := range rq.Requests {
				for _, step := range r.Steps {
					apply("request "+r.RequestID+" ("+string(r.State)+")", step)
				}
			}
		}
	}
	if lines == 0 {
		t.Fatal("no advice gave a greenlight emit line")
	}
	t.Logf("%d emit lines checked", lines)
}
