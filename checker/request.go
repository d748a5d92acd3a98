package checker

import (
	"errors"
	"fmt"

	"github.com/greenlight-ci/greenlight/internal/limits"
)

// Request is what a shell has gathered from its user before a check, as
// text: the pipeline definition's bytes or a --stages list, the moment to
// judge at and the other knobs. Every shell (the CLI, the wasip1 module, the
// js module behind the browser viewer) turns it into Options with the same
// code, so they accept and refuse the same inputs with the same messages.
type Request struct {
	// Pipeline is the text of a pipeline definition (YAML or JSON,
	// schemas/pipeline.schema.json); nil when none was given.
	Pipeline []byte
	// PipelineName names the definition in error messages (a file name);
	// when it is not empty, the definition counts as given even if empty.
	PipelineName string
	// Stages is the --stages shorthand for a linear pipeline: "1,2" or
	// "bronze,silver". Exactly one of Pipeline and Stages must be given.
	Stages string
	// Now is an RFC 3339 date-time with an offset; empty leaves
	// Options.Now zero, and the shell must fill it (from its clock).
	Now string
	// StaleAfterSeconds (seconds) overrides the definition's stall
	// threshold. The bounds (StaleAfterSeconds, MaxLineBytes,
	// MaxViolations) mean the same in every shell: nil is not given (the
	// default), and a given value must lie in 1 to its limit
	// (limits.StaleAfterSeconds, limits.MaxLineBytes, limits.MaxViolations); a
	// given 0 is an error, never the default.
	StaleAfterSeconds *int
	// Gate is "all", "latest", or empty for all.
	Gate string
	// MaxAge is --max-age: a duration (26h, 90m, 2d) or
	// "none"; empty for the definition's max_age.
	MaxAge string
	// Since is --since: a duration in --max-age's syntax (26h, 7d) that
	// limits gate all to the runs whose logical time is within it.
	Since string
	// Gating says the shell fails on an unhealthy verdict (gate, check
	// --fail-on-unhealthy, the action's fail-on-unhealthy): Options then
	// refuses a check without a freshness expectation (errNoFreshness),
	// since a log whose newest run is months old would pass, and an
	// OpenLineage log without a definition needs InferStages, since stages
	// inferred from the log cannot show a job that never logged.
	Gating bool
	// File is the log's name, as in Options.File.
	File string
	// MaxLineBytes and MaxViolations bound reading and the violations
	// listed; see StaleAfterSeconds for what nil and a given value mean.
	MaxLineBytes  *int
	MaxViolations *int
	// Strict and SchemaEveryEvent are as in Options.
	Strict           bool
	SchemaEveryEvent bool
	// DefinitionOptional makes giving neither Pipeline nor Stages no error:
	// Options.Definition is then nil, for logs that declare their own
	// stages (OpenLineage run events name their jobs). InputFormat
	// openlineage implies it.
	DefinitionOptional bool
	// InputFormat is the log's format, the CLI's --input-format:
	// FormatNative (or empty) for the event contract, FormatOpenLineage for
	// OpenLineage run events (docs/openlineage.md). Options only checks it
	// and the knobs that go with it; the shell calls the reader of that
	// format (checker.Check, or package openlineage's Check).
	InputFormat string
	// JobLogFile names the job log (--job-log) when one is given, for
	// messages and the snapshot's reconciliation; the shell reads the file
	// into Options.JobLog. Only the native format reads a job log.
	JobLogFile string
	// InferStages accepts, for an OpenLineage log without a definition,
	// the stages inferred from the log (every job that logged) as the
	// expected ones, under a gate too: a job whose events never arrived is
	// then invisible. It applies to InputFormat openlineage without a
	// definition only.
	InferStages bool
	// Knob names a Request field in error messages as the shell's user
	// knows it: given the field's Go name ("Stages", "MaxAge",
	// "InputFormat", "JobLogFile"), it returns the shell's flag, input or
	// option for it (the CLI's "--stages", the action's "max-age" input,
	// the js module's "input_format"). Nil names the fields themselves
	// ("Request.Stages"), for a library's caller.
	Knob func(field string) string
}

// knob names the Request field field in the shell's terms (Knob).
func (r Request) knob(field string) string {
	if r.Knob != nil {
		return r.Knob(field)
	}
	return "Request." + field
}

// jobLogNotImported is the error for a job log beside a log that is not in
// the native format: jobLog names the job log, native the native format
// (as the shell or the library names them).
func jobLogNotImported(jobLog, native string) error {
	return errors.New(jobLog + " applies to " + native + " only: OpenLineage attempts carry no attempt_id to match job-log records with")
}

// The values of Request.InputFormat (the CLI's --input-format).
const (
	FormatNative      = "native"
	FormatOpenLineage = "openlineage"
)

// CheckInputFormat refuses an unknown InputFormat and the knobs that do not
// apply to it: an OpenLineage log names its jobs, so Stages (native stage
// ids), Strict (fields outside the native contract) and a job log (matched
// by attempt_id, which OpenLineage attempts lack) are refused. Options
// calls it first; a shell that checks its own flags before building the
// options calls it before them, so its errors come in the CLI's order.
func (r Request) CheckInputFormat() error {
	switch r.InputFormat {
	case "", FormatNative:
		return nil
	case FormatOpenLineage:
		if r.Stages != "" {
			return errors.New(r.knob("Stages") + " declares native stage ids; for " + r.knob("InputFormat") + " openlineage give no definition (the stages come from the log) or " + r.knob("Pipeline") + " FILE whose stage names are the jobs (namespace/name)")
		}
		if r.Strict {
			return errors.New(r.knob("Strict") + " applies to " + r.knob("InputFormat") + " native only")
		}
		if r.JobLogFile != "" {
			return jobLogNotImported(r.knob("JobLogFile"), r.knob("InputFormat")+" "+FormatNative)
		}
		return nil
	}
	return fmt.Errorf("%s %q: use native or openlineage", r.knob("InputFormat"), r.InputFormat)
}

