package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/runview"
	"github.com/greenlight-ci/greenlight/checker/internal/swartest"
)

func ptr[T any](v T) *T { return &v }

// TestAppendRunMatches compares the hand-written run encoder with
// encoding/json on reports that use every field, null and non-null.
func TestAppendRunMatches(t *testing.T) {
	reports := []checker.RunReport{
		{RunID: "r-1", State: "succeeded", Stages: []checker.StageReport{}},
		{RunID: "r <&> \u2028 \"q\" \\ \x01\t\n\r\b\f é \xff", State: "failed", FirstEventAt: "2026-01-01T00:00:00Z", LastEventAt: "2026-01-01T00:00:01.5Z",
			DurationSeconds: 1e-7, FirstLine: 3,
			Stages: []checker.StageReport{
				{Stage: checker.IntStage(1), Name: ptr("bronze"), State: "failed", AttemptCount: 2, Attempts: []checker.AttemptReport{
					{Attempt: 1, Status: "failed", StartedAt: "a", EndedAt: ptr("b"), DurationSeconds: ptr(1e21), Returncode: ptr(int64(-9)), Error: ptr("<img src=x>"), Line: 7},
					{Attempt: 2, Status: "running", StartedAt: "c", SilentForSeconds: ptr(123.456), Line: 9},
				}},
				{Stage: checker.StrStage("gold"), State: "pending", Attempts: []checker.AttemptReport{}},
			}},
		{RunID: "r-3", DurationSeconds: math.MaxFloat64},
		{RunID: "r-4", State: "overdue", ScheduledFor: ptr("2026-11-28T02:00:00Z"), OverdueBySeconds: ptr(7200.5), Stages: []checker.StageReport{}},
		{RunID: "r-5", State: "stalled", OverdueBySeconds: ptr(1e-3)},
		{RunID: "r-6", State: "succeeded", ScheduledFor: ptr("2026-11-28T02:00:00.5Z")},
		{RunID: "r-6b", State: "succeeded", LogicalAt: ptr("2026-11-20T02:00:00Z")},
		// The recovery model's fields, set.
		{RunID: "r-7", State: "unknown", Recovery: checker.Recovery{Action: "adjudicate_unknown", RunID: "r-7", Stage: ptr(checker.StrStage("load")), Attempt: ptr(int64(2)),
			AttemptID: ptr("a<1>"), Owner: ptr("local-pid://h/1"), Steps: []string{"one \"step\"", "two"}},
			Stages: []checker.StageReport{{Stage: checker.StrStage("load"), State: "failed", StatusReason: ptr("RETRY_BRAKE:OOMx3"), AttemptCount: 1, Attempts: []checker.AttemptReport{
				{Attempt: 1, Status: "unknown", StartedAt: "a", Line: 4, StaleCandidate: true, AttemptID: ptr("a-1"), Owner: ptr("o"), ErrorCode: ptr("OOM"),
					LeaseExpiresAt: ptr("t"), Reason: ptr("gone"), AdjudicatedFrom: ptr("job_log"), JobLogLine: ptr(3),
					Resolution: &checker.ResolutionReport{Resolution: "failed", Reason: "r", EvidenceRef: "e", ResolvedBy: "ana", ApprovedBy: ptr("bo"), ResolvedAt: "t2", Line: 5}},
			}}}},
		{RunID: "r-8", Recovery: checker.Recovery{Steps: []string{}}},
		{RunID: "r-8b", Recovery: checker.Recovery{Steps: []string{}, Actions: []checker.RecoveryAction{}}},
		{RunID: "r-8c", Recovery: checker.Recovery{Action: "wait", Steps: []string{"s"}, Actions: []checker.RecoveryAction{
			{Order: 1, Action: "wait", Stage: ptr(checker.IntStage(2)), Attempt: ptr(int64(1)), AttemptID: ptr("a<1>"), Owner: ptr("o"), Steps: []string{"s"}},
			{Order: 2, Action: "wait", Steps: []string{"\"t\"", "u"}}}}},
		// Whole numbers take appendFloat's integer path, up to 2^53.
		{RunID: "r-9", DurationSeconds: 300},
		{RunID: "r-10", DurationSeconds: -5},
		{RunID: "r-11", DurationSeconds: math.Copysign(0, -1)},
		{RunID: "r-12", DurationSeconds: 1<<53 - 1},
		{RunID: "r-13", DurationSeconds: 1 << 53},
		{RunID: "r-14", DurationSeconds: 1e20},
		// One recovery field alone takes the long way; none takes the short.
		{RunID: "r-15", Stages: []checker.StageReport{{Stage: checker.IntStage(1), Attempts: []checker.AttemptReport{
			{Attempt: 1, JobLogLine: ptr(4)}, {Attempt: 2, Owner: ptr("o")}, {Attempt: 3}}}}},
		// A close (encoding/json writes it within appendRun).
		{RunID: "r-16", Close: &checker.CloseReport{ResultCode: "RUN_ARCHIVED_AUDIT_PENDING", Line: 3, At: "2026-01-01T00:00:00Z", Owner: ptr("<o&>"), AuditEventID: ptr("au-\u2028"), AuditPendingLine: ptr(3), LockProblemCode: ptr("LOCK_CONFLICT"), LockProblemLine: ptr(3), ArchivedLine: ptr(3)}},
	}
	for _, r := range reports {
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRun(nil, &r); string(got) != string(want) {
			t.Errorf("appendRun differs from encoding/json:\n%s\nwant\n%s", got, want)
		}
	}
	// A new field in a report type must be written by appendRun too (fields
	// tagged json:"-" are for readers in Go only, and encoding/json skips
	// unexported ones).
	for typ, n := range map[reflect.Type]int{
		reflect.TypeOf(checker.RunReport{}):        12,
		reflect.TypeOf(checker.CloseReport{}):      13,
		reflect.TypeOf(checker.StageReport{}):      7,
		reflect.TypeOf(checker.AttemptReport{}):    19,
		reflect.TypeOf(checker.TakeoverReport{}):   8,
		reflect.TypeOf(checker.Recovery{}):         8,
		reflect.TypeOf(checker.RecoveryAction{}):   7,
		reflect.TypeOf(checker.ResolutionReport{}): 7,
	} {
		fields := 0
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fields++
			}
		}
		if fields != n {
			t.Errorf("%s has %d JSON fields, appendRun writes %d: update appendRun and this test", typ, fields, n)
		}
	}
}

