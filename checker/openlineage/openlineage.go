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
	"math"
	"sort"
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/internal/limits"
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
		return opts, errors.New("openlineage: Options.Strict applies to the native event contract only; OpenLineage events carry facets greenlight does not read")
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = limits.DefaultMaxLineBytes
	}
	if opts.MaxViolations <= 0 {
		opts.MaxViolations = limits.DefaultMaxViolations
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
		IgnoredEvents:   &m.ignored,
		JobAliases:      m.aliases(),
	})
	return res, nil
}

// mapper turns OpenLineage runs into pipeline runs, stages and attempts.
type mapper struct {
	feed *checker.Feed
	def  *checker.Definition
	// byName maps a job label to the definition's stage id (with a definition).
	byName map[string]checker.StageID
	// What the log says of each runId (lower case), and the runIds in the
	// order they were first mentioned.
	runs  map[string]*runInfo
	order []string
	// tops is the run at the top of each run's parent chain ("" in a
	// loop), remembered for every run on each path walked.
	tops map[string]string
	// claimed is the root that parent.root facets give the top of a chain
	// that the log does not close (a run known only from facets), and the
	// facet that first gave it.
	claimed map[string]rootClaim
	steps   int // runs visited by chainTop, which a test keeps linear
	ignored checker.IgnoredEvents
}

// source is where something the mapper knows of a run was said: an event of
// the run itself (facet "") or the parent or root facet of another run's
// event.
type source struct {
	file  string
	line  int
	pos   int
	typ   string // the event's eventType
	run   string // the run whose event it is
	facet string // "", "parent" or "root"
}

func sourceOf(ev *event, facet string) source {
	return source{file: ev.file, line: ev.line, pos: ev.pos, typ: ev.typ, run: ev.run, facet: facet}
}

// describe says where s is, for a message about the event here: its file
// only when it differs.
func (s source) describe(here *event) string {
	where := fmt.Sprintf("line %d", s.line)
	if s.file != here.file {
		where = fmt.Sprintf("%s:%d", s.file, s.line)
	}
	switch s.facet {
	case "":
		return fmt.Sprintf("its own %s event at %s", s.typ, where)
	case "root":
		return fmt.Sprintf("the parent.root facet of run %s at %s", s.run, where)
	}
	return fmt.Sprintf("the parent facet of run %s at %s", s.run, where)
}

// named is one name the log gives a run's job, where it was first given.
type named struct {
	job jobKey
	src source
}

// runInfo is what the log says of one runId. A run is its runId (the spec's
// Run.runId and RootRun.runId are the run's identity): its own events name
// its job; a parent or root facet that names it differently gives an alias,
// never a conflict.
type runInfo struct {
	own      *named  // the job its own events name
	facet    []named // each other name the facets give, in order
	parent   string  // its parent runId, "" when none
	parentAt source
	root     string // its parent.root runId, "" when none
	rootAt   source
	hasTry   bool
	try      int64
	tryAt    source
	hasMap   bool
	mapIndex int64 // -1 when not mapped
	mapAt    source
	stream   bool
	selfRoot bool // a parent.root facet of its own names it: it is a root
	bad      bool // its events are not fed
}

// job is the name greenlight gives the run's job: its own events' name;
// without any, the first name a parent facet gives, else a root facet's.
func (ri *runInfo) job() jobKey {
	if ri.own != nil {
		return ri.own.job
	}
	for _, n := range ri.facet {
		if n.src.facet == "parent" {
			return n.job
		}
	}
	if len(ri.facet) > 0 {
		return ri.facet[0].job
	}
	return jobKey{}
}

// top reports whether the run is the top of its parent chain as its own
// events show it: it names itself as root, or it logged and its events
// name no other parent.
func (ri *runInfo) top() bool {
	return ri.selfRoot || (ri.parent == "" && ri.own != nil)
}

// mapped is the run's Airflow map_index, -1 when it is not a mapped task.
func (ri *runInfo) mapped() int64 {
	if ri.hasMap && ri.mapIndex >= 0 {
		return ri.mapIndex
	}
	return -1
}

