package checker

import "github.com/greenlight-ci/greenlight/internal/limits"

// Violation is one broken contract rule: where (File, 1-based Line), which
// rule, a message a person can act on, and the event's run, stage and attempt
// where they are known. It is data: each shell renders it for its sink.
type Violation struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Rule    RuleID   `json:"rule"`
	Message string   `json:"message"`
	RunID   string   `json:"run_id,omitempty"`
	Stage   *StageID `json:"stage,omitempty"`
	Attempt int64    `json:"attempt,omitempty"`
}

// violationsVersion is the schema_version of a violations document.
const violationsVersion = "greenlight.violations/v1"

// Report is the violations document of schemas/violations.schema.json: every
// violation found, listed up to a cap, the rest counted.
type Report struct {
	SchemaVersion  string      `json:"schema_version"`
	Valid          bool        `json:"valid"`
	ViolationCount int         `json:"violation_count"`
	OmittedCount   int         `json:"omitted_count"`
	Violations     []Violation `json:"violations"`
}

// NewReport returns an empty, valid report; Add's max caps how many
// violations it lists.
func NewReport() *Report {
	return &Report{SchemaVersion: violationsVersion, Valid: true, Violations: []Violation{}}
}

// Add records v, listing it while fewer than max are listed and counting it
// either way.
func (r *Report) Add(v Violation, max int) {
	if max <= 0 {
		max = limits.DefaultMaxViolations
	}
	r.Valid = false
	r.ViolationCount++
	if len(r.Violations) < max {
		r.Violations = append(r.Violations, v)
	} else {
		r.OmittedCount++
	}
}

// Merge adds every violation of o to r, listing them within max.
func (r *Report) Merge(o *Report, max int) {
	for _, v := range o.Violations {
		r.Add(v, max)
	}
	if o.OmittedCount > 0 {
		r.Valid = false
		r.ViolationCount += o.OmittedCount
		r.OmittedCount += o.OmittedCount
	}
}
