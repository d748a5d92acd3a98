package render_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/schemas"
)

// sarifDoc is the part of a SARIF document a code-scanning consumer reads.
type sarifDoc struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

// compileSARIFSchema compiles the published SARIF 2.1.0 schema (draft-04).
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := sharedFile(t, "schemas/sarif-schema-2.1.0.json")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft4
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		t.Fatalf("the SARIF schema refers to %s", url)
		return nil, nil
	}
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, bytes.NewReader(src)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func renderSARIF(t *testing.T, logs ...render.Log) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteSARIF(&b, logs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSARIF renders every formatLog as SARIF, compares it with its golden,
// validates it against the SARIF 2.1.0 schema and reads it back: every
// result's rule is in the driver's table at its index, points at the log
// and, for an invalid log, is one of its violations.
func TestSARIF(t *testing.T) {
	schema := compileSARIFSchema(t)
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			l := checkFormatLog(t, fl)
			out := renderSARIF(t, l)
			golden(t, fl.name+".sarif.json", out)
			assertInert(t, "sarif", out)
			inst, err := schemas.Instance(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Fatalf("the document does not match the SARIF 2.1.0 schema: %v", err)
			}
			var doc sarifDoc
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			run := doc.Runs[0]
			rules := run.Tool.Driver.Rules
			if len(rules) != len(checker.Rules())+len(checker.OpenLineageRules())+len(checker.WindowRules())+len(render.HealthRules()) {
				t.Errorf("%d rules in the driver", len(rules))
			}
			seen := map[string]bool{}
			for _, r := range run.Results {
				if rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result %s has ruleIndex %d, which is %s", r.RuleID, r.RuleIndex, rules[r.RuleIndex].ID)
				}
				loc := r.Locations[0].PhysicalLocation
				if loc.ArtifactLocation.URI != fl.log || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine < 1 {
					t.Errorf("result %s points at %+v", r.RuleID, loc)
				}
				fp := r.PartialFingerprints[render.SARIFFingerprint]
				if len(fp) != 64 || seen[fp] {
					t.Errorf("result %s has fingerprint %q (seen before: %v)", r.RuleID, fp, seen[fp])
				}
				seen[fp] = true
			}
			rep := l.Result.Report
			if !rep.Valid {
				if len(run.Results) != len(rep.Violations) {
					t.Fatalf("%d results for %d violations", len(run.Results), len(rep.Violations))
				}
				for i, v := range rep.Violations {
					r := run.Results[i]
					if r.RuleID != string(v.Rule) || r.Message.Text != v.Message || r.Locations[0].PhysicalLocation.Region.StartLine != v.Line || r.Level != "error" {
						t.Errorf("result %d %+v is not violation %+v", i, r, v)
					}
				}
				return
			}
			s := l.Result.Snapshot
			missed, _ := render.MissedCount(s)
			overdue := 0
			if s.StateCounts.Overdue != nil {
				overdue = *s.StateCounts.Overdue
			}
			c := s.StateCounts
			unhealthy := c.Failed + c.Stalled + c.Unknown + c.Cancelled + c.Incomplete + overdue
			if got, want := len(run.Results), len(s.Warnings)+unhealthy+missed; got != want {
				t.Errorf("%d results, want %d (warnings, unhealthy runs, missed slots)", got, want)
			}
		})
	}
}

// TestSARIFFingerprintsStable checks that a finding keeps its fingerprint
// when the log grows: the sample checked again with a new night appended
// (and judged a day later) still has the failed run's result with the same
// fingerprint.
func TestSARIFFingerprintsStable(t *testing.T) {
	sample := formatLogs[0]
	before := renderSARIF(t, checkFormatLog(t, sample))
	again := renderSARIF(t, checkFormatLog(t, sample))
	if !bytes.Equal(before, again) {
		t.Fatal("two checks of the same log give different SARIF")
	}
	log, err := os.ReadFile(root + sample.log)
	if err != nil {
		t.Fatal(err)
	}
	grown := append(log, []byte(`{"run_id": "cm-2026-11-29", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": "2026-11-29T02:00:03Z"}
{"run_id": "cm-2026-11-29", "stage": 1, "attempt": 1, "status": "succeeded", "timestamp_utc": "2026-11-29T02:15:00Z", "returncode": 0}
`)...)
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/grown.jsonl", grown, 0o644); err != nil {
		t.Fatal(err)
	}
	fl := sample
	fl.log, fl.now = "", "2026-11-29T06:00:00Z"
	def, err := os.ReadFile(root + sample.pipeline)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := checker.Request{Pipeline: def, Now: fl.now}.Options()
	if err != nil {
		t.Fatal(err)
	}
	opts.File = sample.log
	res, err := checker.Check(bytes.NewReader(grown), opts)
	if err != nil {
		t.Fatal(err)
	}
	after := renderSARIF(t, render.Log{Pipeline: "campaign_metrics", Path: sample.log, Result: res})
	fingerprints := func(doc []byte) map[string]string {
		var d sarifDoc
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range d.Runs[0].Results {
			m[r.RuleID] = r.PartialFingerprints[render.SARIFFingerprint]
		}
		return m
	}
	b, a := fingerprints(before), fingerprints(after)
	if b[render.HealthRunFailed] == "" || b[render.HealthRunFailed] != a[render.HealthRunFailed] {
		t.Errorf("the failed run's fingerprint changed as the log grew: %q, then %q", b[render.HealthRunFailed], a[render.HealthRunFailed])
	}
	if b[render.HealthSlotMissed] == "" || b[render.HealthSlotMissed] != a[render.HealthSlotMissed] {
		t.Errorf("the missed slot's fingerprint changed as the log grew: %q, then %q", b[render.HealthSlotMissed], a[render.HealthSlotMissed])
	}
}

// TestSARIFRuleIndexOfEveryRule checks that a violation of any rule, the
// OpenLineage and window rules too, gets the ruleIndex of its own rule in
// the driver's table (SARIF 2.1.0, 3.27.6), never another rule's.
func TestSARIFRuleIndexOfEveryRule(t *testing.T) {
	all := append(append(checker.Rules(), checker.OpenLineageRules()...), checker.WindowRules()...)
	for _, r := range all {
		rep := checker.NewReport()
		rep.Add(checker.Violation{File: "events.jsonl", Line: 3, Rule: r.ID, Message: "m"}, 0)
		out := renderSARIF(t, render.Log{Pipeline: "p", Path: "events.jsonl", Result: &checker.Result{Report: rep}, JudgedAt: "2026-01-01T00:00:00Z"})
		var doc sarifDoc
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		run := doc.Runs[0]
		if len(run.Results) != 1 {
			t.Fatalf("%s: %d results", r.ID, len(run.Results))
		}
		res := run.Results[0]
		if res.RuleID != string(r.ID) || run.Tool.Driver.Rules[res.RuleIndex].ID != string(r.ID) {
			t.Errorf("a %s violation has ruleId %s and ruleIndex %d, which is %s", r.ID, res.RuleID, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID)
		}
	}
}