func newMapper(feed *checker.Feed, def *checker.Definition) *mapper {
	m := &mapper{feed: feed, def: def, runs: map[string]*runInfo{}, tops: map[string]string{}, claimed: map[string]rootClaim{}}
	if def != nil {
		m.byName = map[string]checker.StageID{}
		for _, s := range def.Stages {
			m.byName[*s.Name] = s.ID
		}
	}
	return m
}

func (m *mapper) info(run string) *runInfo {
	ri := m.runs[run]
	if ri == nil {
		ri = &runInfo{mapIndex: -1}
		m.runs[run] = ri
		m.order = append(m.order, run)
	}
	return ri
}

func (m *mapper) violate(ev *event, run string, rule checker.RuleID, msg string) {
	m.feed.Violate(ev.pos, checker.Violation{File: ev.file, Line: ev.line, Rule: rule, Message: msg, RunID: run})
}

// conflict reports that the event ev says something of its run that an
// earlier event of the run contradicts.
func (m *mapper) conflict(ev *event, format string, args ...any) {
	m.violate(ev, ev.run, checker.RuleConflictingRun, fmt.Sprintf(format, args...))
}

// noteFacetName records a name that a facet of ev gives the run id.
func (m *mapper) noteFacetName(ev *event, id string, job jobKey, facet string) {
	ri := m.info(id)
	for _, n := range ri.facet {
		if n.job == job {
			return
		}
	}
	ri.facet = append(ri.facet, named{job, sourceOf(ev, facet)})
}

// identify records each run's job, parent, root, try_number, map_index and
// processing type, reporting conflicting_run where a run's own events
// disagree.
func (m *mapper) identify(events []event) {
	for i := range events {
		ev := &events[i]
		if ev.ignored() != "" {
			continue
		}
		ri := m.info(ev.run)
		ok := true
		switch {
		case ri.own == nil:
			ri.own = &named{ev.job, sourceOf(ev, "")}
		case ri.own.job != ev.job:
			m.conflict(ev, "run %s is job %s in this %s event, but job %s in %s", ev.run, ev.job.label(), ev.typ, ri.own.job.label(), ri.own.src.describe(ev))
			ok = false
		}
		parent, root := ev.parent, ev.root
		if parent == ev.run {
			parent = "" // a run that names itself as its parent is a root
		}
		if root == ev.run {
			root, ri.selfRoot = "", true // a run that names itself as root is a root
		}
		if parent != "" {
			m.noteFacetName(ev, parent, ev.parentJob, "parent")
			switch {
			case ri.parent == "":
				ri.parent, ri.parentAt = parent, sourceOf(ev, "")
			case ri.parent != parent:
				m.conflict(ev, "run %s has parent run %s in this %s event, but parent run %s in %s", ev.run, parent, ev.typ, ri.parent, ri.parentAt.describe(ev))
				ok = false
			}
		}
		if root != "" {
			m.noteFacetName(ev, root, ev.rootJob, "root")
			switch {
			case ri.root == "":
				ri.root, ri.rootAt = root, sourceOf(ev, "")
			case ri.root != root:
				m.conflict(ev, "run %s has root run %s in this %s event, but root run %s in %s", ev.run, root, ev.typ, ri.root, ri.rootAt.describe(ev))
				ok = false
			}
		}
		if ev.hasTry {
			switch {
			case !ri.hasTry:
				ri.hasTry, ri.try, ri.tryAt = true, ev.try, sourceOf(ev, "")
			case ri.try != ev.try:
				m.conflict(ev, "run %s has try_number %d in this %s event, but %d in %s", ev.run, ev.try, ev.typ, ri.try, ri.tryAt.describe(ev))
				ok = false
			}
		}
		if ev.hasMap {
			switch {
			case !ri.hasMap:
				ri.hasMap, ri.mapIndex, ri.mapAt = true, ev.mapIndex, sourceOf(ev, "")
			case ri.mapIndex != ev.mapIndex:
				m.conflict(ev, "run %s has map_index %d in this %s event, but %d in %s", ev.run, ev.mapIndex, ev.typ, ri.mapIndex, ri.mapAt.describe(ev))
				ok = false
			}
		}
		if ev.streaming {
			ri.stream = true
		}
		if !ok {
			ri.bad = true
		}
	}
}

