package openlineage

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Event types of the OpenLineage standard.
const (
	typeStart    = "START"
	typeRunning  = "RUNNING"
	typeComplete = "COMPLETE"
	typeAbort    = "ABORT"
	typeFail     = "FAIL"
	typeOther    = "OTHER"
)

// Kinds of OpenLineage event (spec/OpenLineage.json 2-0-2: the top-level
// oneOf of RunEvent, DatasetEvent and JobEvent), as messages name them.
const (
	kindRun     = "RunEvent"
	kindDataset = "DatasetEvent"
	kindJob     = "JobEvent"
)

// jobKey is an OpenLineage job: its namespace and name.
type jobKey struct{ namespace, name string }

// label is how greenlight names the job as a stage: namespace/name.
func (j jobKey) label() string { return j.namespace + "/" + j.name }

type runRef struct {
	RunID string `json:"runId"`
}

type jobRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (j jobRef) key() jobKey { return jobKey{j.Namespace, j.Name} }

// wireEvent is the part of a RunEvent greenlight reads, as JSON. Field
// names match case-sensitively, as the schema validator matches them.
type wireEvent struct {
	EventType string `json:"eventType"`
	EventTime string `json:"eventTime"`
	Run       struct {
		RunID  string `json:"runId"`
		Facets struct {
			Parent *struct {
				Run  runRef `json:"run"`
				Job  jobRef `json:"job"`
				Root *struct {
					Run runRef `json:"run"`
					Job jobRef `json:"job"`
				} `json:"root"`
			} `json:"parent"`
			ErrorMessage *struct {
				Message string `json:"message"`
			} `json:"errorMessage"`
			NominalTime *struct {
				NominalStartTime string `json:"nominalStartTime"`
			} `json:"nominalTime"`
			Airflow *struct {
				TaskInstance *struct {
					TryNumber *float64 `json:"try_number"`
					MapIndex  *float64 `json:"map_index"`
				} `json:"taskInstance"`
			} `json:"airflow"`
			DataQualityAssertions *assertionsFacet `json:"dataQualityAssertions"`
		} `json:"facets"`
	} `json:"run"`
	Inputs []struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Facets    struct {
			DataQualityAssertions *assertionsFacet `json:"dataQualityAssertions"`
		} `json:"facets"`
		InputFacets struct {
			DataQualityAssertions *assertionsFacet `json:"dataQualityAssertions"`
		} `json:"inputFacets"`
	} `json:"inputs"`
	Job struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Facets    struct {
			JobType *struct {
				ProcessingType string `json:"processingType"`
			} `json:"jobType"`
		} `json:"facets"`
	} `json:"job"`
}

// assertionsFacet is OpenLineage's DataQualityAssertionsDatasetFacet, as
// greenlight reads it on a run or an input dataset. Its members are read
// as any JSON value, so that a producer's odd shape is not a reason to
// refuse the event: an assertion whose success is anything but true is a
// failed one.
type assertionsFacet struct {
	Assertions []struct {
		Assertion any `json:"assertion"`
		Success   any `json:"success"`
		Column    any `json:"column"`
	} `json:"assertions"`
}

// maxAssertionsNamed is how many failed assertions an attempt's error
// names; it counts the rest.
const maxAssertionsNamed = 3

// failedAssertions appends to out, for each assertion of f whose success
// is not true, a phrase naming it, its column if given, and where it was
// found (on, e.g. "dataset ns/name" or "the run").
func (f *assertionsFacet) failedAssertions(on string, out []string) []string {
	if f == nil {
		return out
	}
	for _, a := range f.Assertions {
		if a.Success == true {
			continue
		}
		name, _ := a.Assertion.(string)
		if name == "" {
			name = "(unnamed)"
		}
		phrase := fmt.Sprintf("assertion %s", name)
		if col, ok := a.Column.(string); ok && col != "" {
			phrase += " on column " + col
		}
		phrase += " of " + on
		if a.Success != false {
			phrase += " (success is not true)"
		}
		out = append(out, phrase)
	}
	return out
}

// event is one schema-valid OpenLineage event, read.
type event struct {
	rawEvent
	kind      string // kindRun, kindDataset or kindJob
	typ       string // eventType; "" when absent
	time      time.Time
	run       string // runId, lower case
	job       jobKey
	parent    string // parent runId, "" when there is no parent facet
	parentJob jobKey
	root      string // parent.root runId, "" when absent
	rootJob   jobKey
	hasTry    bool
	try       int64
	hasMap    bool  // map_index is given
	mapIndex  int64 // -1: a task that is not mapped
	hasError  bool
	errText   string
	// hasNominal and nominal are the nominalTime facet's nominalStartTime,
	// the run's logical time: it becomes the scheduled_for of the events
	// the run feeds.
	hasNominal bool
	nominal    time.Time
	// failedChecks names the failed data quality assertions of the run's
	// facets and its input datasets' facets (failedAssertions).
	failedChecks []string
	streaming    bool
}