// TestAppendRunRandom compares the run encoder with encoding/json on
// random reports: every pointer field nil or set, every list nil, empty
// or not, strings over an alphabet of the bytes that need escaping, and
// numbers of every sign and size.
func TestAppendRunRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "0", ":", "-", "\"", "\\", "<", ">", "&", "\x00", "\n", "\u2028", "é", "\xff"}
	str := func() string {
		var b strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	opt := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		return ptr(str())
	}
	num := func() int64 {
		return []int64{0, 7, -3, 99, 100, 123456789, 999999999, 1e9, -1e12, math.MaxInt64, math.MinInt64}[r.IntN(11)]
	}
	flt := func() float64 {
		return []float64{0, 1, -2.5, 41, 1e-7, 1e21, 123456.789, 1 << 53, math.Copysign(0, -1)}[r.IntN(9)]
	}
	optFloat := func() *float64 {
		if r.IntN(2) == 0 {
			return nil
		}
		return ptr(flt())
	}
	optInt := func() *int64 {
		if r.IntN(2) == 0 {
			return nil
		}
		return ptr(num())
	}
	stage := func() checker.StageID {
		if r.IntN(2) == 0 {
			return checker.IntStage(num())
		}
		return checker.StrStage("s" + str())
	}
	for n := 0; n < 3000; n++ {
		rr := checker.RunReport{RunID: str(), State: checker.RunState(str()), FirstEventAt: str(), LastEventAt: str(),
			DurationSeconds: flt(), FirstLine: int(num() % 1e6), ScheduledFor: opt(), OverdueBySeconds: optFloat()}
		rr.Recovery = checker.Recovery{Action: checker.Action(str()), RunID: str(), Attempt: optInt(), AttemptID: opt(), Owner: opt()}
		if r.IntN(2) == 0 {
			rr.Recovery.Stage = ptr(stage())
		}
		switch r.IntN(3) {
		case 0:
			rr.Recovery.Steps = []string{}
		case 1:
			rr.Recovery.Steps = []string{str(), str()}
		}
		switch r.IntN(3) {
		case 0:
			rr.Recovery.Actions = []checker.RecoveryAction{}
		case 1:
			for k := range r.IntN(3) {
				a := checker.RecoveryAction{Order: k + 1, Action: checker.Action(str()), Attempt: optInt(), AttemptID: opt(), Owner: opt(), Steps: []string{str()}}
				if r.IntN(2) == 0 {
					a.Stage = ptr(stage())
				}
				rr.Recovery.Actions = append(rr.Recovery.Actions, a)
			}
		}
		if r.IntN(4) > 0 {
			rr.Stages = []checker.StageReport{}
		}
		for range r.IntN(3) {
			st := checker.StageReport{Stage: stage(), Name: opt(), State: checker.StageState(str()), StatusReason: opt(), AttemptCount: int(num() % 1e6)}
			if r.IntN(3) == 0 {
				st.BrakeRuns = []string{str(), str()}
			}
			if r.IntN(4) > 0 {
				st.Attempts = []checker.AttemptReport{}
			}
			for range r.IntN(3) {
				a := checker.AttemptReport{Attempt: num(), Status: str(), StartedAt: str(), EndedAt: opt(), DurationSeconds: optFloat(),
					Returncode: optInt(), Error: opt(), SilentForSeconds: optFloat(), Line: int(num() % 1e6), StaleCandidate: r.IntN(2) == 0}
				if r.IntN(2) == 0 {
					a.AttemptID, a.Owner, a.ErrorCode, a.LeaseExpiresAt, a.Reason, a.AdjudicatedFrom = opt(), opt(), opt(), opt(), opt(), opt()
					if r.IntN(2) == 0 {
						a.JobLogLine = ptr(int(num() % 1e6))
					}
					if r.IntN(2) == 0 {
						a.Resolution = &checker.ResolutionReport{Resolution: str(), Reason: str(), EvidenceRef: str(), ResolvedBy: str(),
							ApprovedBy: opt(), ResolvedAt: str(), Line: int(num() % 1e6)}
					}
					if r.IntN(3) == 0 {
						a.Takeover = &checker.TakeoverReport{Outcome: str(), Owner: opt(), StopConfirmedBy: str(), StopEvidenceRef: str(),
							StopMethod: str(), TakenOverAt: str(), Line: int(num() % 1e6)}
						if r.IntN(2) == 0 {
							a.Takeover.HeartbeatAdvancedLine = ptr(int(num() % 1e6))
						}
					}
				}
				st.Attempts = append(st.Attempts, a)
			}
			rr.Stages = append(rr.Stages, st)
		}
		want, err := json.Marshal(&rr)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRun(nil, &rr); string(got) != string(want) {
			t.Fatalf("appendRun differs from encoding/json:\n%s\nwant\n%s", got, want)
		}
	}
}

