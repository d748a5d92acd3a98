package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/limits"
	"github.com/greenlight-ci/greenlight/internal/osfile"
	"github.com/greenlight-ci/greenlight/internal/words"
	"github.com/greenlight-ci/greenlight/schemas"
)

// MaxAgeLimit is the largest --max-age merge takes.
const MaxAgeLimit = limits.MaxAge

// runMerge is greenlight merge SNAPSHOT...: it reads every snapshot,
// validates it against snapshot.schema.json and judges it (render.BuildRollup),
// then writes the roll-up. Exit 2 when a snapshot is unusable (after
// writing the roll-up, which lists it) or the command line is wrong; 1 with
// --fail-on-unhealthy when the roll-up is unhealthy; else 0.
func runMerge(args []string, env Env) (int, error) {
	fs := NewFlagSet("merge")
	maxAge := fs.String("max-age", "", "a snapshot generated longer than this `duration` before now (e.g. 26h, 90m) is stale, so unusable; required")
	now := fs.String("now", "", "judge the snapshots at this RFC 3339 `time` instead of the wall clock")
	format := fs.String("format", "text", "output `format`: text, json, markdown, junit, sarif, gitlab or openmetrics")
	failOnUnhealthy := fs.Bool("fail-on-unhealthy", false, "exit 1 when every snapshot is usable but the roll-up is unhealthy")
	expectList := fs.String("expect", "", "the pipelines that must have a snapshot, `NAME[,NAME...]`, or any to take whatever snapshots are given; this or --expect-file is required")
	expectFile := fs.String("expect-file", "", "read the expected pipelines from `FILE`, one name a line (blank lines and # comments allowed)")
	if err := ParseFlags(fs, args, env); err != nil {
		return ExitInvalid, err
	}
	if fs.NArg() == 0 {
		return ExitInvalid, usageError{"merge takes one or more snapshot files (greenlight check --snapshot FILE writes one)"}
	}
	if slices.Contains(fs.Args(), "-") {
		return ExitInvalid, usageError{"merge reads snapshot files, not standard input: give each snapshot's path"}
	}
	if err := checkFormat(*format, append([]string{"text", "json", "markdown"}, CIFormats...)...); err != nil {
		return ExitInvalid, err
	}
	age, err := ParseMaxAge("--max-age", *maxAge)
	if err != nil {
		return ExitInvalid, err
	}
	var fileText *string
	if *expectFile != "" {
		data, err := osfile.ReadFile(*expectFile)
		if err != nil {
			return ExitInvalid, usageError{fmt.Sprintf("--expect-file: cannot read %s: %s", render.Terminal(*expectFile), osfile.Describe(err))}
		}
		text := string(data)
		fileText = &text
	}
	expect, err := ParseExpect("--expect", *expectList, "--expect-file", fileText)
	if err != nil {
		return ExitInvalid, err
	}
	var at time.Time
	if *now == "" {
		at = env.Now().UTC()
	} else if at, err = checker.ParseTime(*now); err != nil {
		return ExitInvalid, usageError{fmt.Sprintf("--now %q: %v", render.Terminal(*now), err)}
	}
	inputs, err := ReadSnapshots(fs.Args())
	if err != nil {
		return ExitInvalid, err
	}
	ru, logs := render.BuildRollup(inputs, at, age, expect)
	switch {
	case *format == "json":
		var doc []byte
		if doc, err = render.JSON(ru); err == nil {
			_, err = env.Stdout.Write(doc)
		}
	case *format == "markdown":
		_, err = io.WriteString(env.Stdout, render.RollupMarkdown(ru))
	case IsCIFormat(*format):
		err = WriteCIFormat(env.Stdout, *format, logs, nil)
	default:
		_, err = io.WriteString(env.Stdout, render.RollupText(ru))
	}
	if err != nil {
		return ExitInvalid, fmt.Errorf("cannot write the output: %s", osfile.Describe(err))
	}
	if ru.Counts.Unusable > 0 {
		for _, p := range ru.Pipelines {
			if p.Problem != nil {
				fmt.Fprintf(env.Stderr, "greenlight: %s: %s\n", render.Terminal(RollupEntryName(p)), render.Terminal(*p.Problem))
			}
		}
		fmt.Fprintf(env.Stderr, "greenlight: %d of %s unusable; the roll-up is unhealthy\n", ru.Counts.Unusable, words.Count(ru.PipelineCount, "snapshot"))
		return ExitInvalid, nil
	}
	if *failOnUnhealthy && ru.Verdict != checker.VerdictHealthy {
		return ExitUnhealthy, nil
	}
	return ExitOK, nil
}

