package checker

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/greenlight-ci/greenlight/schemas"
)

// repoDocument is a pipeline definition (or any YAML or JSON document
// offered as one) found in the repository.
type repoDocument struct {
	where string
	data  []byte
}

// fencedBlock finds the ```yaml and ```json blocks of a Markdown page.
var fencedBlock = regexp.MustCompile("(?s)```(?:yaml|json)\n(.*?)```")

// repoDocuments gathers every document the repository offers as a pipeline
// definition, and the YAML and JSON around them: the .yaml files under
// testdata/ and checker/testdata/, the .yaml, .yml and .json sections of
// their txtar archives (the rule tests' pipeline.yaml, the action and CLI
// scripts), and the yaml and json blocks of README.md and docs/*.md.
func repoDocuments(t testing.TB) []repoDocument {
	t.Helper()
	var docs []repoDocument
	for _, root := range []string{"../testdata", "testdata"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch {
			case strings.HasSuffix(path, ".yaml"):
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				docs = append(docs, repoDocument{path, data})
			case strings.HasSuffix(path, ".txtar"):
				a, err := txtar.ParseFile(path)
				if err != nil {
					return err
				}
				for _, f := range a.Files {
					if ext := filepath.Ext(f.Name); ext == ".yaml" || ext == ".yml" || ext == ".json" {
						docs = append(docs, repoDocument{path + ":" + f.Name, f.Data})
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append(pages, "../README.md") {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range fencedBlock.FindAllSubmatch(data, -1) {
			docs = append(docs, repoDocument{fmt.Sprintf("%s block %d", page, i+1), m[1]})
		}
	}
	return docs
}

// definitionCase is one document of the keyword table: whether
// pipeline.schema.json accepts it. With asJSON it is handed to the
// validators as JSON text, the spelling kept (3.0, 1e2), as a caller of
// schemas.Instance could; otherwise it goes through ParseDefinition's
// YAML reading.
type definitionCase struct {
	doc    string
	asJSON bool
	accept bool
}

// definitionCases walk each keyword of pipeline.schema.json over its edges.
var definitionCases = []definitionCase{
	// The top level: an object with stages and only the known keys.
	{doc: `stages: [{id: 1}]`, accept: true},
	{doc: `pipeline: x`, accept: false},
	{doc: `[]`, accept: false},
	{doc: `~`, accept: false},
	{doc: `"stages"`, accept: false},
	{doc: `{stages: [{id: 1}], extra: 1}`, accept: false},
	{doc: `{stages: [{id: 1}], Stages: [{id: 1}]}`, accept: false},
	{doc: `{stages: null}`, accept: false},
	// pipeline: a string of 1 to 256 code points.
	{doc: `{pipeline: a, stages: [{id: 1}]}`, accept: true},
	{doc: `{pipeline: "", stages: [{id: 1}]}`, accept: false},
	{doc: `{pipeline: 7, stages: [{id: 1}]}`, accept: false},
	{doc: `{pipeline: null, stages: [{id: 1}]}`, accept: false},
	{doc: fmt.Sprintf(`{pipeline: %q, stages: [{id: 1}]}`, strings.Repeat("é", 256)), accept: true},
	{doc: fmt.Sprintf(`{pipeline: %q, stages: [{id: 1}]}`, strings.Repeat("é", 257)), accept: false},
	{doc: fmt.Sprintf(`{pipeline: %q, stages: [{id: 1}]}`, strings.Repeat("a", 256)), accept: true},
	{doc: `{pipeline: " ", stages: [{id: 1}]}`, accept: true},
	// The durations: integers in their ranges, whatever the spelling.
	{doc: `{stale_after_seconds: 1, stages: [{id: 1}]}`, accept: true},
	{doc: `{stale_after_seconds: 0, stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: 31536000, stages: [{id: 1}]}`, accept: true},
	{doc: `{stale_after_seconds: 31536001, stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: 1.5, stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: 60.0, stages: [{id: 1}]}`, accept: true},
	{doc: `{stale_after_seconds: 6e1, stages: [{id: 1}]}`, accept: true},
	{doc: `{stale_after_seconds: "60", stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: -5, stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: 1e21, stages: [{id: 1}]}`, accept: false},
	{doc: `{stale_after_seconds: .inf, stages: [{id: 1}]}`, accept: false},
	{doc: `{lease_margin_seconds: 0, stages: [{id: 1}]}`, accept: true},
	{doc: `{lease_margin_seconds: -0, stages: [{id: 1}]}`, accept: true},
	{doc: `{lease_margin_seconds: -1, stages: [{id: 1}]}`, accept: false},
	{doc: `{lease_margin_seconds: 31536000, stages: [{id: 1}]}`, accept: true},
	{doc: `{lease_margin_seconds: true, stages: [{id: 1}]}`, accept: false},
	{doc: `{"stale_after_seconds": 60.0, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"stale_after_seconds": 600e-1, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"stale_after_seconds": 0.6e2, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"stale_after_seconds": 6.01e1, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"stale_after_seconds": 3.1536e7, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"stale_after_seconds": 3.1536001e7, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"stale_after_seconds": 1e1000000000, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"stale_after_seconds": 1e-1000000000, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"lease_margin_seconds": 0e1000000000, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"lease_margin_seconds": -0.0e-7, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	{doc: `{"stale_after_seconds": 0e5, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"stale_after_seconds": 10000000000000000000000000060e-26, "stages": [{"id": 1}]}`, asJSON: true, accept: false},
	{doc: `{"stale_after_seconds": 6000000000000000000000000000e-26, "stages": [{"id": 1}]}`, asJSON: true, accept: true},
	// retry_brake: threshold 1 to 1000000, enforce a boolean, nothing else.
	{doc: `{retry_brake: {}, stages: [{id: 1}]}`, accept: true},
	{doc: `{retry_brake: {threshold: 1, enforce: true}, stages: [{id: 1}]}`, accept: true},
	{doc: `{retry_brake: {threshold: 1000000}, stages: [{id: 1}]}`, accept: true},
	{doc: `{retry_brake: {threshold: 1000001}, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: {threshold: 0}, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: {enforce: "true"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: {enforce: yes}, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: {limit: 3}, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: 3, stages: [{id: 1}]}`, accept: false},
	{doc: `{retry_brake: null, stages: [{id: 1}]}`, accept: false},
	// stages: 1 to 10000 objects with an id and only the stage keys.
	{doc: `{stages: []}`, accept: false},
	{doc: `{stages: {id: 1}}`, accept: false},
	{doc: `{stages: [1]}`, accept: false},
	{doc: `{stages: [{name: a}]}`, accept: false},
	{doc: `{stages: [{id: 1, other: 2}]}`, accept: false},
	{doc: `{stages: [{id: 1, name: a, depends_on: [], idempotent: false, stale_after_seconds: 5}]}`, accept: true},
	{doc: `{stages: [{id: 1, name: ""}]}`, accept: false},
	{doc: `{stages: [{id: 1, idempotent: 1}]}`, accept: false},
	{doc: `{stages: [{id: 1, stale_after_seconds: 0}]}`, accept: false},
	{doc: "stages:\n" + strings.Repeat("- {id: 1}\n", 10000), accept: true},
	{doc: "stages:\n" + strings.Repeat("- {id: 1}\n", 10001), accept: false},
	// Stage ids: an integer 1 to 2^31-1 or a string of the id pattern.
	{doc: `{stages: [{id: 2147483647}]}`, accept: true},
	{doc: `{stages: [{id: 2147483648}]}`, accept: false},
	{doc: `{stages: [{id: 0}]}`, accept: false},
	{doc: `{stages: [{id: 1.5}]}`, accept: false},
	{doc: `{stages: [{id: 2.0}]}`, accept: true},
	{doc: `{stages: [{id: "1"}]}`, accept: false},
	{doc: `{stages: [{id: a}]}`, accept: true},
	{doc: `{stages: [{id: A.b_c-9}]}`, accept: true},
	{doc: `{stages: [{id: _a}]}`, accept: false},
	{doc: `{stages: [{id: "a b"}]}`, accept: false},
	{doc: `{stages: [{id: "a\n"}]}`, accept: false},
	{doc: `{stages: [{id: "é"}]}`, accept: false},
	{doc: `{stages: [{id: ""}]}`, accept: false},
	{doc: `{stages: [{id: null}]}`, accept: false},
	{doc: `{stages: [{id: true}]}`, accept: false},
	{doc: `{stages: [{id: [1]}]}`, accept: false},
	{doc: fmt.Sprintf(`{stages: [{id: a%s}]}`, strings.Repeat("b", 127)), accept: true},
	{doc: fmt.Sprintf(`{stages: [{id: a%s}]}`, strings.Repeat("b", 128)), accept: false},
	{doc: `{"stages": [{"id": 1.0}]}`, asJSON: true, accept: true},
	{doc: `{"stages": [{"id": 2147483647.0}]}`, asJSON: true, accept: true},
	{doc: `{"stages": [{"id": 2147483647.5}]}`, asJSON: true, accept: false},
	{doc: `{"stages": [{"id": -1}]}`, asJSON: true, accept: false},
	// depends_on: an array of distinct stage ids.
	{doc: `{stages: [{id: 1}, {id: 2, depends_on: [1]}]}`, accept: true},
	{doc: `{stages: [{id: 1}, {id: 2, depends_on: [1, 1]}]}`, accept: false},
	{doc: `{stages: [{id: a}, {id: b, depends_on: [a, a]}]}`, accept: false},
	{doc: `{stages: [{id: 1}, {id: a, depends_on: [1, a]}]}`, accept: true},
	{doc: `{stages: [{id: 1}, {id: 2, depends_on: 1}]}`, accept: false},
	{doc: `{stages: [{id: 1}, {id: 2, depends_on: [0]}]}`, accept: false},
	{doc: `{stages: [{id: 1}, {id: 2, depends_on: null}]}`, accept: false},
	{doc: `{stages: [{id: 1, depends_on: [9]}]}`, accept: true}, // an unknown stage is check's matter, not the schema's
	{doc: `{"stages": [{"id": 1}, {"id": 2, "depends_on": [1, 1.0]}]}`, asJSON: true, accept: false},
	{doc: `{"stages": [{"id": 1}, {"id": 2, "depends_on": [1, 10e-1]}]}`, asJSON: true, accept: false},
	{doc: "stages:\n- id: 1\n  depends_on: [" + strings.Repeat("a, ", 25) + "b]\n", accept: false},
	{doc: "stages:\n- id: 1\n  depends_on: [" + dependsRange(30) + "]\n", accept: true},
	{doc: "stages:\n- id: 1\n  depends_on: [" + dependsRange(30) + ", 17]\n", accept: false},
	// schedule: exactly one of cron and every_seconds, and each field in
	// its range and pattern.
	{doc: `{schedule: {cron: "0 2 * * *"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 3600}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", every_seconds: 3600}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: 5, every_seconds: 3600}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {timezone: UTC}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", extra: 1}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: "0 2 * * *", stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: null, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * *"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * * *"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0  2   * * *"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: " 0 2 * * *"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * * "}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0\t2 * * *"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *\n"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "*/5 1-3,7 ? JAN MON-FRI"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * @"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "xx yy zz ww vv"}, stages: [{id: 1}]}`, accept: true}, // the cron parser judges the fields
	{doc: fmt.Sprintf(`{schedule: {cron: "%s 1 1 1 1"}, stages: [{id: 1}]}`, strings.Repeat("1", 248)), accept: true},
	{doc: fmt.Sprintf(`{schedule: {cron: "%s 1 1 1 1"}, stages: [{id: 1}]}`, strings.Repeat("1", 249)), accept: false},
	{doc: `{schedule: {every_seconds: 0}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 31536000}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 31536001}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 1, start_grace_seconds: 0, max_runtime_seconds: 1, lookback_slots: 1000}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 1, start_grace_seconds: -1}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 1, max_runtime_seconds: 0}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 1, lookback_slots: 0}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 1, lookback_slots: 1001}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 1, start_grace_seconds: 31536001}, stages: [{id: 1}]}`, accept: false},
	// timezone: 1 to 64 characters of the zone name pattern.
	{doc: `{schedule: {cron: "0 2 * * *", timezone: Europe/Berlin}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: America/Argentina/Buenos_Aires}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: Etc/GMT+5}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: Etc/GMT-14}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: ""}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: /UTC}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: UTC/}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: Europe//Berlin}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: "1UTC"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: "Europe/Ber lin"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: "A/1"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: "../etc"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {cron: "0 2 * * *", timezone: 1}, stages: [{id: 1}]}`, accept: false},
	{doc: fmt.Sprintf(`{schedule: {cron: "0 2 * * *", timezone: A%s}, stages: [{id: 1}]}`, strings.Repeat("b", 63)), accept: true},
	{doc: fmt.Sprintf(`{schedule: {cron: "0 2 * * *", timezone: A%s}, stages: [{id: 1}]}`, strings.Repeat("b", 64)), accept: false},
	// since: the date-time pattern, a real day, and a UTC year 1 to 9999.
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00.123456789+05:30"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00.1234567890Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00.Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01t00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01 00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T24:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T23:60:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-12-31T23:59:60Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-02-29T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2028-02-29T00:00:00Z"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "2026-13-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-00-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-04-31T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-00T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00+24:00"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00+23:59"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00-00:60"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "2026-01-01T00:00:00+0100"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "0000-01-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "0001-01-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "0001-01-01T00:30:00+01:00"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "0000-12-31T23:30:00-01:00"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "9999-12-31T23:59:59.999999999Z"}, stages: [{id: 1}]}`, accept: true},
	{doc: `{schedule: {every_seconds: 60, since: "9999-12-31T23:30:00-01:00"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "10000-01-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: "２０２６-01-01T00:00:00Z"}, stages: [{id: 1}]}`, accept: false},
	{doc: `{schedule: {every_seconds: 60, since: 2026-01-01T00:00:00Z}, stages: [{id: 1}]}`, accept: true}, // a YAML timestamp is written back as a string
	{doc: `{schedule: {every_seconds: 60, since: 2026-01-01}, stages: [{id: 1}]}`, accept: true},           // a YAML date too, at midnight UTC
	{doc: `{schedule: {every_seconds: 60, since: 0}, stages: [{id: 1}]}`, accept: false},
}

// dependsRange lists the stage ids 1 to n, for a depends_on long enough
// (over 20 items) that the validator hashes its items.
func dependsRange(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// bothVerdicts reads data as ParseDefinition does (or, with asJSON, as JSON
// text) and returns whether the fast path and the schema accept it; ok is
// false when data is no document at all.
func bothVerdicts(compiled *jsonschema.Schema, data []byte, asJSON bool) (fast, schema, ok bool) {
	var inst any
	var err error
	if asJSON {
		inst, err = schemas.Instance(data)
	} else {
		inst, _, err = definitionDocument(data)
	}
	if err != nil {
		return false, false, false
	}
	return definitionFastValid(inst), schemas.Validate(compiled, inst) == nil, true
}

// TestDefinitionFastPathMatchesSchema: on every document of the repository
// and of the keyword table, the compiled check accepts exactly when
// pipeline.schema.json does, and the table's documents get their verdict.
func TestDefinitionFastPathMatchesSchema(t *testing.T) {
	compiled, err := schemas.Compile("pipeline")
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, d := range repoDocuments(t) {
		fast, schema, ok := bothVerdicts(compiled, d.data, false)
		if !ok {
			continue
		}
		if fast != schema {
			t.Errorf("%s: fast path accepts %v, schema accepts %v\n%s", d.where, fast, schema, d.data)
		}
		if schema {
			accepted++
		}
	}
	// The repository holds over 80 valid definitions (each rule test has
	// one); far fewer means the documents were not found.
	if accepted < 80 {
		t.Errorf("only %d repository documents match pipeline.schema.json", accepted)
	}
	for _, c := range definitionCases {
		fast, schema, ok := bothVerdicts(compiled, []byte(c.doc), c.asJSON)
		name := c.doc
		if len(name) > 120 {
			name = name[:120] + "..."
		}
		switch {
		case !ok && c.accept:
			t.Errorf("%s: not a document", name)
		case schema != c.accept:
			t.Errorf("%s: schema accepts %v, want %v", name, schema, c.accept)
		case fast != schema:
			t.Errorf("%s: fast path accepts %v, schema accepts %v", name, fast, schema)
		}
	}
}

// TestDefinitionSchemaCheckWording: a definition the fast path refuses is
// worded by the validator, as before the fast path existed.
func TestDefinitionSchemaCheckWording(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`stages: []`, "the pipeline definition does not match pipeline.schema.json: at /stages: minimum 1 items required, but found 0 items"},
		{`{stages: [{id: 1}], extra: 1}`, "the pipeline definition does not match pipeline.schema.json: at /: additionalProperties 'extra' not allowed"},
	} {
		_, err := ParseDefinition([]byte(c.doc))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.doc, err, c.want)
		}
	}
	// Were the two ever to disagree, the definition is refused.
	err := definitionSchemaCheck(map[string]any{"stages": []any{map[string]any{"id": "a"}}})
	var want = "the pipeline definition was refused by the compiled contract check (definitionFastValid) although it matches pipeline.schema.json"
	if err == nil || err.Error() != want {
		t.Errorf("definitionSchemaCheck of a valid document: %v, want %s", err, want)
	}
}

// FuzzDefinitionFastPath mutates the repository's documents and the keyword
// table: read as ParseDefinition reads them, and as JSON text when they are
// JSON, the fast path and pipeline.schema.json must agree on every one.
// Disagreements found are kept under testdata/fuzz/FuzzDefinitionFastPath.
func FuzzDefinitionFastPath(f *testing.F) {
	for _, d := range repoDocuments(f) {
		f.Add(d.data)
	}
	for _, c := range definitionCases {
		if len(c.doc) < 4096 {
			f.Add([]byte(c.doc))
		}
	}
	compiled, err := schemas.Compile("pipeline")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		check := func(inst any, how string) {
			fast := definitionFastValid(inst)
			schema := schemas.Validate(compiled, inst) == nil
			if fast != schema {
				t.Fatalf("%s: fast path accepts %v, schema accepts %v\n%q", how, fast, schema, data)
			}
		}
		if inst, _, err := definitionDocument(data); err == nil {
			check(inst, "as YAML")
		}
		if inst, err := schemas.Instance(data); err == nil && !hugeExponent(data) {
			check(inst, "as JSON")
		}
	})
}

