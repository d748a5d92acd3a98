package checker

import (
	"errors"
	"fmt"
)

// The ranges of the numeric options (outside review, issue 12): each runs
// from 1 to its limit, and a value outside is an error that names the
// option, the value and the range, in every shell.
const (
	// StaleAfterSecondsLimit (seconds, 365 days) is the bound
	// schemas/pipeline.schema.json puts on stale_after_seconds, which
	// --stale-after-seconds overrides.
	StaleAfterSecondsLimit = 31536000
	// MaxLineBytesLimit (bytes, 1 GiB) bounds --max-line-bytes: a line up
	// to the limit is held in memory whole.
	MaxLineBytesLimit = 1 << 30
	// MaxViolationsLimit bounds --max-violations: every listed violation is
	// held in memory and printed.
	MaxViolationsLimit = 1000000
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
	// threshold when > 0; negative is an error.
	StaleAfterSeconds int
	// Gate is "all", "latest", or empty for all.
	Gate string
	// File is the log's name, as in Options.File.
	File string
	// MaxLineBytes and MaxViolations: 0 means the default, negative is an
	// error.
	MaxLineBytes  int
	MaxViolations int
	// Strict and SchemaEveryEvent are as in Options.
	Strict           bool
	SchemaEveryEvent bool
	// DefinitionOptional makes giving neither Pipeline nor Stages no error:
	// Options.Definition is then nil, for logs that declare their own
	// stages (OpenLineage run events name their jobs).
	DefinitionOptional bool
}

// Options resolves the request: it parses and validates the pipeline
// definition (or builds the linear one of Stages), parses Now and checks the
// knobs. The error says, in one line, what is wrong with which input; it is
// the text every shell shows before exiting 2.
func (r Request) Options() (Options, error) {
	var o Options
	hasPipeline := r.Pipeline != nil || r.PipelineName != ""
	switch {
	case hasPipeline && r.Stages != "":
		return o, errors.New("give either --pipeline or --stages, not both")
	case hasPipeline:
		def, err := ParseDefinition(r.Pipeline)
		if err != nil {
			if r.PipelineName != "" {
				return o, fmt.Errorf("%s: %v", r.PipelineName, err)
			}
			return o, err
		}
		o.Definition = def
	case r.Stages != "":
		ids, err := ParseStageList(r.Stages)
		if err != nil {
			return o, errors.New("--stages: " + err.Error())
		}
		def, err := LinearDefinition(ids)
		if err != nil {
			return o, errors.New("--stages: " + err.Error())
		}
		o.Definition = def
	case r.DefinitionOptional:
		// The log declares the stages.
	default:
		return o, errors.New("no stages declared: pass --pipeline pipeline.yaml (see \"greenlight schema pipeline\") or --stages 1,2 for a linear pipeline; greenlight never guesses the stages, since stages that never logged would be invisible")
	}
	if r.Now != "" {
		t, err := ParseTime(r.Now)
		if err != nil {
			return o, errors.New("--now: " + err.Error())
		}
		o.Now = t
	}
	switch Gate(r.Gate) {
	case "", GateAll, GateLatest:
		o.Gate = Gate(r.Gate)
	default:
		return o, fmt.Errorf("--gate %q: use all or latest", r.Gate)
	}
	for _, k := range []struct {
		name  string
		v     int
		limit int
	}{
		{"--stale-after-seconds", r.StaleAfterSeconds, StaleAfterSecondsLimit},
		{"--max-line-bytes", r.MaxLineBytes, MaxLineBytesLimit},
		{"--max-violations", r.MaxViolations, MaxViolationsLimit},
	} {
		if k.v < 0 || k.v > k.limit {
			return o, fmt.Errorf("%s \"%d\": use a whole number from 1 to %d", k.name, k.v, k.limit)
		}
	}
	o.StaleAfterSeconds = r.StaleAfterSeconds
	o.File = r.File
	o.MaxLineBytes = r.MaxLineBytes
	o.MaxViolations = r.MaxViolations
	o.Strict = r.Strict
	o.SchemaEveryEvent = r.SchemaEveryEvent
	return o, nil
}
