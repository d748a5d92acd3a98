package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/schemas"
)

// defaultStaleAfterSeconds is how long (seconds) an attempt in progress may be
// silent before it is a stall candidate, when neither the flag nor the
// pipeline definition says (docs/contract.md, States).
const defaultStaleAfterSeconds = 600

// defaultLeaseMarginSeconds is how long (seconds) past lease_expires_at an
// attempt in progress is still given before it is a stall candidate.
const defaultLeaseMarginSeconds = 60

// defaultRetryBrakeThreshold is how many trailing failed attempts of one
// failure kind trip the retry brake when the definition does not say.
const defaultRetryBrakeThreshold = 3

// RetryBrake configures the retry brake (docs/recovery.md): Threshold
// consecutive same-kind failures trip it; with Enforce (the default) a
// further attempt without rerun_from is the violation retry_past_brake,
// else a warning. The zero RetryBrake (a Definition built by hand) stands
// for the defaults: threshold defaultRetryBrakeThreshold, enforced.
type RetryBrake struct {
	Threshold int  `json:"threshold"`
	Enforce   bool `json:"enforce"`
}

// StageDef is one expected stage of a pipeline definition: its id, an
// optional human name, and the stages that must have succeeded before it
// starts (resolved: the default dependency is already filled in), whether
// rerunning it is safe, whether it may be skipped on purpose (a skipped
// event; written in a snapshot only when true), and its own stall threshold
// in seconds (nil: the run-wide one).
type StageDef struct {
	ID                StageID   `json:"stage"`
	Name              *string   `json:"name"`
	DependsOn         []StageID `json:"depends_on"`
	Idempotent        bool      `json:"idempotent"`
	Skippable         bool      `json:"skippable,omitempty"`
	StaleAfterSeconds *int      `json:"stale_after_seconds"`
}

// Definition is a validated pipeline definition (schemas/pipeline.schema.json):
// the expected stages in declared order, with acyclic dependencies.
type Definition struct {
	// Pipeline is the pipeline's name, empty when the definition gives none.
	Pipeline string
	// StaleAfterSeconds is the definition's stall threshold in seconds, 0 when
	// it sets none.
	StaleAfterSeconds int
	// LeaseMarginSeconds is the grace in seconds after a lease expires;
	// defaultLeaseMarginSeconds unless the definition sets it.
	LeaseMarginSeconds int
	// RetryBrake is the retry brake, with its defaults filled in.
	RetryBrake RetryBrake
	// Stages are the expected stages in declared order.
	Stages []StageDef
	// Schedule says when runs are expected (docs/schedule.md); nil when the
	// definition has none.
	Schedule *Schedule
	// MaxAge is the definition's max_age, zero when it sets none
	// (docs/contract.md, Freshness).
	MaxAge MaxAge
}

// LinearDefinition declares the stages in ids as a linear pipeline (each
// depends on the one before), as the --stages shorthand does.
func LinearDefinition(ids []StageID) (*Definition, error) {
	if len(ids) == 0 {
		return nil, errors.New("no stages declared")
	}
	d := &Definition{LeaseMarginSeconds: defaultLeaseMarginSeconds, RetryBrake: RetryBrake{Threshold: defaultRetryBrakeThreshold, Enforce: true}}
	for i, id := range ids {
		s := StageDef{ID: id, DependsOn: []StageID{}, Idempotent: true}
		if i > 0 {
			s.DependsOn = []StageID{ids[i-1]}
		}
		d.Stages = append(d.Stages, s)
	}
	return d, d.check()
}

type rawDefinition struct {
	Pipeline           string       `json:"pipeline"`
	StaleAfterSeconds  int          `json:"stale_after_seconds"`
	MaxAge             *string      `json:"max_age"`
	Schedule           *rawSchedule `json:"schedule"`
	LeaseMarginSeconds *int         `json:"lease_margin_seconds"`
	RetryBrake         struct {
		Threshold *int  `json:"threshold"`
		Enforce   *bool `json:"enforce"`
	} `json:"retry_brake"`
	Stages []struct {
		ID                StageID    `json:"id"`
		Name              *string    `json:"name"`
		DependsOn         *[]StageID `json:"depends_on"`
		Idempotent        *bool      `json:"idempotent"`
		Skippable         bool       `json:"skippable"`
		StaleAfterSeconds *int       `json:"stale_after_seconds"`
	} `json:"stages"`
}

// definitionDocument reads a pipeline definition in YAML or JSON into the
// JSON document the schema judges: inst in schemas.Instance's form, and js,
// its JSON text.
func definitionDocument(data []byte) (inst any, js []byte, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("the pipeline definition is empty")
		}
		return nil, nil, fmt.Errorf("the pipeline definition is not valid YAML or JSON: %v", err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("the pipeline definition holds more than one YAML document")
	}
	js, err = json.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("the pipeline definition cannot be read as JSON data: %v", err)
	}
	inst, err = schemas.Instance(js)
	if err != nil {
		return nil, nil, fmt.Errorf("the pipeline definition cannot be read as JSON data: %v", err)
	}
	return inst, js, nil
}