// FuzzAppendString checks the string quoting against encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<>&", "\u2028\u2029", "\x00\x1f\x7f", "\xff\xfe", "é漢字🙂", strings.Repeat("\\\"", 3)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// TestSnapshotSubset: a subset lists exactly the kept runs, each on the
// line WriteSnapshotJSON gives it, under the same keys; keeping none gives
// an empty list, keeping all gives the snapshot itself.
func TestSnapshotSubset(t *testing.T) {
	var log strings.Builder
	for i := range 5 {
		status := "succeeded"
		extra := ""
		if i%2 == 1 {
			status, extra = "failed", `, "error": "boom", "returncode": 1`
		}
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T10:0%d:00Z"}`+"\n", i, i)
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": 1, "status": %q, "timestamp_utc": "2026-01-01T10:0%d:30Z"%s}`+"\n", i, status, i, extra)
	}
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(log.String()), checker.Options{Definition: def, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil || res.Snapshot == nil {
		t.Fatal(err, res.Report.Violations)
	}
	var full bytes.Buffer
	if err := WriteSnapshotJSON(&full, res.Snapshot); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(full.String(), "\n")
	at := slices.Index(lines, `  "runs": [`)
	runLine := func(i int) string { return strings.TrimSuffix(lines[at+1+i], ",") }
	for _, tc := range []struct {
		name string
		keep func(r *checker.RunReport) bool
		want []int // indexes of the runs listed
	}{
		{"failed only", func(r *checker.RunReport) bool { return r.State == checker.RunFailed }, []int{1, 3}},
		{"none", func(*checker.RunReport) bool { return false }, nil},
		{"all", func(*checker.RunReport) bool { return true }, []int{0, 1, 2, 3, 4}},
	} {
		var got bytes.Buffer
		if err := WriteSnapshotSubset(&got, res.Snapshot, tc.keep); err != nil {
			t.Fatal(err)
		}
		want := strings.Join(lines[:at], "\n") + "\n"
		if len(tc.want) == 0 {
			want += "  \"runs\": []\n}\n"
		} else {
			want += "  \"runs\": [\n"
			for k, i := range tc.want {
				want += "    " + strings.TrimPrefix(runLine(i), "    ")
				if k < len(tc.want)-1 {
					want += ","
				}
				want += "\n"
			}
			want += "  ]\n}\n"
		}
		if got.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got.String(), want)
		}
	}
}