// aliases lists, for every run in the order first mentioned, each name a
// facet gives its job other than the one greenlight uses.
func (m *mapper) aliases() []checker.JobAlias {
	var out []checker.JobAlias
	for _, id := range m.order {
		ri := m.runs[id]
		job := ri.job()
		for _, n := range ri.facet {
			if n.job != job {
				out = append(out, checker.JobAlias{RunID: id, Job: job.label(), Alias: n.job.label(), Facet: n.src.facet, InRun: n.src.run, Line: n.src.pos})
			}
		}
	}
	return out
}

// chainTop follows parent facets from run up to the run whose own events
// name no parent (or name itself as root), or to a run the log knows only
// from facets; "" when they loop. The answer is remembered for every run
// on the path, so walking every run of a chain is linear in its length.
func (m *mapper) chainTop(run string) string {
	var path []string
	r := run
	top := ""
	for {
		m.steps++
		if t, ok := m.tops[r]; ok {
			if t != walking {
				top = t
			} // else a loop: top stays ""
			break
		}
		path = append(path, r)
		m.tops[r] = walking
		ri := m.runs[r]
		if ri == nil || ri.selfRoot || ri.parent == "" {
			top = r
			break
		}
		r = ri.parent
	}
	for _, p := range path {
		m.tops[p] = top
	}
	return top
}

// walking marks in mapper.tops a run on the path chainTop is walking; no
// runId is spelled so.
const walking = "\x00"

// rootClaim is the root run a parent.root facet names, and where.
type rootClaim struct {
	root string
	at   source
	run  string // the run whose facet it is
}

// checkRoots compares each run's parent.root facet with the root its parent
// chain reaches (ParentRunFacet: root is "the root run of the job
// hierarchy", which the chain of parents leads to). Where the log shows the
// top of the chain (a run whose own events name no parent), the facet must
// name that run. Where the chain ends at a run known only from facets, the
// facet names the root above it: every facet naming a root for that chain
// must name the same run, and that run must be a root itself. Each
// disagreement is conflicting_run, naming both roots, and the run's events
// are not fed.
func (m *mapper) checkRoots() {
	for _, id := range m.order {
		ri := m.runs[id]
		if ri.root == "" || ri.bad {
			continue
		}
		t := m.chainTop(id)
		if t == "" {
			continue // a loop: reported when its events are fed
		}
		if ti := m.runs[t]; ti != nil && ti.top() {
			if t != ri.root {
				m.conflictAt(ri.rootAt, id, fmt.Sprintf("run %s names root run %s in its parent.root facet, but its parent facets lead to root run %s%s", id, ri.root, t, m.via(id, t)))
			}
			continue
		}
		if ft := m.chainTop(ri.root); ft != ri.root {
			parent := ""
			if fi := m.runs[ri.root]; fi != nil {
				parent = fi.parent
			}
			m.conflictAt(ri.rootAt, id, fmt.Sprintf("run %s names root run %s in its parent.root facet, but run %s is not a root: its own events name parent run %s", id, ri.root, ri.root, parent))
			continue
		}
		c := rootClaim{ri.root, ri.rootAt, id}
		ok := true
		for _, k := range []string{t, ri.root} {
			if prev, seen := m.claimed[k]; seen && prev.root != c.root {
				m.conflictAt(ri.rootAt, id, fmt.Sprintf("run %s names root run %s in its parent.root facet, but run %s names root run %s for the same parent chain (through run %s) in %s", id, c.root, prev.run, prev.root, k, describeAt(prev.at, ri.rootAt)))
				ok = false
				break
			}
		}
		if ok {
			m.claimed[t] = c
			m.claimed[ri.root] = c
		}
	}
}

// via names the parent that leads from run to its chain's top t, when that
// is not t itself.
func (m *mapper) via(run, t string) string {
	if p := m.runs[run].parent; p != "" && p != t {
		return " (through parent run " + p + ")"
	}
	return ""
}

// describeAt says where s is, for a message about the event at here.
func describeAt(s, here source) string {
	ev := &event{}
	ev.file = here.file
	return s.describe(ev)
}

// conflictAt reports conflicting_run at the event at src of run, whose
// events are then not fed.
func (m *mapper) conflictAt(src source, run, msg string) {
	m.feed.Violate(src.pos, checker.Violation{File: src.file, Line: src.line, Rule: checker.RuleConflictingRun, Message: msg, RunID: run})
	m.runs[run].bad = true
}

