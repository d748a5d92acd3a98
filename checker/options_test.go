package checker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// TestCallerSHA256: a digest given by the caller is recorded as it is, in
// place of hashing the log, and one that is not lowercase hex is refused.
func TestCallerSHA256(t *testing.T) {
	log := lines(ev("r-1", 1, 1, "started", t0(0)), ev("r-1", 1, 1, "succeeded", t0(1)))
	sum := sha256.Sum256([]byte(log))
	own := runCheck(t, log, nil)
	if got, want := own.Snapshot.Source.SHA256, hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hashed digest %s, want %s", got, want)
	}
	given := strings.Repeat("ab", 32)
	res := runCheck(t, log, func(o *checker.Options) { o.SHA256 = given })
	if got := res.Snapshot.Source.SHA256; got != given {
		t.Errorf("digest %s, want the caller's %s", got, given)
	}
	for _, bad := range []string{strings.Repeat("AB", 32), strings.Repeat("a", 63), strings.Repeat("g", 64)} {
		_, err := checker.Check(strings.NewReader(log), checker.Options{Definition: corpusDefinition(t), Now: corpusNow, SHA256: bad})
		want := `checker: Options.SHA256 "` + bad + `" is not 64 lowercase hex digits`
		if err == nil || err.Error() != want {
			t.Errorf("SHA256 %q: error %v, want %s", bad, err, want)
		}
	}
}

// TestProgress: Progress hears about every ProgressEvery bytes, in order,
// and last of all the log's whole size.
func TestProgress(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 5*checker.ProgressEvery/2; i++ {
		run := fmt.Sprintf("r-%d", i)
		b.WriteString(lines(ev(run, 1, 1, "started", t0(0)), ev(run, 1, 1, "succeeded", t0(1))))
	}
	log := b.String()
	var calls []int64
	if res := runCheck(t, log, func(o *checker.Options) { o.Progress = func(n int64) { calls = append(calls, n) } }); !res.Report.Valid {
		t.Fatalf("the log is invalid: %v", res.Report.Violations[0])
	}
	if len(calls) < 3 {
		t.Fatalf("progress called %d times for %d bytes: %v", len(calls), len(log), calls)
	}
	if last := calls[len(calls)-1]; last != int64(len(log)) {
		t.Errorf("last progress %d, want the log's size %d", last, len(log))
	}
	for i := 1; i < len(calls)-1; i++ {
		if calls[i]-calls[i-1] < checker.ProgressEvery {
			t.Errorf("progress %d then %d: less than ProgressEvery apart", calls[i-1], calls[i])
		}
	}
}

// TestSchemaMessageOrder: a line that breaks the schema in two properties
// gets one message, its parts sorted, however the validator ordered them.
func TestSchemaMessageOrder(t *testing.T) {
	log := `{"run_id":"r","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z","attempt_id":" ","resolution":"maybe"}` + "\n"
	want := `at /attempt_id: must hold a character other than white space; at /resolution: found "maybe", expected one of "succeeded", "failed", "cancelled" or null`
	for range 30 {
		res := runCheck(t, log, nil)
		if len(res.Report.Violations) != 1 {
			t.Fatalf("violations %+v", res.Report.Violations)
		}
		if got := res.Report.Violations[0].Message; !strings.HasSuffix(got, want) {
			t.Fatalf("message %q, want it to end with %q", got, want)
		}
	}
}
