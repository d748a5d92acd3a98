package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
	"github.com/greenlight-ci/greenlight/checker/internal/runstore"
	"github.com/greenlight-ci/greenlight/schemas"
)

// Inconsistency codes of the job-log reconciliation (docs/recovery.md).
const (
	// OutcomeMismatch: the orchestrator log and the job log disagree on an
	// attempt's outcome; the run becomes unknown.
	OutcomeMismatch = "OUTCOME_MISMATCH"
	// JobLogOrphan: a job-log record for an attempt_id the orchestrator
	// never logged.
	JobLogOrphan = "JOB_LOG_ORPHAN"
	// JobLogConflict: job-log records of one attempt_id that disagree.
	JobLogConflict = "JOB_LOG_CONFLICT"
	// JobLogOutOfTime: a job-log record dated before the start of the
	// attempt it names, or later than now plus the allowed clock skew; it is
	// not evidence for the attempt, which stays as the event log shows it
	// (docs/recovery.md, from the outside review of main).
	JobLogOutOfTime = "JOB_LOG_OUT_OF_TIME"
)

// Reconciliation is the comparison of the event log with the job log: the
// job log's path, the SHA-256 (lowercase hex) and length in bytes of what
// was read from it, its record count, how many attempts were adjudicated
// from it, and every disagreement, in job-log line order. The digest and
// length identify the evidence the snapshot used, as Source does for the
// event log (docs/recovery.md, the job log).
type Reconciliation struct {
	JobLog          string          `json:"job_log"`
	SHA256          string          `json:"sha256"`
	ByteCount       int64           `json:"byte_count"`
	RecordCount     int             `json:"record_count"`
	AdoptedCount    int             `json:"adopted_count"`
	Inconsistencies []Inconsistency `json:"inconsistencies"`
}

// Inconsistency is one disagreement between the two logs: its code, the
// attempt_id, the attempt it names when the event log has it (run, stage,
// attempt and the line of its last event), the job-log lines and a message.
type Inconsistency struct {
	Code        string   `json:"code"`
	AttemptID   string   `json:"attempt_id"`
	RunID       *string  `json:"run_id"`
	Stage       *StageID `json:"stage"`
	Attempt     *int64   `json:"attempt"`
	Line        *int     `json:"line"`
	JobLogLines []int    `json:"job_log_lines"`
	Message     string   `json:"message"`
}

// jobRecord is one line of a job log (schemas/joblog.schema.json).
type jobRecord struct {
	attemptID string
	result    string
	at        time.Time
	line      int
}

// jobLog is a read and validated job log, with the SHA-256 (lowercase hex)
// and length of its bytes.
type jobLog struct {
	file    string
	sha256  string
	bytes   int64
	records []jobRecord
}

// jobOutcome maps a job-log result to the attempt outcome it proves.
func jobOutcome(result string) Status {
	switch result {
	case "SUCCESS", "NO_DATA":
		return StatusSucceeded
	case "FAILED", "ABORTED", "TIMEOUT":
		return StatusFailed
	case "CANCELLED":
		return StatusCancelled
	}
	return 0
}