// TestStreamedSnapshotChunks: a streamed snapshot, encoded in chunks cut by
// run and by attempt counts on several goroutines, is the same document as
// the snapshot built whole, also when some runs hold thousands of attempts.
func TestStreamedSnapshotChunks(t *testing.T) {
	var log strings.Builder
	line := 0
	ts := func() string {
		line++
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(line) * time.Millisecond).Format(time.RFC3339Nano)
	}
	for r := range 100 {
		retries := 0
		if r%17 == 3 {
			retries = 1500 + r
		}
		for a := 1; a <= retries; a++ {
			fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", r, a, ts())
			fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": %d, "status": "failed", "timestamp_utc": %q, "error": "x"}`+"\n", r, a, ts())
		}
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", r, retries+1, ts())
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": %d, "status": "succeeded", "timestamp_utc": %q}`+"\n", r, retries+1, ts())
	}
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	doc := sameStreamedAndWhole(t, log.String(), def, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if n := strings.Count(doc, `{"run_id":`); n != 100 {
		t.Fatalf("%d runs in the document, want 100", n)
	}
}

// sameStreamedAndWhole checks log, with its run reports built as they are
// read and held whole (runview.SetRuns of Collect), and fails unless WriteSnapshotJSON and a
// WriteSnapshotSubset keeping every run write the same document all four
// ways; it returns that document.
func sameStreamedAndWhole(t *testing.T, log string, def *checker.Definition, now time.Time) string {
	t.Helper()
	var docs []string
	for _, stream := range []bool{false, true} {
		res, err := checker.Check(strings.NewReader(log), checker.Options{Definition: def, Now: now})
		if err != nil || res.Snapshot == nil {
			t.Fatal(err, res.Report.Violations)
		}
		if !stream {
			runview.SetRuns(res.Snapshot, res.Snapshot.Collect())
		}
		var whole, sub bytes.Buffer
		if err := WriteSnapshotJSON(&whole, res.Snapshot); err != nil {
			t.Fatal(err)
		}
		if err := WriteSnapshotSubset(&sub, res.Snapshot, func(*checker.RunReport) bool { return true }); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, whole.String(), sub.String())
	}
	for i, d := range docs[1:] {
		if d != docs[0] {
			t.Fatalf("document %d (of whole, whole subset, streamed, streamed subset) differs:\n%s\nfirst:\n%s", i+2, d, docs[0])
		}
	}
	return docs[0]
}

