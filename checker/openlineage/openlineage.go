// Package openlineage checks OpenLineage run-event logs (as Spark, Airflow,
// dbt and Marquez write them) with greenlight's contract rules, states and
// snapshot. It reads JSON Lines, a JSON array of events, or a set of
// one-event documents (a directory, read by the shell), validates each event
// against schemas/openlineage-runevent.schema.json, maps root runs to
// pipeline runs, child jobs to stages and runs to attempts
// (docs/openlineage.md), orders each pipeline run's events by eventTime and
// folds them with checker.Feed. Like checker it is pure: no file, clock or
// global state.
package openlineage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/schemas"
)

// InputFormat is the snapshot's source.input_format for OpenLineage logs.
const InputFormat = "openlineage"

// Document is one file of an event directory: Name as violations show it
// (the shell passes the path) and its bytes, which hold one event.
type Document struct {
	Name string
	Data []byte
}

// Check reads an OpenLineage log from r (JSON Lines, or a JSON array when its
// first byte other than white space is '['), checks it and folds it, as
// checker.Check does for the native contract. opts.Definition is optional:
// without it each pipeline run expects its root job and every job that
// logged under it; with it, each stage's name is the job it stands for
// (namespace/name). opts.Strict is refused, and every event is validated
// with the JSON Schema validator whatever opts.SchemaEveryEvent says. The
// error is non-nil only when opts are unusable or reading r fails.
func Check(r io.Reader, opts checker.Options) (*checker.Result, error) {
	opts, err := normalize(opts)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	in, err := readStream(r, opts.File, opts.MaxLineBytes, h)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", displayFile(opts.File), err)
	}
	return check(in, opts, hex.EncodeToString(h.Sum(nil)))
}

// CheckDocuments checks the events of docs, one per document, taken in the
// order given (the shell sorts a directory's *.json files by name).
// source.sha256 is the hash of the documents' bytes concatenated in that
// order, and line_count the sum of their lines. Options are as for Check.
func CheckDocuments(docs []Document, opts checker.Options) (*checker.Result, error) {
	opts, err := normalize(opts)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	in := readDocuments(docs, opts.MaxLineBytes, h)
	return check(in, opts, hex.EncodeToString(h.Sum(nil)))
}

func normalize(opts checker.Options) (checker.Options, error) {
	if opts.Strict {
		return opts, errors.New("--strict applies to the native event contract only; OpenLineage events carry facets greenlight does not read")
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = checker.DefaultMaxLineBytes
	}
	if opts.MaxViolations <= 0 {
		opts.MaxViolations = checker.DefaultMaxViolations
	}
	if d := opts.Definition; d != nil {
		seen := map[string]checker.StageID{}
		for _, s := range d.Stages {
			if s.Name == nil {
				return opts, fmt.Errorf("stage %s of the pipeline definition has no name: for OpenLineage each stage's name is the job it stands for, namespace/name", s.ID)
			}
			if other, dup := seen[*s.Name]; dup {
				return opts, fmt.Errorf("stages %s and %s of the pipeline definition name the same job %q", other, s.ID, *s.Name)
			}
			seen[*s.Name] = s.ID
		}
	}
	return opts, nil
}

func displayFile(f string) string {
	if f == "" || f == "-" {
		return "standard input"
	}
	return f
}

// check validates every event, maps the valid ones and feeds them.
func check(in *input, opts checker.Options, sum string) (*checker.Result, error) {
	feed, err := checker.NewFeed(opts)
	if err != nil {
		return nil, err
	}
	for _, f := range in.faults {
		feed.Violate(f.pos, checker.Violation{File: f.file, Line: f.line, Rule: f.rule, Message: f.msg})
	}
	schema, err := schemas.Compile("openlineage-runevent")
	if err != nil {
		return nil, err
	}
	members := eventMembers()
	var events []event
	for i := range in.events {
		raw := in.events[i]
		in.events[i].data = nil // the text is not needed once read
		proj, rule, msg := readEvent(raw.data, members)
		if rule != "" {
			feed.Violate(raw.pos, checker.Violation{File: raw.file, Line: raw.line, Rule: rule, Message: msg})
			continue
		}
		if ptr, lit := longNumber(proj); ptr != "" {
			feed.Violate(raw.pos, checker.Violation{File: raw.file, Line: raw.line, Rule: checker.RuleSchema, Message: longNumberMessage(ptr, lit)})
			continue
		}
		ev, msg, ok := decodeEvent(schema, raw, proj)
		if !ok {
			feed.Violate(raw.pos, checker.Violation{File: raw.file, Line: raw.line, Rule: checker.RuleSchema, Message: msg})
			continue
		}
		ev.data = nil
		events = append(events, ev)
	}
	m := newMapper(feed, opts.Definition)
	reordered, err := m.feedAll(events)
	if err != nil {
		return nil, err
	}
	res := feed.Result(checker.Source{
		Path:            opts.File,
		SHA256:          sum,
		EventCount:      len(events),
		LineCount:       in.lines,
		InputFormat:     InputFormat,
		ReorderedEvents: &reordered,
	})
	return res, nil
}

