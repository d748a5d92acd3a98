package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/url"

	"github.com/greenlight-ci/greenlight/checker"
)

// SARIFFingerprint is the partialFingerprints key of every SARIF result:
// a hex SHA-256 of the rule, the log's path and the run, stage and attempt
// (or, where those are unknown, the line), so code scanning recognizes the
// same finding on every check of a log, even after the log grows.
const SARIFFingerprint = "greenlight/v1"

// SARIFInformationURI is the tool's home page in every SARIF document.
const SARIFInformationURI = "https://github.com/greenlight-ci/greenlight"

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string    `json:"id"`
	ShortDescription     sarifText `json:"shortDescription"`
	FullDescription      sarifText `json:"fullDescription"`
	Help                 sarifText `json:"help"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifRun struct {
	Tool struct {
		Driver struct {
			Name           string      `json:"name"`
			InformationURI string      `json:"informationUri"`
			Rules          []sarifRule `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

// sarifRules is the rules table of the SARIF driver: every contract rule
// of checker.Rules, then the rules only an OpenLineage log or a check with
// a window can break, then every health rule, with each id's index. Every
// result's ruleIndex must name its own rule (SARIF 2.1.0, 3.27.6), so the
// table holds every rule a result can carry.
func sarifRules() ([]sarifRule, map[string]int) {
	var rules []sarifRule
	index := map[string]int{}
	add := func(id, summary, detail, level string) {
		r := sarifRule{ID: id, ShortDescription: sarifText{summary}, FullDescription: sarifText{detail},
			Help: sarifText{fmt.Sprintf("%s: %s. %s (greenlight docs/rules.md, docs/formats.md)", id, summary, detail)}}
		r.DefaultConfiguration.Level = level
		index[id] = len(rules)
		rules = append(rules, r)
	}
	contract := append(append(checker.Rules(), checker.OpenLineageRules()...), checker.WindowRules()...)
	for _, r := range contract {
		level := "error"
		if r.ID == checker.RuleRetryPastBrake {
			level = "warning" // an error only with retry_brake.enforce
		}
		add(string(r.ID), r.Summary, r.Detail, level)
	}
	for _, r := range HealthRules() {
		level := "error"
		if state := healthRuleState(r.ID); state != "" {
			level = Level(state).SARIF
		}
		add(r.ID, r.Summary, r.Detail, level)
	}
	return rules, index
}

// WriteSARIF writes the logs as one SARIF 2.1.0 document (the static
// analysis format GitHub code scanning reads): one run of the greenlight
// driver, whose rules are every contract rule and health rule with its
// summary and explanation, and one result per finding of every log: a
// contract violation of an invalid log (level error), a warning, or the
// problem of an unhealthy run and a missed slot, each at its state's SARIF
// level (Level: an error for every state that fails the gate). Each result points at the log file (relative to the
// repository root, uriBaseId %SRCROOT%) and the line that proves it (line 1
// for a missed slot, which no line proves); a log read from standard input
// has no location. Results are written one per line as the runs are
// visited, so a streamed snapshot stays streamed.
func WriteSARIF(w io.Writer, logs []Log) error {
	rules, index := sarifRules()
	var head sarifLog
	head.Schema = "https://json.schemastore.org/sarif-2.1.0.json"
	head.Version = "2.1.0"
	head.Runs = make([]sarifRun, 1)
	run := &head.Runs[0]
	run.Tool.Driver.Name = "greenlight"
	run.Tool.Driver.InformationURI = SARIFInformationURI
	run.Tool.Driver.Rules = rules
	run.Results = []sarifResult{}
	doc, err := JSON(head)
	if err != nil {
		return err
	}
	const tail = "[]\n    }\n  ]\n}\n"
	if !bytes.HasSuffix(doc, []byte(tail)) {
		return fmt.Errorf("render: the SARIF document does not end with its results")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:len(doc)-len(tail)])
	err = writeFindingArray(bw, logs, "        ", func(f finding) any {
		res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: "error", Message: sarifText{f.Message},
			PartialFingerprints: map[string]string{SARIFFingerprint: f.fingerprint()}}
		if f.Warning {
			res.Level = "warning"
		}
		if f.Path != "" {
			var loc sarifLocation
			loc.PhysicalLocation.ArtifactLocation.URI = (&url.URL{Path: f.Path}).String()
			loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
			loc.PhysicalLocation.Region.StartLine = max(f.Line, 1)
			res.Locations = []sarifLocation{loc}
		}
		return res
	})
	if err != nil {
		return err
	}
	bw.WriteString(tail[len("[]"):])
	return bw.Flush()
}