// rootOf is the pipeline run's root for run: the top of its parent chain,
// or the root that parent.root facets give a top the log knows only from
// facets; "" when the chain loops.
func (m *mapper) rootOf(run string) string {
	t := m.chainTop(run)
	if c, ok := m.claimed[t]; ok {
		return c.root
	}
	return t
}

// pipelineRun is one root run and its events.
type pipelineRun struct {
	id     string
	events []*event
}

// count adds an event that is no state transition to the ignored counts.
func (m *mapper) count(ev *event) {
	c := &m.ignored
	switch {
	case ev.kind == kindDataset:
		c.DatasetEvent++
	case ev.kind == kindJob:
		c.JobEvent++
	case ev.typ == "":
		c.NoEventType++
	default:
		c.Other++
	}
}

// feedAll maps every event and feeds each pipeline run; it returns how many
// events were reordered.
func (m *mapper) feedAll(events []event) (int, error) {
	m.identify(events)
	m.checkRoots()
	var roots []*pipelineRun
	byRoot := map[string]*pipelineRun{}
	for i := range events {
		ev := &events[i]
		if ev.ignored() != "" {
			m.count(ev)
			continue
		}
		if m.runs[ev.run].bad {
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
		order(pr.events)
		// An event was reordered when an event before it in the input is
		// applied after it.
		minPos := math.MaxInt
		for i := len(pr.events) - 1; i >= 0; i-- {
			ev := pr.events[i]
			if minPos < ev.pos {
				reordered++
			}
			minPos = min(minPos, ev.pos)
		}
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

// order puts the events of one pipeline run, given in input order, in the
// order they are applied: by eventTime; at one eventTime, the events of one
// run by its run cycle (START, then RUNNING, then a terminal event, the
// only order a run can go through), keeping the places the run's events
// hold among the other runs' events; otherwise in input order.
func order(evs []*event) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].time.Before(evs[j].time) })
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].time.Equal(evs[i].time) {
			j++
		}
		if j-i > 1 {
			cycleOrder(evs[i:j])
		}
		i = j
	}
}

// cycleOrder orders the events of each run among tie, events at one
// instant, by the run cycle, leaving every other event in its place.
func cycleOrder(tie []*event) {
	places := map[string][]int{}
	var runs []string
	for k, ev := range tie {
		if places[ev.run] == nil {
			runs = append(runs, ev.run)
		}
		places[ev.run] = append(places[ev.run], k)
	}
	for _, r := range runs {
		ks := places[r]
		if len(ks) < 2 {
			continue
		}
		evs := make([]*event, len(ks))
		for a, k := range ks {
			evs[a] = tie[k]
		}
		sort.SliceStable(evs, func(a, b int) bool { return cycleStep(evs[a].typ) < cycleStep(evs[b].typ) })
		for a, k := range ks {
			tie[k] = evs[a]
		}
	}
}

// cycleStep is an event type's place in the run cycle (website/docs/spec/
// run-cycle.md): START, then RUNNING, then COMPLETE, FAIL or ABORT.
func cycleStep(typ string) int {
	switch typ {
	case typeStart:
		return 0
	case typeRunning:
		return 1
	}
	return 2
}

// slot is where one OpenLineage run lands: a stage label and an attempt.
type slot struct {
	label   string
	attempt int64
}

// stageKey is what one stage stands for: a job and, for a mapped Airflow
// task, its map index.
type stageKey struct {
	job      jobKey
	mapIndex int64
}

// label is the stage name: namespace/name, with [i] for map index i.
func (k stageKey) label() string {
	if k.mapIndex >= 0 {
		return fmt.Sprintf("%s[%d]", k.job.label(), k.mapIndex)
	}
	return k.job.label()
}

// String describes the stage for a message: "job ns/name", with
// "map_index i" for a mapped task.
func (k stageKey) String() string {
	if k.mapIndex >= 0 {
		return fmt.Sprintf("job %s, map_index %d", k.job.label(), k.mapIndex)
	}
	return "job " + k.job.label()
}

// groupKey is what makes runs the attempts (with try_number) or the repeats
// (without) of one stage: they are siblings, runs of one job and map index
// under one parent. A child is never grouped with its parent, whatever its
// job: its outcome is not its parent's.
type groupKey struct {
	stage  stageKey
	parent string
}

