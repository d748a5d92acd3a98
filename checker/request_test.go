package checker_test

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/words"
)

// cliFlag, actionInput and jsOption name a Request field as the CLI, the
// action and the js module do (Request.Knob).
func cliFlag(field string) string     { return words.Knob(field, "--", '-') }
func actionInput(field string) string { return words.Knob(field, "", '-') }
func jsOption(field string) string    { return words.Knob(field, "", '_') }

// TestRequestOptions: the shells' shared option handling accepts what the
// CLI accepts and refuses the rest with messages that name the fields
// through the shell's Knob (the CLI's flags, unless a case gives its own
// Knob or fields), or, without one, as Request fields.
func TestRequestOptions(t *testing.T) {
	tests := []struct {
		name    string
		req     checker.Request
		fields  bool // no Knob: the messages name Request's fields
		wantErr string
		stages  int
		now     time.Time
		gate    checker.Gate
	}{
		{name: "stages list", req: checker.Request{Stages: "1,2", Now: "2026-01-01T12:00:00+01:00", Gate: "latest"},
			stages: 2, now: time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC), gate: checker.GateLatest},
		{name: "definition text", req: checker.Request{Pipeline: []byte("stages:\n  - {id: a}\n  - {id: b}\n  - {id: c}\n")}, stages: 3},
		{name: "neither, the log declares the stages", req: checker.Request{DefinitionOptional: true}, stages: 0},
		{name: "openlineage declares its stages", req: checker.Request{InputFormat: checker.FormatOpenLineage}, stages: 0},
		{name: "openlineage with a definition", req: checker.Request{InputFormat: checker.FormatOpenLineage, Pipeline: []byte("stages: [{id: 1, name: ns/job}]")}, stages: 1},
		{name: "native needs stages", req: checker.Request{InputFormat: checker.FormatNative},
			wantErr: `no stages declared: pass --pipeline pipeline.yaml (see "greenlight schema pipeline") or --stages 1,2 for a linear pipeline; greenlight never guesses the stages, since stages that never logged would be invisible`},
		{name: "unknown input format", req: checker.Request{InputFormat: "csv", Stages: "1"}, wantErr: `--input-format "csv": use native or openlineage`},
		{name: "openlineage with stages", req: checker.Request{InputFormat: checker.FormatOpenLineage, Stages: "1,2"},
			wantErr: "--stages declares native stage ids; for --input-format openlineage give no definition (the stages come from the log) or --pipeline FILE whose stage names are the jobs (namespace/name)"},
		{name: "openlineage strict", req: checker.Request{InputFormat: checker.FormatOpenLineage, Strict: true}, wantErr: "--strict applies to --input-format native only"},
		{name: "openlineage with a job log", req: checker.Request{InputFormat: checker.FormatOpenLineage, JobLogFile: "job.jsonl"},
			wantErr: "--job-log applies to --input-format native only: OpenLineage attempts carry no attempt_id to match job-log records with"},
		{name: "native with a job log", req: checker.Request{Stages: "1", JobLogFile: "job.jsonl"}, stages: 1},
		{name: "both", req: checker.Request{Pipeline: []byte("stages: [{id: 1}]"), Stages: "1"},
			wantErr: "give either --pipeline or --stages, not both"},
		{name: "neither", req: checker.Request{},
			wantErr: `no stages declared: pass --pipeline pipeline.yaml (see "greenlight schema pipeline") or --stages 1,2 for a linear pipeline; greenlight never guesses the stages, since stages that never logged would be invisible`},
		{name: "empty named definition", req: checker.Request{PipelineName: "p.yaml", Pipeline: []byte{}},
			wantErr: "p.yaml: the pipeline definition is empty"},
		{name: "bad stage id", req: checker.Request{Stages: "1,,2"}, wantErr: "--stages: " + stageListErr(t, "1,,2")},
		{name: "bad stage id, action inputs", req: checker.Request{Stages: "1,,2", Knob: actionInput}, wantErr: "stages: " + stageListErr(t, "1,,2")},
		{name: "unknown gate, action inputs", req: checker.Request{Stages: "1", Gate: "some", Knob: actionInput}, wantErr: `gate "some": use all or latest`},
		{name: "stale over a year, action inputs", req: checker.Request{Stages: "1", StaleAfterSeconds: ptr(limits.StaleAfterSeconds + 1), Knob: actionInput}, wantErr: `stale-after-seconds "31536001": use a whole number from 1 to 31536000`},
		{name: "openlineage with a job log, action inputs", req: checker.Request{InputFormat: checker.FormatOpenLineage, JobLogFile: "job.jsonl", Knob: actionInput},
			wantErr: "job-log applies to input-format native only: OpenLineage attempts carry no attempt_id to match job-log records with"},
		{name: "infer stages of a native log, js options", req: checker.Request{Stages: "1", InferStages: true, Knob: jsOption},
			wantErr: "infer_stages applies to input_format openlineage only: a native log's stages are declared with pipeline or stages"},
		{name: "since with gate latest, js options", req: checker.Request{Stages: "1", Gate: "latest", Since: "7d", Knob: jsOption},
			wantErr: "since limits gate all to the runs within it; gate latest judges the latest run"},
		{name: "neither, fields", req: checker.Request{}, fields: true,
			wantErr: `no stages declared: pass Request.Pipeline pipeline.yaml (see "greenlight schema pipeline") or Request.Stages 1,2 for a linear pipeline; greenlight never guesses the stages, since stages that never logged would be invisible`},
		{name: "max age, fields", req: checker.Request{Stages: "1", MaxAge: "soon"}, fields: true, wantErr: "Request.MaxAge " + maxAgeErr(t, "soon")},
		{name: "now without offset", req: checker.Request{Stages: "1", Now: "2026-01-01T12:00:00"},
			wantErr: `--now: "2026-01-01T12:00:00" is not an RFC 3339 date-time with an offset (e.g. 2026-01-02T03:04:05Z)`},
		{name: "unknown gate", req: checker.Request{Stages: "1", Gate: "some"}, wantErr: `--gate "some": use all or latest`},
		{name: "negative stale", req: checker.Request{Stages: "1", StaleAfterSeconds: ptr(-1)}, wantErr: `--stale-after-seconds "-1": use a whole number from 1 to 31536000`},
		{name: "stale over a year", req: checker.Request{Stages: "1", StaleAfterSeconds: ptr(limits.StaleAfterSeconds + 1)}, wantErr: `--stale-after-seconds "31536001": use a whole number from 1 to 31536000`},
		{name: "line limit that would wrap", req: checker.Request{Stages: "1", MaxLineBytes: ptr(math.MaxInt)}, wantErr: `--max-line-bytes "` + strconv.Itoa(math.MaxInt) + `": use a whole number from 1 to 1073741824`},
		{name: "negative violations", req: checker.Request{Stages: "1", MaxViolations: ptr(-1)}, wantErr: `--max-violations "-1": use a whole number from 1 to 1000000`},
		{name: "a given 0 is not the default", req: checker.Request{Stages: "1", MaxLineBytes: ptr(0)}, wantErr: `--max-line-bytes "0": use a whole number from 1 to 1073741824`},
		{name: "too many violations", req: checker.Request{Stages: "1", MaxViolations: ptr(limits.MaxViolations + 1)}, wantErr: `--max-violations "1000001": use a whole number from 1 to 1000000`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if req.Knob == nil && !tc.fields {
				req.Knob = cliFlag
			}
			o, err := req.Options()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			if o.Definition != nil {
				n = len(o.Definition.Stages)
			}
			if n != tc.stages || !o.Now.Equal(tc.now) || o.Gate != tc.gate {
				t.Fatalf("got %d stages, now %v, gate %q", n, o.Now, o.Gate)
			}
		})
	}
}

func stageListErr(t *testing.T, list string) string {
	t.Helper()
	_, err := checker.ParseStageList(list)
	if err == nil {
		t.Fatalf("ParseStageList(%q) accepted it", list)
	}
	return err.Error()
}

func maxAgeErr(t *testing.T, text string) string {
	t.Helper()
	_, err := checker.ParseMaxAge(text)
	if err == nil {
		t.Fatalf("ParseMaxAge(%q) accepted it", text)
	}
	return err.Error()
}

func ptr[T any](v T) *T { return &v }