// hugeExponent reports whether data holds an exponent of six or more
// digits: the validator (math/big) then takes seconds for one number, or
// gives up, which the table covers; the fuzzer should not wait for it.
func hugeExponent(data []byte) bool {
	for i := 0; i+1 < len(data); i++ {
		if data[i] == 'e' || data[i] == 'E' {
			j := i + 1
			if j < len(data) && (data[j] == '+' || data[j] == '-') {
				j++
			}
			k := j
			for k < len(data) && data[k] >= '0' && data[k] <= '9' {
				k++
			}
			if k-j >= 6 {
				return true
			}
		}
	}
	return false
}

// TestDefinitionFastPathRandomDocuments builds documents from pools of
// values near each keyword's edges (a fixed seed, so the same ones every
// run) and holds the fast path to the schema's verdict on each: byte
// mutations seldom reach a valid schedule or stage list, these mostly do.
func TestDefinitionFastPathRandomDocuments(t *testing.T) {
	compiled, err := schemas.Compile("pipeline")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(14, 1))
	n := func(s string) any { return json.Number(s) }
	// Values that fit the key more often than not, then its edges.
	seconds := []any{n("1"), n("60"), n("31536000"), n("2.0"), n("3.1536e7"), n("0"), n("31536001"), n("1.5"), n("-1"), n("1e21")}
	zeroOK := []any{n("0"), n("-0"), n("0e9"), n("5"), n("31536000"), n("-1"), n("31536001")}
	ids := []any{n("1"), n("2"), n("2147483647"), "a", "A.b_c-9", "x" + strings.Repeat("y", 127), n("3.0"), n("0"), n("2147483648"), "_a", "1", "a b", "é", "x" + strings.Repeat("y", 128)}
	good := map[string][]any{
		"pipeline":             {"nightly", "a", strings.Repeat("é", 256), "", strings.Repeat("é", 257)},
		"stale_after_seconds":  seconds,
		"lease_margin_seconds": zeroOK,
		"threshold":            {n("1"), n("3"), n("1000000"), n("0"), n("1000001")},
		"enforce":              {true, false, "true"},
		"name":                 {"bronze", "b", "", strings.Repeat("n", 257)},
		"idempotent":           {true, false, n("1")},
		"cron":                 {"0 2 * * *", "*/5  1-3 ? JAN MON-FRI", "0 2 * *", " 0 2 * * *", "0 2 * * * ", "0\t2 * * *", "0 2 * * @"},
		"every_seconds":        seconds,
		"timezone":             {"UTC", "Europe/Berlin", "Etc/GMT+5", "A/1", "", "/UTC", "UTC/", "Europe//Berlin", "1UTC", strings.Repeat("Z", 65)},
		"start_grace_seconds":  zeroOK,
		"max_runtime_seconds":  seconds,
		"lookback_slots":       {n("1"), n("7"), n("1000"), n("0"), n("1001")},
		"since": {"2026-01-01T00:00:00Z", "2028-02-29T23:59:59.123456789+23:59", "0000-12-31T23:30:00-01:00", "2026-02-29T00:00:00Z",
			"0001-01-01T00:30:00+01:00", "2026-01-01T00:00:00.1234567890Z", "9999-12-31T23:30:00-01:00", "2026-01-01T24:00:00Z", "2026-01-01t00:00:00Z"},
	}
	scalar := func() any {
		switch rng.IntN(5) {
		case 0:
			return nil
		case 1:
			return rng.IntN(2) == 0
		case 2:
			return n("7")
		case 3:
			return []any{}
		}
		return "x"
	}
	// value gives key k a value: mostly from its pool (the first half of
	// which fits), now and then one of another type.
	value := func(k string) any {
		pool := good[k]
		switch r := rng.IntN(20); {
		case r == 0:
			return scalar()
		case r < 12:
			return pool[rng.IntN((len(pool)+1)/2)]
		}
		return pool[rng.IntN(len(pool))]
	}
	stageID := func() any {
		if rng.IntN(3) != 0 {
			return ids[rng.IntN(6)]
		}
		return ids[rng.IntN(len(ids))]
	}
	// object sets each of keys with chance 1/2 and, rarely, a key outside
	// the schema.
	object := func(keys []string, gen func(string) any) map[string]any {
		obj := map[string]any{}
		for _, k := range keys {
			if rng.IntN(2) == 0 {
				obj[k] = gen(k)
			}
		}
		if rng.IntN(25) == 0 {
			obj["extra"] = scalar()
		}
		return obj
	}
	stage := func() any {
		obj := object([]string{"name", "depends_on", "idempotent", "stale_after_seconds"}, func(k string) any {
			if k != "depends_on" {
				return value(k)
			}
			if rng.IntN(20) == 0 {
				return scalar()
			}
			deps := make([]any, rng.IntN(4))
			for i := range deps {
				deps[i] = stageID()
			}
			if len(deps) > 1 && rng.IntN(4) == 0 {
				deps[0] = deps[len(deps)-1]
			}
			return deps
		})
		if rng.IntN(15) != 0 {
			obj["id"] = stageID()
		}
		return obj
	}
	seen := map[bool]int{}
	for range 20000 {
		doc := object([]string{"pipeline", "stale_after_seconds", "lease_margin_seconds", "retry_brake", "schedule"}, func(k string) any {
			switch k {
			case "retry_brake":
				return object([]string{"threshold", "enforce"}, value)
			case "schedule":
				obj := object([]string{"timezone", "start_grace_seconds", "max_runtime_seconds", "lookback_slots", "since"}, value)
				switch rng.IntN(8) {
				case 0:
				case 1:
					obj["cron"], obj["every_seconds"] = value("cron"), value("every_seconds")
				case 2, 3, 4:
					obj["cron"] = value("cron")
				default:
					obj["every_seconds"] = value("every_seconds")
				}
				return obj
			}
			return value(k)
		})
		if rng.IntN(15) != 0 {
			stages := make([]any, rng.IntN(4))
			for i := range stages {
				stages[i] = stage()
			}
			doc["stages"] = stages
		}
		fast, schema := definitionFastValid(doc), schemas.Validate(compiled, doc) == nil
		if fast != schema {
			js, _ := json.Marshal(doc)
			t.Fatalf("fast path accepts %v, schema accepts %v: %s", fast, schema, js)
		}
		seen[schema]++
	}
	t.Logf("verdicts: %v", seen)
	// Both verdicts must be common, or the pools test nothing.
	if seen[true] < 1000 || seen[false] < 1000 {
		t.Errorf("verdicts %v: the pools no longer reach both", seen)
	}
}