// execution is the label of execution n (1-based) of a stage labelled base.
func execution(base string, n int) string {
	if n == 1 {
		return base
	}
	return fmt.Sprintf("%s#%d", base, n)
}

// mapRun assigns each run under the root a stage and an attempt and returns
// the root's expected stages (nil with a definition) and its feed events.
// The root run is a stage of its own, whether or not it logged.
func (m *mapper) mapRun(pr *pipelineRun) (*checker.Definition, []checker.FeedEvent, error) {
	l := m.groupRuns(pr)
	slots, stages := l.assign()
	var def *checker.Definition
	if m.def == nil {
		// The checker's own constructor fills in every default of a
		// definition; then no stage depends on another.
		ids := make([]checker.StageID, len(stages))
		for i, label := range stages {
			ids[i] = checker.StrStage(label)
		}
		var err error
		if def, err = checker.LinearDefinition(ids); err != nil {
			return nil, nil, fmt.Errorf("openlineage: the stages of run %s: %v", pr.id, err)
		}
		for i := range def.Stages {
			def.Stages[i].DependsOn = []checker.StageID{}
		}
	}
	return def, m.feedEvents(pr, slots), nil
}

// runGroup is the runs of one stage under a root run: siblings of one job
// and map index under one parent (groupKey), in order of their first
// event.
type runGroup struct {
	key   groupKey
	runs  []string
	clash *stageKey // the stage whose label it has, if any
}

// stageLabels gives the runs under one root run their stages' labels: the
// root's group first, then the other groups in order of their first event.
type stageLabels struct {
	m      *mapper
	pr     *pipelineRun
	groups []*runGroup
	// owner is the stage that has each label, first each run's first
	// event (for violations), next the executions of each stage labelled.
	owner map[string]stageKey
	first map[string]*event
	next  map[stageKey]int
}

// groupRuns groups the runs under pr by stage: the root first, then the
// other runs' groups in order of their first event, the runs of a group in
// order of theirs. A group whose stage's label another stage has first
// clashes.
func (m *mapper) groupRuns(pr *pipelineRun) *stageLabels {
	rootInfo := m.info(pr.id)
	root := &runGroup{key: groupKey{stage: stageKey{rootInfo.job(), rootInfo.mapped()}}}
	l := &stageLabels{m: m, pr: pr, groups: []*runGroup{root},
		owner: map[string]stageKey{root.key.stage.label(): root.key.stage}, first: map[string]*event{}, next: map[stageKey]int{}}
	byKey := map[groupKey]*runGroup{}
	for _, ev := range pr.events {
		if _, seen := l.first[ev.run]; seen {
			continue
		}
		l.first[ev.run] = ev
		if ev.run == pr.id {
			root.runs = []string{pr.id}
			continue
		}
		ri := m.runs[ev.run]
		k := groupKey{stageKey{ri.job(), ri.mapped()}, ri.parent}
		g := byKey[k]
		if g == nil {
			g = &runGroup{key: k}
			if other, taken := l.owner[k.stage.label()]; taken && other != k.stage {
				g.clash = &other
			} else {
				l.owner[k.stage.label()] = k.stage
			}
			byKey[k] = g
			l.groups = append(l.groups, g)
		}
		g.runs = append(g.runs, ev.run)
	}
	return l
}

// claim takes the label of the next execution of g's stage for its run r
// (a second group of siblings of one job, e.g. a child with its parent's
// job, is execution 2); false (reported) when another job has that name.
func (l *stageLabels) claim(g *runGroup, r string) (string, bool) {
	sk, pr := g.key.stage, l.pr
	if g.clash != nil {
		l.m.violate(l.first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("run %s (%s) in run %s would be stage %s, but that is the stage of %s", r, sk, pr.id, sk.label(), *g.clash))
		return "", false
	}
	l.next[sk]++
	n := l.next[sk]
	label := execution(sk.label(), n)
	if n == 1 {
		return label, true
	}
	if _, taken := l.owner[label]; taken {
		l.m.violate(l.first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("run %s is execution %d of job %s in run %s, but %s is also the name of another job", r, n, sk.label(), pr.id, label))
		return "", false
	}
	l.owner[label] = sk
	return label, true
}