// readJobLog reads a job log (JSON Lines) and validates every line against
// schemas/joblog.schema.json, hashing its bytes on the way. Any unreadable or
// invalid line is an error that names the file and line: nothing is guessed
// from a bad job log. A returncode written with more than MaxNumberChars
// characters is refused before the schema validator, whose exact arithmetic
// on such a number costs time that grows faster than the line, as in the
// event log (docs/contract.md).
func readJobLog(r io.Reader, file string, maxLine int) (*jobLog, error) {
	schema, err := schemas.Compile("joblog")
	if err != nil {
		return nil, err
	}
	name := file
	if name == "" {
		name = "the job log"
	}
	jl := &jobLog{file: file}
	dec := eventline.NewDecoder()
	h := sha256.New()
	lr := eventline.NewLineReader(r, maxLine, h)
	for {
		line, err := lr.Next()
		if err == io.EOF {
			jl.sha256, jl.bytes = hex.EncodeToString(h.Sum(nil)), lr.BytesRead()
			return jl, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		bad := func(msg string) error { return fmt.Errorf("%s:%d: invalid job log record: %s", name, lr.Line(), msg) }
		if lr.TooLong() {
			return nil, bad(fmt.Sprintf("the line is %d bytes, over the limit of %d", lr.Length(), maxLine))
		}
		if f := dec.Syntax(line, false); f != nil {
			return nil, bad(f.Msg)
		}
		if raw := dec.Number("returncode"); len(raw) > eventline.MaxNumberChars {
			return nil, bad(fmt.Sprintf("at /returncode: a number is written with at most %d characters, and this one has %d (%.24s…)", eventline.MaxNumberChars, len(raw), raw))
		}
		inst, err := schemas.Instance(line)
		if err != nil {
			return nil, bad("not valid JSON: " + err.Error())
		}
		if err := schemas.Validate(schema, inst); err != nil {
			return nil, bad("it does not match joblog.schema.json: " + eventline.SchemaErrorText(err, nil))
		}
		var rec struct {
			AttemptID string `json:"attempt_id"`
			Result    string `json:"result"`
			Timestamp string `json:"timestamp_utc"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, bad(err.Error())
		}
		at, ok := eventline.ParseTimestamp([]byte(rec.Timestamp))
		if !ok {
			return nil, bad("timestamp_utc is not an RFC 3339 date-time with an offset")
		}
		jl.records = append(jl.records, jobRecord{attemptID: rec.AttemptID, result: rec.Result, at: at, line: lr.Line()})
	}
}

// reconcile compares the job log with the recorded attempts: it adjudicates
// attempts without an outcome from their job-log record and lists every
// disagreement. It returns the reconciliation and, per run id, the first
// OUTCOME_MISMATCH, which makes that run unknown.
func (c *contractState) reconcile() (*Reconciliation, map[string]*Inconsistency) {
	rec := &Reconciliation{JobLog: c.jobLog.file, SHA256: c.jobLog.sha256, ByteCount: c.jobLog.bytes, RecordCount: len(c.jobLog.records), Inconsistencies: []Inconsistency{}}
	if rec.JobLog == "" {
		rec.JobLog = "-"
	}
	byID := map[string][]jobRecord{}
	var ids []string
	for _, r := range c.jobLog.records {
		if _, seen := byID[r.attemptID]; !seen {
			ids = append(ids, r.attemptID)
		}
		byID[r.attemptID] = append(byID[r.attemptID], r)
	}
	sort.SliceStable(ids, func(i, j int) bool { return byID[ids[i]][0].line < byID[ids[j]][0].line })
	mismatched := map[string]*Inconsistency{}
	for _, id := range ids {
		recs := byID[id]
		lines := make([]int, len(recs))
		conflict := false
		for i, r := range recs {
			lines[i] = r.line
			if r.result != recs[0].result {
				conflict = true
			}
		}
		inc := Inconsistency{AttemptID: id, JobLogLines: lines}
		key, known := c.attemptIDs[id]
		var a *attemptState
		if known {
			run := c.runs.Lookup([]byte(key.run))
			a = run.Attempt(key.stage, key.attempt)
			if a == nil {
				// Only a checkpoint's attempt id, checked here, not when
				// it was loaded (docs/state.md): a damaged checkpoint.
				panic(&runstore.DamagedError{Fault: "an attempt id of no attempt"})
			}
			stage, n, line := c.opts.Definition.Stages[key.stage].ID, key.attempt, a.LastLine()
			runID := run.ID()
			inc.RunID, inc.Stage, inc.Attempt, inc.Line = &runID, &stage, &n, &line
		}
		var late []jobRecord
		if known && !conflict {
			late = c.outOfTime(a, recs)
		}
		switch {
		case conflict:
			inc.Code = JobLogConflict
			inc.Message = fmt.Sprintf("the job log has %d records for attempt_id %s that disagree (%s); none is adopted", len(recs), id, resultsText(recs))
		case !known:
			inc.Code = JobLogOrphan
			inc.Message = fmt.Sprintf("job log line %d records attempt_id %s (%s), which the event log never names", recs[0].line, id, recs[0].result)
		case len(late) > 0:
			inc.Code = JobLogOutOfTime
			inc.JobLogLines = inc.JobLogLines[:0]
			for _, r := range late {
				inc.JobLogLines = append(inc.JobLogLines, r.line)
			}
			inc.Message = c.outOfTimeText(late[0], a, *inc.Attempt, *inc.Stage, *inc.RunID, len(recs) > 1)
		default:
			r := recs[0]
			job := jobOutcome(r.result)
			logged := a.Status()
			what := "logged"
			res := a.Recovery().Resolution
			if res != nil {
				logged, what = res.Outcome, "resolved"
			}
			if logged == StatusStarted || logged == StatusUnknown {
				a.SetJobOutcome(job, r.at, r.line)
				rec.AdoptedCount++
				continue
			}
			if logged == job {
				continue
			}
			inc.Code = OutcomeMismatch
			if res != nil {
				*inc.Line = res.Line
			}
			inc.Message = fmt.Sprintf("the event log %s attempt %d of stage %s in run %s as %s (%s), but job log line %d says %s (attempt_id %s)",
				what, *inc.Attempt, inc.Stage, *inc.RunID, logged, c.lineText(*inc.Line), r.line, r.result, id)
		}
		rec.Inconsistencies = append(rec.Inconsistencies, inc)
		if inc.Code == OutcomeMismatch && mismatched[key.run] == nil {
			mismatched[key.run] = &rec.Inconsistencies[len(rec.Inconsistencies)-1]
		}
	}
	// The pointers into rec.Inconsistencies may have moved with append: take
	// them again.
	for run := range mismatched {
		for i := range rec.Inconsistencies {
			inc := &rec.Inconsistencies[i]
			if inc.Code == OutcomeMismatch && inc.RunID != nil && *inc.RunID == run {
				mismatched[run] = inc
				break
			}
		}
	}
	return rec, mismatched
}

// outOfTime returns the records of an attempt that are not evidence for it
// by their time: dated before the attempt started, or after now plus the
// allowed clock skew (c.horizon). A job that reports an outcome before its
// attempt began, or from the future, proves nothing about that attempt.
func (c *contractState) outOfTime(a *attemptState, recs []jobRecord) []jobRecord {
	var late []jobRecord
	start := a.StartedAt()
	for _, r := range recs {
		if r.at.Before(start) || r.at.After(c.horizon) {
			late = append(late, r)
		}
	}
	return late
}

// outOfTimeText explains a JOB_LOG_OUT_OF_TIME inconsistency from its first
// record out of time; others says the attempt_id has more records, none of
// which is then adopted.
func (c *contractState) outOfTimeText(r jobRecord, a *attemptState, attempt int64, stage StageID, run string, others bool) string {
	var when string
	if r.at.Before(a.StartedAt()) {
		when = fmt.Sprintf("before attempt %d of stage %s in run %s started (%s, %s)", attempt, stage, run, formatTime(a.StartedAt()), c.lineText(a.StartLine()))
	} else {
		when = fmt.Sprintf("more than %d s after now (%s), the allowed clock skew", int64(c.skew/time.Second), formatTime(c.opts.Now))
	}
	none := "it is not adopted"
	if others {
		none = "no record of this attempt_id is adopted"
	}
	return fmt.Sprintf("job log line %d records attempt_id %s (%s) at %s, %s; a record is evidence only from the attempt's start to now plus the clock skew, so %s",
		r.line, r.attemptID, r.result, formatTime(r.at), when, none)
}

func resultsText(recs []jobRecord) string {
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = fmt.Sprintf("line %d %s", r.line, r.result)
	}
	return strings.Join(parts, ", ")
}