// TestAppendStringMatches compares appendString with encoding/json on
// random strings of every length up to 40 over an alphabet of the bytes
// that need escaping, multi-byte and invalid UTF-8, and plain letters.
func TestAppendStringMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", "Z", " ", "\"", "\\", "<", ">", "&", "\x00", "\x1f", "\t", "\n", "\u2028", "\u2029", "é", "€", "\xff", "\xe2\x82", "\x7f", "/"}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestAppendStringOneSpecial compares appendString with encoding/json on
// plain strings of every length up to 40 with one byte that needs
// escaping (or a multi-byte character) at every position: the word at a
// time and the overlapping last word must see it wherever it is.
func TestAppendStringOneSpecial(t *testing.T) {
	specials := []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", "\n", "\x7f", "\xff", "\u2028", "é", "\xe2\x82"}
	for n := range 41 {
		plain := strings.Repeat("0123456789:-TZ", 3)[:n]
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				s := plain[:at] + sp + plain[at:]
				want, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				if got := appendString(nil, s); string(got) != string(want) {
					t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
		if got := appendString(nil, plain); string(got) != `"`+plain+`"` {
			t.Fatalf("appendString(%q) = %s", plain, got)
		}
	}
}

// TestSpecial8 holds special8 to plainByte: every byte value at every
// position of a plain word, and random words, are special exactly when
// one of their bytes is not plain.
func TestSpecial8(t *testing.T) {
	check := func(w uint64) {
		t.Helper()
		plain := true
		for k := range 8 {
			plain = plain && plainByte[byte(w>>(8*k))]
		}
		if got := special8(w) == 0; got != plain {
			t.Fatalf("special8(%#016x) == 0 is %v, want %v", w, got, plain)
		}
	}
	swartest.Words(rand.New(rand.NewPCG(11, 12)), 0x1e, check)
}

// TestStreamedEmptyAttempts: a stage without attempts is [] in a streamed
// snapshot too, also in the first report a fresh arena builds (a DAG whose
// second stage ran while the first never started).
func TestStreamedEmptyAttempts(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("stages:\n  - {id: 1}\n  - {id: 2, depends_on: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := `{"run_id": "r1", "stage": 2, "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T00:00:00Z"}` + "\n" +
		`{"run_id": "r1", "stage": 2, "attempt": 1, "status": "succeeded", "timestamp_utc": "2026-01-01T00:01:00Z"}` + "\n"
	doc := sameStreamedAndWhole(t, log, def, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	if !strings.Contains(doc, `{"stage":1,"name":null,"state":"pending","status_reason":null,"attempt_count":0,"attempts":[]}`) {
		t.Fatalf("stage 1 is not pending with no attempts:\n%s", doc)
	}
}

// BenchmarkAppendRun measures the run encoder alone on the reports of a
// generated log shaped like genlog.py's (one retry in five runs, a Java
// error text on each failure).
func BenchmarkAppendRun(b *testing.B) {
	var log strings.Builder
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := func() string { t = t.Add(7 * time.Second); return t.Format("2006-01-02T15:04:05.000000Z") }
	for r := range 2000 {
		for st := 1; st <= 2; st++ {
			att := 1
			if r%5 == 0 && st == 1 {
				fmt.Fprintf(&log, `{"run_id": "run-%08d", "stage": %d, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", r, st, att, ts())
				fmt.Fprintf(&log, `{"run_id": "run-%08d", "stage": %d, "attempt": %d, "status": "failed", "timestamp_utc": %q, "returncode": 1, "error": "java.lang.OutOfMemoryError: Java heap space"}`+"\n", r, st, att, ts())
				att++
			}
			fmt.Fprintf(&log, `{"run_id": "run-%08d", "stage": %d, "attempt": %d, "status": "started", "timestamp_utc": %q}`+"\n", r, st, att, ts())
			fmt.Fprintf(&log, `{"run_id": "run-%08d", "stage": %d, "attempt": %d, "status": "succeeded", "timestamp_utc": %q, "returncode": 0}`+"\n", r, st, att, ts())
		}
	}
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1), checker.IntStage(2)})
	if err != nil {
		b.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(log.String()), checker.Options{Definition: def, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || res.Snapshot == nil {
		b.Fatal(err, res.Report.Violations)
	}
	reports := res.Snapshot.Collect()
	var buf []byte
	n := 0
	for b.Loop() {
		buf = buf[:0]
		for i := range reports {
			buf = appendRun(buf, &reports[i])
		}
		n = len(buf)
	}
	b.SetBytes(int64(n))
}

// failAfter is a writer that takes n bytes, then fails every write.
type failAfter struct {
	n   int
	got bytes.Buffer
}

var errFull = errors.New("the disk is full")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.got.Len()+len(p) > w.n {
		k := w.n - w.got.Len()
		w.got.Write(p[:k])
		return k, errFull
	}
	return w.got.Write(p)
}

// TestStreamedSnapshotWriteError: when the writer fails, WriteSnapshotJSON
// returns its error, and what was written before it is the start of the
// document, whichever chunk of runs the failure hits (the workers stop
// and write nothing after it).
func TestStreamedSnapshotWriteError(t *testing.T) {
	var log strings.Builder
	for r := range 3000 {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Minute)
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": %q}`+"\n", r, at.Format(time.RFC3339))
		fmt.Fprintf(&log, `{"run_id": "r-%d", "stage": 1, "attempt": 1, "status": "succeeded", "timestamp_utc": %q}`+"\n", r, at.Add(time.Second).Format(time.RFC3339))
	}
	def, err := checker.LinearDefinition([]checker.StageID{checker.IntStage(1)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Check(strings.NewReader(log.String()), checker.Options{Definition: def, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || res.Snapshot == nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := WriteSnapshotJSON(&whole, res.Snapshot); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 100, 70 << 10, whole.Len() / 2, whole.Len() - 1} {
		w := &failAfter{n: n}
		if err := WriteSnapshotJSON(w, res.Snapshot); !errors.Is(err, errFull) {
			t.Fatalf("fail after %d bytes: error %v, want %v", n, err, errFull)
		}
		if w.got.Len() != n || !bytes.HasPrefix(whole.Bytes(), w.got.Bytes()) {
			t.Fatalf("fail after %d bytes: wrote %d bytes, not the document's first %d", n, w.got.Len(), n)
		}
	}
}

// TestAppendInt compares appendInt with strconv.AppendInt on every number
// below 100,000, around every power of ten and at the extremes, after a
// prefix (the digits are written in place).
func TestAppendInt(t *testing.T) {
	var ns []int64
	for n := range int64(100000) {
		ns = append(ns, n)
	}
	for p := int64(1); p <= 1e18; p *= 10 {
		ns = append(ns, p-1, p, p+1, -p, 2*p-1, 9*p)
	}
	ns = append(ns, math.MaxInt64, math.MinInt64, 999999999, 1e9)
	for _, n := range ns {
		if got, want := string(appendInt([]byte("x:"), n)), string(strconv.AppendInt([]byte("x:"), n, 10)); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAppendWord: the words copied at once and any other state, status or
// action (a report read back from JSON may hold anything) give
// encoding/json's bytes.
func TestAppendWord(t *testing.T) {
	for _, s := range []string{"succeeded", "failed", "none", "stalled", "", "succeeded\"", "fail<ed>", "none\u2028", "\x1b[31mfailed", "\xff"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := append(appendWord([]byte{'"'}, s), '"'); string(got) != string(want) {
			t.Errorf("appendWord(%q) = %s, want %s", s, got, want)
		}
	}
}