// ParseMaxAge reads a --max-age value (the flag or input named what): a
// Go duration from 1s to MaxAgeLimit. There is no default, since none
// fits every schedule.
func ParseMaxAge(what, text string) (time.Duration, error) {
	if text == "" {
		return 0, usageError{"merge needs " + what + " (e.g. 26h for nightly pipelines): a snapshot older than that is stale"}
	}
	age, err := limits.ParseDuration(text)
	if err != nil {
		return 0, usageError{fmt.Sprintf("%s %q: use a duration from 1s to %s, such as 26h, 90m or 2d", what, render.Terminal(text), MaxAgeLimit)}
	}
	return age, nil
}

// RollupEntryName names a roll-up entry in a message: its snapshot file,
// or the pipeline for an expected pipeline without a snapshot.
func RollupEntryName(p render.RollupPipeline) string {
	if p.Snapshot == "" {
		return p.Pipeline
	}
	return p.Snapshot
}

// ParseExpect reads the expected pipelines of a roll-up: list (the flag or
// input named listName) is NAME[,NAME...] or any; file (named fileName),
// when not nil, is the text of a file of one name a line, blank lines and
// lines starting with # ignored. The names of both are expected, each
// once. There is no default: a roll-up that expects nothing cannot see a
// pipeline whose snapshot is missing, so neither given is an error that
// says how to declare them, and so are an empty list or file, any beside
// names, and a blank name.
func ParseExpect(listName, list, fileName string, file *string) (render.RollupExpect, error) {
	var ex render.RollupExpect
	list = strings.TrimSpace(list)
	if list == "" && file == nil {
		return ex, usageError{"merge needs the pipelines it expects: " + listName + " NAME[,NAME...] or " + fileName + " FILE (one name a line), so that a pipeline whose snapshot is missing makes the roll-up unhealthy; " + listName + " any takes whatever snapshots are given"}
	}
	if list == "any" {
		if file != nil {
			return ex, usageError{listName + " any expects whatever snapshots are given: give " + fileName + " without it"}
		}
		ex.Any = true
		return ex, nil
	}
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			ex.Pipelines = append(ex.Pipelines, name)
		}
	}
	if list != "" {
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return ex, usageError{fmt.Sprintf("%s %q: a pipeline name is empty; give NAME[,NAME...] or any", listName, render.Terminal(list))}
			}
			if name == "any" {
				return ex, usageError{listName + ": any cannot be listed beside pipeline names"}
			}
			add(name)
		}
	}
	if file != nil {
		n := 0
		for _, line := range strings.Split(*file, "\n") {
			name := strings.TrimSpace(line)
			if name == "" || strings.HasPrefix(name, "#") {
				continue
			}
			add(name)
			n++
		}
		if n == 0 {
			return ex, usageError{fileName + " names no pipeline: give one name a line (blank lines and # comments are ignored)"}
		}
	}
	return ex, nil
}

// ReadSnapshots reads and validates the snapshot files for
// render.BuildRollup: a file that cannot be used gets its problem, never
// an error. The error is for the embedded schema only.
func ReadSnapshots(names []string) ([]render.RollupInput, error) {
	schema, err := schemas.Compile("snapshot")
	if err != nil {
		return nil, err
	}
	inputs := make([]render.RollupInput, 0, len(names))
	for _, name := range names {
		in := render.RollupInput{File: RepoPath(name)}
		in.Snapshot, in.Problem = readSnapshot(name, schema)
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// readSnapshot reads and validates one snapshot file; the problem says why
// it cannot be used.
func readSnapshot(name string, schema *schemas.Schema) (*checker.Snapshot, string) {
	data, err := osfile.ReadFile(name)
	if err != nil {
		return nil, "cannot read the snapshot: " + osfile.Describe(err)
	}
	inst, err := schemas.Instance(data)
	if err != nil {
		return nil, "not a JSON document: " + err.Error()
	}
	if doc, ok := inst.(map[string]any); ok {
		if v, ok := doc["schema_version"].(string); ok && v != checker.SnapshotVersion && strings.HasPrefix(v, "greenlight.snapshot/") {
			// An older (or newer) greenlight wrote it: its verdict was
			// judged by other rules, and the fields a roll-up reads differ.
			return nil, fmt.Sprintf("written as %s, and this greenlight reads %s: check the pipeline again with this version to write a new snapshot", v, checker.SnapshotVersion)
		}
	}
	if err := schemas.Validate(schema, inst); err != nil {
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, "does not match snapshot.schema.json: " + msg
	}
	var s checker.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, "cannot decode the snapshot: " + err.Error()
	}
	return &s, ""
}
