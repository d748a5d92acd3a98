package version

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestDevelIsCheckersDefault: a check without Options.ToolVersion names the
// tool version Devel, the version Of falls back to, so a snapshot's
// tool.version reads the same whether a shell or checker supplied it.
func TestDevelIsCheckersDefault(t *testing.T) {
	log := `{"run_id":"r1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"run_id":"r1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T00:01:00Z"}` + "\n"
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(log), checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil {
		t.Fatalf("no snapshot: %+v", res.Report.Violations)
	}
	if got := res.Snapshot.Tool.Version; got != Devel {
		t.Errorf("checker's default tool version %q, want Devel %q", got, Devel)
	}
	if got := Of(""); got != Devel {
		t.Errorf("Of(\"\") = %q in a test binary, want %q", got, Devel)
	}
}