// mapper turns OpenLineage runs into pipeline runs, stages and attempts.
type mapper struct {
	feed *checker.Feed
	def  *checker.Definition
	// byName maps a job label to the definition's stage id (with a definition).
	byName map[string]checker.StageID
	// What the log says of each runId (lower case).
	job    map[string]jobKey
	up     map[string]string // parent.root when given, else parent
	try    map[string]int64
	stream map[string]bool
	bad    map[string]bool // runIds whose events are not fed
	roots  map[string]string
}

func newMapper(feed *checker.Feed, def *checker.Definition) *mapper {
	m := &mapper{feed: feed, def: def, job: map[string]jobKey{}, up: map[string]string{},
		try: map[string]int64{}, stream: map[string]bool{}, bad: map[string]bool{}, roots: map[string]string{}}
	if def != nil {
		m.byName = map[string]checker.StageID{}
		for _, s := range def.Stages {
			m.byName[*s.Name] = s.ID
		}
	}
	return m
}

func (m *mapper) violate(ev *event, run string, rule checker.RuleID, msg string) {
	m.feed.Violate(ev.pos, checker.Violation{File: ev.file, Line: ev.line, Rule: rule, Message: msg, RunID: run})
}

// noteJob records that run is job; a different job named earlier is a
// conflict.
func (m *mapper) noteJob(ev *event, run string, job jobKey) bool {
	if old, ok := m.job[run]; ok && old != job {
		m.violate(ev, run, checker.RuleConflictingRun, fmt.Sprintf("run %s is job %s here but job %s in an earlier event", run, job.label(), old.label()))
		return false
	}
	m.job[run] = job
	return true
}

// identify records each run's job, parent or root, try_number and
// processing type, reporting conflicting_run where events disagree.
func (m *mapper) identify(events []event) {
	for i := range events {
		ev := &events[i]
		if ev.typ == typeOther {
			continue
		}
		ok := m.noteJob(ev, ev.run, ev.job)
		if ev.parent != "" {
			ok = m.noteJob(ev, ev.parent, ev.parentJob) && ok
		}
		if ev.root != "" {
			ok = m.noteJob(ev, ev.root, ev.rootJob) && ok
		}
		up := ev.parent
		if ev.root != "" {
			up = ev.root
		}
		if up == ev.run {
			up = "" // a run that names itself as root is a root
		}
		if up != "" {
			if old, seen := m.up[ev.run]; seen && old != up {
				m.violate(ev, ev.run, checker.RuleConflictingRun, fmt.Sprintf("run %s belongs under run %s here but under run %s in an earlier event", ev.run, up, old))
				ok = false
			} else {
				m.up[ev.run] = up
			}
		}
		if ev.hasTry {
			if old, seen := m.try[ev.run]; seen && old != ev.try {
				m.violate(ev, ev.run, checker.RuleConflictingRun, fmt.Sprintf("run %s has try_number %d here but %d in an earlier event", ev.run, ev.try, old))
				ok = false
			} else {
				m.try[ev.run] = ev.try
			}
		}
		if ev.streaming {
			m.stream[ev.run] = true
		}
		if !ok {
			m.bad[ev.run] = true
		}
	}
}

// rootOf follows parent facets up to the run that has none; "" when they
// loop. Answers are remembered in m.roots.
func (m *mapper) rootOf(run string) string {
	if r, ok := m.roots[run]; ok {
		return r
	}
	seen := map[string]bool{}
	r := run
	for {
		if seen[r] {
			r = ""
			break
		}
		seen[r] = true
		up, ok := m.up[r]
		if !ok {
			break
		}
		r = up
	}
	m.roots[run] = r
	return r
}

// pipelineRun is one root run and its events.
type pipelineRun struct {
	id     string
	events []*event
}

// feedAll maps every event and feeds each pipeline run; it returns how many
// events were reordered.
func (m *mapper) feedAll(events []event) (int, error) {
	m.identify(events)
	var roots []*pipelineRun
	byRoot := map[string]*pipelineRun{}
	for i := range events {
		ev := &events[i]
		if ev.typ == typeOther || m.bad[ev.run] {
			continue
		}
		root := m.rootOf(ev.run)
		if root == "" {
			m.violate(ev, ev.run, checker.RuleConflictingRun, fmt.Sprintf("the parent facets of run %s form a loop: it has no root run", ev.run))
			continue
		}
		pr := byRoot[root]
		if pr == nil {
			pr = &pipelineRun{id: root}
			byRoot[root] = pr
			roots = append(roots, pr)
		}
		pr.events = append(pr.events, ev)
	}
	reordered := 0
	for _, pr := range roots {
		latest := pr.events[0].time
		for _, ev := range pr.events {
			if ev.time.Before(latest) {
				reordered++
			} else {
				latest = ev.time
			}
		}
		sort.SliceStable(pr.events, func(i, j int) bool { return pr.events[i].time.Before(pr.events[j].time) })
	}
	// Pipeline runs in the order of their first event (after ordering).
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].events[0].pos < roots[j].events[0].pos })
	for _, pr := range roots {
		def, fed, err := m.mapRun(pr)
		if err != nil {
			return 0, err
		}
		if err := m.feed.Run(pr.id, def, fed); err != nil {
			return 0, err
		}
	}
	return reordered, nil
}