// ParseDefinition reads a pipeline definition in YAML or JSON (JSON is read as
// YAML, which it is), validates it against schemas/pipeline.schema.json and
// checks that ids are unique, depends_on names declared stages and the
// dependencies have no cycle. Errors say what is wrong and where. A
// definition the compiled check (definitionFastValid) accepts is not given
// to the schema validator; the schema is compiled only to word a rejection.
func ParseDefinition(data []byte) (*Definition, error) {
	inst, js, err := definitionDocument(data)
	if err != nil {
		return nil, err
	}
	if !definitionFastValid(inst) {
		if err := definitionSchemaCheck(inst); err != nil {
			return nil, err
		}
	}
	var raw rawDefinition
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("the pipeline definition: %v", err)
	}
	d := &Definition{Pipeline: raw.Pipeline, StaleAfterSeconds: raw.StaleAfterSeconds,
		LeaseMarginSeconds: defaultLeaseMarginSeconds, RetryBrake: RetryBrake{Threshold: defaultRetryBrakeThreshold, Enforce: raw.RetryBrake.Enforce == nil || *raw.RetryBrake.Enforce}}
	if raw.LeaseMarginSeconds != nil {
		d.LeaseMarginSeconds = *raw.LeaseMarginSeconds
	}
	if raw.RetryBrake.Threshold != nil {
		d.RetryBrake.Threshold = *raw.RetryBrake.Threshold
	}
	if raw.MaxAge != nil {
		if d.MaxAge, err = parseMaxAge(*raw.MaxAge); err != nil {
			return nil, fmt.Errorf("the pipeline definition: max_age %v", err)
		}
	}
	for i, s := range raw.Stages {
		def := StageDef{ID: s.ID, Name: s.Name, DependsOn: []StageID{}, Idempotent: s.Idempotent == nil || *s.Idempotent, Skippable: s.Skippable, StaleAfterSeconds: s.StaleAfterSeconds}
		switch {
		case s.DependsOn != nil:
			def.DependsOn = append(def.DependsOn, (*s.DependsOn)...)
		case i > 0:
			def.DependsOn = []StageID{raw.Stages[i-1].ID}
		}
		d.Stages = append(d.Stages, def)
	}
	if raw.Schedule != nil {
		if d.Schedule, err = parseSchedule(raw.Schedule); err != nil {
			return nil, fmt.Errorf("the pipeline definition: %v", err)
		}
	}
	return d, d.check()
}

// definitionSchemaCheck validates inst, a pipeline definition the compiled
// fast path (definitionFastValid) refused, with the JSON Schema validator,
// compiling pipeline.schema.json only now, and returns the validator's
// worded rejection. Should the validator accept what the fast path refused,
// it fails closed; the differential tests exist to find such a gap.
func definitionSchemaCheck(inst any) error {
	schema, err := schemas.Compile("pipeline")
	if err != nil {
		return err
	}
	if err := schemas.Validate(schema, inst); err != nil {
		return fmt.Errorf("the pipeline definition does not match pipeline.schema.json: %s", eventline.SchemaErrorText(err, nil))
	}
	return errors.New("the pipeline definition was refused by the compiled contract check (definitionFastValid) although it matches pipeline.schema.json")
}

// check enforces what the schema cannot: unique ids, known dependencies, no
// self-dependency and no cycle.
func (d *Definition) check() error {
	pos := make(map[StageID]int, len(d.Stages))
	for i, s := range d.Stages {
		if _, dup := pos[s.ID]; dup {
			return fmt.Errorf("the pipeline definition declares stage %s twice", s.ID)
		}
		pos[s.ID] = i
	}
	for _, s := range d.Stages {
		for _, dep := range s.DependsOn {
			if _, ok := pos[dep]; !ok {
				return fmt.Errorf("stage %s depends on stage %s, which the pipeline definition does not declare", s.ID, dep)
			}
			if dep == s.ID {
				return fmt.Errorf("stage %s depends on itself", s.ID)
			}
		}
	}
	// Depth-first search for a cycle; colour 1 is on the stack, 2 is done.
	colour := make([]int, len(d.Stages))
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		colour[i] = 1
		path = append(path, d.Stages[i].ID.String())
		for _, dep := range d.Stages[i].DependsOn {
			j := pos[dep]
			switch colour[j] {
			case 1:
				return fmt.Errorf("the stage dependencies form a cycle: %s -> %s", strings.Join(path, " -> "), dep)
			case 0:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		colour[i] = 2
		return nil
	}
	for i := range d.Stages {
		if colour[i] == 0 {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}
