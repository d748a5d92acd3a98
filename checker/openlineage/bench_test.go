package openlineage_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/schemas"
)

// BenchmarkCheckAirflow checks the Airflow capture (32 events, 126 kB).
func BenchmarkCheckAirflow(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(samplesDir, "airflow.jsonl"))
	if err != nil {
		b.Skipf("the OpenLineage samples are not here: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res, err := openlineage.Check(bytes.NewReader(data), checker.Options{Now: now})
		if err != nil || res.Snapshot == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileSchema is the fixed cost of each check.
func BenchmarkCompileSchema(b *testing.B) {
	for b.Loop() {
		if _, err := schemas.Compile("openlineage-runevent"); err != nil {
			b.Fatal(err)
		}
	}
}