// slot is where one OpenLineage run lands: a stage label and an attempt.
type slot struct {
	label   string
	attempt int64
}

// mapRun assigns each run under the root a stage and an attempt and returns
// the root's expected stages (nil with a definition) and its feed events.
func (m *mapper) mapRun(pr *pipelineRun) (*checker.Definition, []checker.FeedEvent, error) {
	// The jobs in order of their first event, the root's job first; the
	// runs of each job in order of their first event.
	rootJob := m.job[pr.id]
	jobs := []jobKey{rootJob}
	runsOf := map[jobKey][]string{rootJob: nil}
	first := map[string]*event{}
	for _, ev := range pr.events {
		if _, seen := first[ev.run]; seen {
			continue
		}
		first[ev.run] = ev
		j := m.job[ev.run]
		if _, ok := runsOf[j]; !ok {
			jobs = append(jobs, j)
		}
		runsOf[j] = append(runsOf[j], ev.run)
	}
	slots := map[string]slot{}
	labels := map[string]bool{}
	for _, j := range jobs {
		labels[j.label()] = true
	}
	var stages []string
	for _, j := range jobs {
		runs := runsOf[j]
		withTry := 0
		for _, r := range runs {
			if _, ok := m.try[r]; ok {
				withTry++
			}
		}
		stages = append(stages, j.label())
		switch {
		case withTry == len(runs) && withTry > 0:
			byTry := map[int64]string{}
			for _, r := range runs {
				n := m.try[r]
				if other, dup := byTry[n]; dup {
					m.violate(first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("runs %s and %s of job %s in run %s both have try_number %d", other, r, j.label(), pr.id, n))
					m.bad[r] = true
					continue
				}
				byTry[n] = r
				slots[r] = slot{j.label(), n}
			}
		case withTry > 0:
			for _, r := range runs {
				m.violate(first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("job %s in run %s has runs with and without try_number: neither attempts nor repeats", j.label(), pr.id))
				m.bad[r] = true
			}
		default:
			for k, r := range runs {
				label := j.label()
				if k > 0 {
					label = fmt.Sprintf("%s#%d", label, k+1)
					if labels[label] {
						m.violate(first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("run %s is execution %d of job %s in run %s, but %s is also the name of another job", r, k+1, j.label(), pr.id, label))
						m.bad[r] = true
						continue
					}
					labels[label] = true
					stages = append(stages, label)
				}
				slots[r] = slot{label, 1}
			}
		}
	}
	var def *checker.Definition
	if m.def == nil {
		// The checker's own constructor fills in every default of a
		// definition; then no stage depends on another.
		ids := make([]checker.StageID, len(stages))
		for i, l := range stages {
			ids[i] = checker.StrStage(l)
		}
		var err error
		if def, err = checker.LinearDefinition(ids); err != nil {
			return nil, nil, fmt.Errorf("openlineage: the stages of run %s: %v", pr.id, err)
		}
		for i := range def.Stages {
			def.Stages[i].DependsOn = []checker.StageID{}
		}
	}
	var fed []checker.FeedEvent
	for _, ev := range pr.events {
		sl, ok := slots[ev.run]
		if !ok || m.bad[ev.run] {
			continue
		}
		id := checker.StrStage(sl.label)
		if m.def != nil {
			if id, ok = m.byName[sl.label]; !ok {
				m.violate(ev, pr.id, checker.RuleUnknownStage, fmt.Sprintf("job %s is not named by the pipeline definition (named: %s)", sl.label, m.named()))
				continue
			}
		}
		fe := checker.FeedEvent{File: ev.file, Line: ev.line, Pos: ev.pos, Stage: id, Attempt: sl.attempt, Time: ev.time,
			Note: "OpenLineage " + ev.typ + " of run " + ev.run}
		switch ev.typ {
		case typeStart:
			fe.Status, fe.NeverStalls = checker.StatusStarted, m.stream[ev.run]
		case typeRunning:
			fe.Heartbeat = true
		case typeComplete:
			fe.Status = checker.StatusSucceeded
		case typeFail:
			fe.Status = checker.StatusFailed
			fe.HasError, fe.Error = ev.hasError, ev.errText
		case typeAbort:
			fe.Status, fe.HasError, fe.Error = checker.StatusFailed, true, "aborted"
			if ev.hasError {
				fe.Error = "aborted: " + ev.errText
			}
		}
		fed = append(fed, fe)
	}
	return def, fed, nil
}

func (m *mapper) named() string {
	var names []string
	for _, s := range m.def.Stages {
		names = append(names, *s.Name)
	}
	return strings.Join(names, ", ")
}
