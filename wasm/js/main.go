//go:build js && wasm

// Command greenlight.wasm (GOOS=js) is greenlight for JavaScript hosts (the
// browser viewer's Web Worker, node). It registers one function on the
// global object and then waits:
//
//	greenlightCheck(log: Uint8Array, options: object) -> {valid, headline, details, document: string} | {valid, headline, details, view: string} | {error: string}
//
// options holds strings and numbers, each optional: pipeline (the text of a
// pipeline definition, YAML or JSON), stages ("1,2", the --stages shorthand),
// now (RFC 3339 with an offset; default: the host's clock), stale_after_seconds,
// gate ("all" or "latest"), max_age (the --max-age flag: a duration such as
// "26h", or "none"), file (the log's name as the snapshot records it),
// max_line_bytes, max_violations, strict, input_format ("native" or
// "openlineage", the --input-format flag), infer_stages (the --infer-stages
// flag: an OpenLineage log's stages taken from the log), job_log (a Uint8Array holding the
// job log, the --job-log file) and job_log_file (the job log's name as
// messages and the snapshot's reconciliation record it; default "-").
// document is exactly what "greenlight check --format json" prints for the
// same log and options: the health snapshot of a valid log, or the
// violations report of an invalid one (check document's valid field, or the
// snapshot's verdict). Beside it, valid says which of the two document is,
// headline is the one-line verdict as the text output words it
// (render.Headline, or render.InvalidHeadline for an invalid log), and
// details maps each listed run's id to render.Detail's summary of why it has
// its state, so that a host shows Go's words rather than deriving its own.
// error is the one-line message the CLI prints before exiting 2.
//
// The log may be gzip or zstd compressed (told by its first bytes, as the
// CLI tells them, internal/logsource): it is read decompressed, and a
// truncated or corrupt stream is an invalid_json violation, as in the CLI.
//
// Three more options are for hosts that show the result rather than keep
// it (the viewer):
//   - sha256: the log's SHA-256 in lowercase hex, computed by the host
//     (WebCrypto is about 50 times faster than SHA-256 in WebAssembly); the
//     snapshot records it as given. An OpenLineage log and a compressed
//     log are hashed by the module (source.sha256 hashes the text), and
//     sha256 is not used.
//   - progress: a function called with the number of bytes of the log (as
//     given: for a compressed log, its compressed bytes) read so far, so
//     that it never passes the log's length and ends at it, about every MiB
//     of text and once at the end (an OpenLineage
//     log: once, at the end).
//   - max_runs_per_state: with a valid log, the result is {view} instead of
//     {document}: the snapshot document listing, in order, only the last
//     max_runs_per_state runs of each state and the latest run
//     (render.WriteSnapshotSubset); run_count and state_counts still count
//     every run.
package main

import (
	"bytes"
	"errors"
	"syscall/js"
	"time"
	// The zone database is embedded so that a schedule's IANA time zone
	// resolves in a browser, which has no zone database (docs/schedule.md).
	_ "time/tzdata"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/openlineage"
	"github.com/greenlight-ci/greenlight/checker/render"
	"github.com/greenlight-ci/greenlight/internal/logsource"
	"github.com/greenlight-ci/greenlight/internal/version"
	"github.com/greenlight-ci/greenlight/internal/words"
)

func main() {
	js.Global().Set("greenlightCheck", js.FuncOf(check))
	select {}
}

// check is greenlightCheck (the package comment says what it takes and
// returns): every error it meets is the result {error}.
func check(_ js.Value, args []js.Value) any {
	if len(args) < 1 || !args[0].InstanceOf(js.Global().Get("Uint8Array")) {
		return fail("greenlightCheck: the first argument must be a Uint8Array holding the event log")
	}
	log := make([]byte, args[0].Length())
	js.CopyBytesToGo(log, args[0])
	var opt js.Value
	if len(args) > 1 {
		opt = args[1]
	}
	c, err := readCall(opt)
	if err != nil {
		return fail(err.Error())
	}
	o, err := c.options()
	if err != nil {
		return fail(err.Error())
	}
	// A gzip or zstd log is read decompressed (internal/logsource); it
	// stays open until the result is built.
	file, err := logsource.New(c.req.File, bytes.NewReader(log))
	if err != nil {
		return fail(err.Error())
	}
	defer file.Close()
	res, err := c.check(file, o, len(log))
	if err != nil {
		return fail(err.Error())
	}
	out, err := c.result(res)
	if err != nil {
		return fail(err.Error())
	}
	return out
}

