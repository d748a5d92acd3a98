package render

import "github.com/greenlight-ci/greenlight/checker"

// Document is what "greenlight check --format json" prints for a result: the
// health snapshot (schemas/snapshot.schema.json) when the log is valid, else
// the violations report (schemas/violations.schema.json), encoded by JSON.
func Document(res *checker.Result) ([]byte, error) {
	if res.Snapshot != nil {
		return JSON(res.Snapshot)
	}
	return JSON(res.Report)
}
