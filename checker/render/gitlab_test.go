package render_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// gitlabIssue is a Code Quality issue as GitLab reads it; every field is
// one GitLab requires.
type gitlabIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

// TestGitLab renders every formatLog as a GitLab Code Quality report,
// compares it with its golden and reads it back strictly: every issue has
// the fields GitLab requires, a known severity, a unique fingerprint equal
// to the SARIF result's, and points at the log; for an invalid log the
// issues are its violations.
func TestGitLab(t *testing.T) {
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			l := checkFormatLog(t, fl)
			var b bytes.Buffer
			if err := render.WriteGitLab(&b, []render.Log{l}); err != nil {
				t.Fatal(err)
			}
			golden(t, fl.name+".gitlab.json", b.Bytes())
			assertInert(t, "gitlab", b.Bytes())
			dec := json.NewDecoder(bytes.NewReader(b.Bytes()))
			dec.DisallowUnknownFields()
			var issues []gitlabIssue
			if err := dec.Decode(&issues); err != nil {
				t.Fatal(err)
			}
			var sarif sarifDoc
			if err := json.Unmarshal(renderSARIF(t, l), &sarif); err != nil {
				t.Fatal(err)
			}
			results := sarif.Runs[0].Results
			if len(issues) != len(results) {
				t.Fatalf("%d issues, %d SARIF results", len(issues), len(results))
			}
			seen := map[string]bool{}
			for i, is := range issues {
				r := results[i]
				if is.CheckName != r.RuleID || is.Fingerprint != r.PartialFingerprints[render.SARIFFingerprint] || seen[is.Fingerprint] {
					t.Errorf("issue %d %+v does not match SARIF result %+v", i, is, r)
				}
				seen[is.Fingerprint] = true
				if want := map[string]string{"error": "critical", "warning": "major"}[r.Level]; is.Severity != want {
					t.Errorf("issue %d has severity %q for level %s", i, is.Severity, r.Level)
				}
				if is.Location.Path != fl.log || is.Location.Lines.Begin != r.Locations[0].PhysicalLocation.Region.StartLine {
					t.Errorf("issue %d at %+v", i, is.Location)
				}
				if !strings.HasSuffix(is.Description, r.Message.Text) || !strings.HasPrefix(is.Description, is.CheckName+" (") {
					t.Errorf("issue %d description %q", i, is.Description)
				}
			}
			if rep := l.Result.Report; !rep.Valid && len(issues) != len(rep.Violations) {
				t.Errorf("%d issues for %d violations", len(issues), len(rep.Violations))
			}
		})
	}
}