// Options resolves the request: it parses and validates the pipeline
// definition (or builds the linear one of Stages), parses Now and checks the
// knobs. The error says, in one line, what is wrong with which input; it is
// the text every shell shows before exiting 2.
func (r Request) Options() (Options, error) {
	var o Options
	if err := r.CheckInputFormat(); err != nil {
		return o, err
	}
	def, err := r.definition()
	if err != nil {
		return o, err
	}
	o.Definition, o.InferStages = def, r.InferStages
	if r.Now != "" {
		t, err := ParseTime(r.Now)
		if err != nil {
			return o, errors.New(r.knob("Now") + ": " + err.Error())
		}
		o.Now = t
	}
	switch Gate(r.Gate) {
	case "", GateAll, GateLatest:
		o.Gate = Gate(r.Gate)
	default:
		return o, fmt.Errorf("%s %q: use all or latest", r.knob("Gate"), r.Gate)
	}
	for _, k := range []struct {
		name  string
		v     *int
		limit int
		dst   *int
	}{
		{"StaleAfterSeconds", r.StaleAfterSeconds, limits.StaleAfterSeconds, &o.StaleAfterSeconds},
		{"MaxLineBytes", r.MaxLineBytes, limits.MaxLineBytes, &o.MaxLineBytes},
		{"MaxViolations", r.MaxViolations, limits.MaxViolations, &o.MaxViolations},
	} {
		if k.v == nil {
			continue // not given: Options' zero, the default
		}
		if *k.v < 1 || *k.v > k.limit {
			return o, fmt.Errorf("%s \"%d\": use a whole number from 1 to %d", r.knob(k.name), *k.v, k.limit)
		}
		*k.dst = *k.v
	}
	if r.MaxAge != "" {
		m, err := parseMaxAge(r.MaxAge)
		if err != nil {
			return o, fmt.Errorf("%s %v", r.knob("MaxAge"), err)
		}
		o.MaxAge = m
	}
	if r.Since != "" {
		d, err := limits.ParseDuration(r.Since)
		if err != nil {
			return o, fmt.Errorf("%s %q: %v", r.knob("Since"), r.Since, err)
		}
		if o.Gate == GateLatest {
			return o, fmt.Errorf("%s limits %s all to the runs within it; %s latest judges the latest run", r.knob("Since"), r.knob("Gate"), r.knob("Gate"))
		}
		o.Since = d
	}
	if r.Gating && !o.freshnessDeclared() {
		return o, fmt.Errorf("%w: a gate needs one, or a log whose newest run is months old would pass: declare max_age in the pipeline definition (max_age: 26h for a nightly pipeline) or a schedule, or give %s DURATION (e.g. 26h, 90m, 2d); %s none gates without one", errNoFreshness, r.knob("MaxAge"), r.knob("MaxAge"))
	}
	o.File = r.File
	o.JobLogFile = r.JobLogFile
	o.Strict = r.Strict
	o.SchemaEveryEvent = r.SchemaEveryEvent
	return o, nil
}

// definition is the pipeline definition r declares: Pipeline parsed, the
// linear one of Stages, or nil when the log declares the stages (an
// OpenLineage log, DefinitionOptional). The error names the input that is
// wrong, as Options returns it.
func (r Request) definition() (*Definition, error) {
	var def *Definition
	hasPipeline := r.Pipeline != nil || r.PipelineName != ""
	switch {
	case hasPipeline && r.Stages != "":
		return nil, errors.New("give either " + r.knob("Pipeline") + " or " + r.knob("Stages") + ", not both")
	case hasPipeline:
		var err error
		if def, err = ParseDefinition(r.Pipeline); err != nil {
			if r.PipelineName != "" {
				return nil, fmt.Errorf("%s: %v", r.PipelineName, err)
			}
			return nil, err
		}
	case r.Stages != "":
		ids, err := ParseStageList(r.Stages)
		if err != nil {
			return nil, errors.New(r.knob("Stages") + ": " + err.Error())
		}
		if def, err = LinearDefinition(ids); err != nil {
			return nil, errors.New(r.knob("Stages") + ": " + err.Error())
		}
	case r.InputFormat == FormatOpenLineage && r.Gating && !r.InferStages:
		return nil, errors.New("no stages declared for a gate on an OpenLineage log: give " + r.knob("Pipeline") + " pipeline.yaml naming the expected jobs (namespace/name), or " + r.knob("InferStages") + " to take the jobs that logged as the expected ones (a job whose events never arrived is then invisible)")
	case r.DefinitionOptional || r.InputFormat == FormatOpenLineage:
		// The log declares the stages.
	default:
		return nil, errors.New("no stages declared: pass " + r.knob("Pipeline") + " pipeline.yaml (see \"greenlight schema pipeline\") or " + r.knob("Stages") + " 1,2 for a linear pipeline; greenlight never guesses the stages, since stages that never logged would be invisible")
	}
	if r.InferStages {
		switch {
		case r.InputFormat != FormatOpenLineage:
			return nil, errors.New(r.knob("InferStages") + " applies to " + r.knob("InputFormat") + " openlineage only: a native log's stages are declared with " + r.knob("Pipeline") + " or " + r.knob("Stages"))
		case def != nil:
			return nil, errors.New(r.knob("InferStages") + " takes the stages from the log: give it without " + r.knob("Pipeline"))
		}
	}
	return def, nil
}
