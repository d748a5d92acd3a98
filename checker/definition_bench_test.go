package checker_test

import (
	"os"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// BenchmarkParseDefinitionSample loads the sample's pipeline definition
// (testdata/sample/pipeline.yaml) as the action does once per job: YAML to
// the JSON document, the schema check, the stage graph. It is the part of
// the JavaScript action's start-up that the definition costs
// (docs/action.md).
func BenchmarkParseDefinitionSample(b *testing.B) {
	data, err := os.ReadFile("../testdata/sample/pipeline.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := checker.ParseDefinition(data); err != nil {
			b.Fatal(err)
		}
	}
}