// call is one greenlightCheck's options: the checker's request, and what
// the module itself does with the host's options.
type call struct {
	req checker.Request
	// digest is the host's SHA-256 of the stored log, in lowercase hex.
	digest string
	// perState is max_runs_per_state: 0 for the whole document, else the
	// number of runs of each state the view lists.
	perState               int
	progress               js.Value
	hasProgress, hasJobLog bool
	jobLog                 []byte
}

// readCall reads greenlightCheck's options; the error is the first option
// of the wrong type or value.
func readCall(opt js.Value) (call, error) {
	in := options{v: opt}
	c := call{req: checker.Request{
		Knob:              option,
		Stages:            in.str("stages"),
		Now:               in.str("now"),
		Gate:              in.str("gate"),
		MaxAge:            in.str("max_age"),
		File:              in.str("file"),
		StaleAfterSeconds: in.bound("stale_after_seconds"),
		MaxLineBytes:      in.bound("max_line_bytes"),
		MaxViolations:     in.bound("max_violations"),
		Strict:            in.flag("strict"),
		InputFormat:       in.str("input_format"),
		InferStages:       in.flag("infer_stages"),
	}}
	if p := in.str("pipeline"); p != "" {
		c.req.Pipeline = []byte(p)
	}
	c.digest = in.str("sha256")
	c.perState = in.num("max_runs_per_state")
	if c.perState < 0 && in.err == "" {
		in.err = "greenlightCheck: option max_runs_per_state must be a whole number >= 0"
	}
	c.progress, c.hasProgress = in.get("progress", js.TypeFunction, "a function")
	c.jobLog, c.hasJobLog = in.bytes("job_log")
	jobLogFile := in.str("job_log_file")
	if jobLogFile != "" && !c.hasJobLog && in.err == "" {
		in.err = "greenlightCheck: option job_log_file names a job log, but job_log holds none"
	}
	if in.err != "" {
		return c, errors.New(in.err)
	}
	if c.req.File == "" {
		c.req.File = "-"
	}
	if c.hasJobLog {
		c.req.JobLogFile = jobLogFile
		if c.req.JobLogFile == "" {
			c.req.JobLogFile = "-"
		}
	}
	return c, nil
}