// assign gives each run its slot (stage label and attempt) and lists the
// stages' labels in order. A group whose runs all have try_number is one
// stage whose attempts they are; one whose runs have none is a stage per
// run (repeats); a mix is neither, and each of its runs is reported. A run
// that gets no slot is marked bad.
func (l *stageLabels) assign() (map[string]slot, []string) {
	m, pr := l.m, l.pr
	slots := map[string]slot{}
	root := l.groups[0]
	label, _ := l.claim(root, pr.id) // the first label: never taken
	stages := []string{label}
	if len(root.runs) > 0 {
		slots[pr.id] = slot{label, 1}
	}
	for _, g := range l.groups[1:] {
		withTry := 0
		for _, r := range g.runs {
			if m.runs[r].hasTry {
				withTry++
			}
		}
		switch {
		case withTry == len(g.runs):
			label, ok := l.claim(g, g.runs[0])
			if !ok {
				for _, r := range g.runs {
					m.runs[r].bad = true
				}
				continue
			}
			stages = append(stages, label)
			byTry := map[int64]string{}
			for _, r := range g.runs {
				n := m.runs[r].try
				if other, dup := byTry[n]; dup {
					m.violate(l.first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("runs %s and %s of job %s in run %s both have try_number %d", other, r, g.key.stage.label(), pr.id, n))
					m.runs[r].bad = true
					continue
				}
				byTry[n] = r
				slots[r] = slot{label, n}
			}
		case withTry > 0:
			for _, r := range g.runs {
				m.violate(l.first[r], pr.id, checker.RuleAmbiguousAttempt, fmt.Sprintf("job %s in run %s has runs with and without try_number: neither attempts nor repeats", g.key.stage.label(), pr.id))
				m.runs[r].bad = true
			}
		default:
			for _, r := range g.runs {
				label, ok := l.claim(g, r)
				if !ok {
					m.runs[r].bad = true
					continue
				}
				stages = append(stages, label)
				slots[r] = slot{label, 1}
			}
		}
	}
	return slots, stages
}

// feedEvents turns the events of the runs under pr that got a slot into
// feed events: a START starts the attempt, RUNNING is a heartbeat,
// COMPLETE succeeds it (or fails it, completeFailure), FAIL and ABORT fail
// it. With a definition, a job it does not name is reported.
func (m *mapper) feedEvents(pr *pipelineRun, slots map[string]slot) []checker.FeedEvent {
	var fed []checker.FeedEvent
	for _, ev := range pr.events {
		sl, ok := slots[ev.run]
		if !ok || m.runs[ev.run].bad {
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
			Note: "OpenLineage " + ev.typ + " of run " + ev.run, HasScheduledFor: ev.hasNominal, ScheduledFor: ev.nominal}
		switch ev.typ {
		case typeStart:
			fe.Status, fe.NeverStalls = checker.StatusStarted, m.runs[ev.run].stream
		case typeRunning:
			fe.Heartbeat = true
		case typeComplete:
			fe.Status = checker.StatusSucceeded
			if text, failed := completeFailure(ev); failed {
				fe.Status, fe.HasError, fe.Error = checker.StatusFailed, true, text
			}
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
	return fed
}

// completeFailure says whether a COMPLETE event proves a failure rather
// than a success, and the failed attempt's error: an errorMessage facet on
// a COMPLETE, or a data quality assertion whose success is not true, on
// the run or on an input dataset. OpenLineage treats such a COMPLETE as a
// producer bug and now emits FAIL for it (OpenLineage/OpenLineage PR
// #4523); a success that reports its own failed checks proves nothing.
func completeFailure(ev *event) (string, bool) {
	var parts []string
	if ev.hasError {
		parts = append(parts, "COMPLETE with an errorMessage: "+ev.errText)
	}
	if n := len(ev.failedChecks); n > 0 {
		named := ev.failedChecks[:min(n, maxAssertionsNamed)]
		text := "COMPLETE with failed data quality " + strings.Join(named, "; ")
		if n > len(named) {
			text += fmt.Sprintf("; and %d more", n-len(named))
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; "), len(parts) > 0
}

func (m *mapper) named() string {
	var names []string
	for _, s := range m.def.Stages {
		names = append(names, *s.Name)
	}
	return strings.Join(names, ", ")
}