// decodeEvent validates the event raw, given as its projection proj (see
// readEvent), against schemas/openlineage-runevent.schema.json and reads it.
// msg says why it was refused.
func decodeEvent(schema *schemas.Schema, raw rawEvent, proj []byte) (ev event, msg string, ok bool) {
	inst, err := schemas.Instance(proj)
	if err != nil {
		return ev, "not valid JSON: " + err.Error(), false
	}
	kind := kindOf(inst)
	if m, ok := validate(schema, inst); !ok {
		return ev, "the " + kindPhrase(kind) + " does not match openlineage-runevent.schema.json: " + m, false
	}
	var w wireEvent
	if err := json.Unmarshal(proj, &w); err != nil {
		return ev, "the event was refused by the compiled reader: " + err.Error(), false
	}
	t, err := checker.ParseTime(w.EventTime)
	if err != nil {
		return ev, "the event was refused by the compiled reader: eventTime " + err.Error(), false
	}
	ev = event{rawEvent: raw, kind: kind, typ: w.EventType, time: t, run: strings.ToLower(w.Run.RunID), job: jobKey{w.Job.Namespace, w.Job.Name}}
	if kind != kindRun {
		return ev, "", true // design-time metadata: nothing else is read
	}
	f := &w.Run.Facets
	if p := f.Parent; p != nil {
		ev.parent, ev.parentJob = strings.ToLower(p.Run.RunID), p.Job.key()
		if p.Root != nil {
			ev.root, ev.rootJob = strings.ToLower(p.Root.Run.RunID), p.Root.Job.key()
		}
	}
	if f.ErrorMessage != nil {
		ev.hasError, ev.errText = true, f.ErrorMessage.Message
	}
	if n := f.NominalTime; n != nil && n.NominalStartTime != "" {
		t, err := checker.ParseTime(n.NominalStartTime)
		if err != nil {
			return ev, "the event was refused by the compiled reader: nominalTime.nominalStartTime " + err.Error(), false
		}
		ev.hasNominal, ev.nominal = true, t
	}
	ev.failedChecks = f.DataQualityAssertions.failedAssertions("the run", nil)
	for _, in := range w.Inputs {
		on := "dataset " + in.Namespace + "/" + in.Name
		ev.failedChecks = in.Facets.DataQualityAssertions.failedAssertions(on, ev.failedChecks)
		ev.failedChecks = in.InputFacets.DataQualityAssertions.failedAssertions(on, ev.failedChecks)
	}
	if a := f.Airflow; a != nil && a.TaskInstance != nil {
		if p := a.TaskInstance.TryNumber; p != nil {
			n := *p
			if n != math.Trunc(n) || n < 1 || n > math.MaxInt32 {
				return ev, "the event was refused by the compiled reader: try_number is not an integer in range", false
			}
			ev.hasTry, ev.try = true, int64(n)
		}
		if p := a.TaskInstance.MapIndex; p != nil {
			n := *p
			if n != math.Trunc(n) || n < -1 || n > math.MaxInt32 {
				return ev, "the event was refused by the compiled reader: map_index is not an integer in range", false
			}
			ev.hasMap, ev.mapIndex = true, int64(n)
		}
	}
	if jt := w.Job.Facets.JobType; jt != nil {
		p := strings.ToUpper(jt.ProcessingType)
		ev.streaming = p == "STREAMING" || p == "SERVICE"
	}
	return ev, "", true
}

// kindOf tells the kind of an event as the schema does: with run a
// RunEvent; without, with dataset a DatasetEvent; else a JobEvent.
func kindOf(inst any) string {
	m, _ := inst.(map[string]any)
	if _, ok := m["run"]; ok {
		return kindRun
	}
	if _, ok := m["dataset"]; ok {
		return kindDataset
	}
	return kindJob
}

// kindPhrase names the kind for a message; an event with neither run nor
// dataset is read as a JobEvent, and the message says why.
func kindPhrase(kind string) string {
	if kind == kindJob {
		return "event (a JobEvent, as it has neither run nor dataset)"
	}
	return kind
}

// ignored names what an event is when it is no state transition of a run,
// "" when it is one: an OTHER RunEvent, a RunEvent without eventType, a
// DatasetEvent or a JobEvent. Such an event is validated and counted, and
// changes nothing.
func (ev *event) ignored() string {
	switch {
	case ev.kind != kindRun:
		return ev.kind
	case ev.typ == "":
		return "RunEvent without eventType"
	case ev.typ == typeOther:
		return "OTHER RunEvent"
	}
	return ""
}

// longNumber finds, in the projection of an event (the members greenlight
// reads), a number written with more than eventline.MaxNumberChars
// characters, and returns its JSON pointer and literal; "" when there is
// none. Such a number is refused before the schema validator, whose exact
// arithmetic on a 900,000-digit try_number took seconds (outside
// review), as a native event's is.
func longNumber(proj []byte) (ptr, lit string) {
	dec := jsontext.NewDecoder(bytes.NewReader(proj))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", ""
		}
		if tok.Kind() == '0' {
			if s := tok.String(); len(s) > eventline.MaxNumberChars {
				return string(dec.StackPointer()), s
			}
		}
	}
}

// longNumberMessage is the violation's message for longNumber's find.
func longNumberMessage(ptr, lit string) string {
	return fmt.Sprintf("the event breaks the event contract: at %s: a number in a field greenlight reads is written with at most %d characters, and this one has %d (%.24s…)", ptr, eventline.MaxNumberChars, len(lit), lit)
}

// validate runs the schema validator (schemas.Validate, which also refuses
// a number the validator cannot represent) and words its error.
func validate(schema *schemas.Schema, inst any) (msg string, ok bool) {
	if err := schemas.Validate(schema, inst); err != nil {
		return eventline.SchemaErrorText(err, inst), false
	}
	return "", true
}