// options are the checker's options for the call: its request's, judged
// now when the request names no time.
func (c call) options() (checker.Options, error) {
	o, err := c.req.Options()
	if err != nil {
		return o, err
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	o.ToolVersion = version.Of("")
	return o, nil
}

// check checks the log file, whose stored bytes are size long, with the
// options o, the call's digest and progress (how the log is read) and
// its job log.
func (c call) check(file *logsource.File, o checker.Options, size int) (*checker.Result, error) {
	// The host's digest is of the stored bytes, so for a compressed log
	// the module hashes the text itself and source.files records the
	// host's bytes.
	var rd checker.Reading
	if file.Log.Stored == nil {
		rd.SHA256 = c.digest
	}
	if c.hasProgress {
		// The checker counts the text; a compressed log's progress is
		// the share of its own bytes the decoder has consumed.
		rd.Progress = func(n int64) {
			if stored := file.StoredRead(); stored >= 0 {
				n = stored
			}
			c.progress.Invoke(float64(n))
		}
	}
	if c.hasJobLog {
		o.JobLog = bytes.NewReader(c.jobLog)
	}
	if c.req.InputFormat != checker.FormatOpenLineage {
		return checker.CheckFiles([]checker.LogFile{file.Log}, o, rd)
	}
	res, err := openlineage.Check(file.Log.R, o)
	if err == nil && c.hasProgress {
		c.progress.Invoke(float64(size))
	}
	return res, err
}

// result is greenlightCheck's result for res: valid, headline, marks and
// details, with the whole document, or with the view of max_runs_per_state
// runs of each state.
func (c call) result(res *checker.Result) (map[string]any, error) {
	out := map[string]any{"valid": res.Report.Valid, "marks": marks()}
	if !res.Report.Valid {
		out["headline"] = render.InvalidHeadline(res.Report)
	} else {
		out["headline"] = render.Headline(res.Snapshot)
	}
	// details holds, for each run the result lists, render.Detail's words
	// on why it has its state, so the viewer derives no text of its own.
	details := map[string]any{}
	if c.perState > 0 && res.Snapshot != nil {
		view, err := stateView(res.Snapshot, c.perState, details)
		if err != nil {
			return nil, err
		}
		out["view"], out["details"] = view, details
		return out, nil
	}
	doc, err := render.Document(res)
	if err != nil {
		return nil, err
	}
	if res.Snapshot != nil {
		for r := range res.Snapshot.Runs() {
			details[r.RunID] = render.Detail(&res.Snapshot.Source, r).Summary
		}
	}
	out["document"], out["details"] = string(doc), details
	return out, nil
}

// stateView is the snapshot with the last perState runs of each state (the
// latest, as the viewer lists them latest first) and the latest run; it
// adds each listed run's details.
func stateView(snap *checker.Snapshot, perState int, details map[string]any) (string, error) {
	var view bytes.Buffer
	listed := map[checker.RunState]int{}
	latest := snap.LatestRunID
	err := render.WriteSnapshotSubset(&view, snap, func(r *checker.RunReport) bool {
		listed[r.State]++
		keep := listed[r.State] > render.StateCount(snap.StateCounts, string(r.State))-perState || (latest != nil && r.RunID == *latest)
		if keep {
			details[r.RunID] = render.Detail(&snap.Source, r).Summary
		}
		return keep
	})
	return view.String(), err
}

// marks is render.StateMarks as JavaScript values: the symbol, word,
// colour and SVG glyph of each state, so the viewer draws what every
// renderer draws, with or without an emoji font.
func marks() []any {
	var out []any
	for _, m := range render.StateMarks() {
		out = append(out, map[string]any{"state": m.State, "symbol": m.Symbol, "word": m.Word, "colour": m.Colour, "failure": m.Failure, "meaning": m.Meaning, "glyph": m.Glyph})
	}
	return out
}

func fail(msg string) map[string]any { return map[string]any{"error": msg} }

// options reads the options object; a key present with the wrong type is
// an error (fail-closed), never silently the default. Absent, null and
// undefined keys take the default.
// option is greenlightCheck's option for a checker.Request field in the
// checker's messages (Request.Knob): "stages" for Stages, "max_age" for
// MaxAge, "input_format" for InputFormat, "job_log" for JobLogFile.
func option(field string) string { return words.Knob(field, "", '_') }

type options struct {
	v   js.Value
	err string
}

func (o *options) get(key string, want js.Type, what string) (js.Value, bool) {
	if o.v.Type() != js.TypeObject {
		if o.v.Truthy() && o.err == "" {
			o.err = "greenlightCheck: the options must be an object"
		}
		return js.Value{}, false
	}
	v := o.v.Get(key)
	if v.IsUndefined() || v.IsNull() {
		return js.Value{}, false
	}
	if v.Type() != want {
		if o.err == "" {
			o.err = "greenlightCheck: option " + key + " must be " + what
		}
		return js.Value{}, false
	}
	return v, true
}

func (o *options) str(key string) string {
	v, ok := o.get(key, js.TypeString, "a string")
	if !ok {
		return ""
	}
	return v.String()
}

func (o *options) num(key string) int {
	v, ok := o.get(key, js.TypeNumber, "a whole number")
	if !ok {
		return 0
	}
	f := v.Float()
	if f != float64(int(f)) {
		if o.err == "" {
			o.err = "greenlightCheck: option " + key + " must be a whole number"
		}
		return 0
	}
	return int(f)
}

// bound reads a whole-number bound for checker.Request: nil when absent, so
// that a given 0 is refused as in every shell rather than taken for the
// default.
func (o *options) bound(key string) *int {
	if _, ok := o.get(key, js.TypeNumber, "a whole number"); !ok {
		return nil
	}
	n := o.num(key)
	return &n
}

// bytes reads a Uint8Array option into a copy in Go memory.
func (o *options) bytes(key string) ([]byte, bool) {
	v, ok := o.get(key, js.TypeObject, "a Uint8Array")
	if !ok {
		return nil, false
	}
	if !v.InstanceOf(js.Global().Get("Uint8Array")) {
		if o.err == "" {
			o.err = "greenlightCheck: option " + key + " must be a Uint8Array"
		}
		return nil, false
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return b, true
}

func (o *options) flag(key string) bool {
	v, ok := o.get(key, js.TypeBoolean, "true or false")
	return ok && v.Bool()
}
