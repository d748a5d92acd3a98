package checker_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// scheduleDef is a two-stage pipeline with the given schedule block (YAML,
// indented under "schedule:").
func scheduleDef(t *testing.T, schedule string) *checker.Definition {
	t.Helper()
	def, err := checker.ParseDefinition([]byte("pipeline: nightly\nstages:\n  - {id: 1}\n  - {id: 2}\nschedule:\n" + schedule))
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// at reads an RFC 3339 time for a test table.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := checker.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// event is one log line; extra holds further JSON members (",\"k\":v").
func event(run string, stage int, attempt int, status string, ts time.Time, extra string) string {
	s := fmt.Sprintf(`{"run_id":%q,"stage":%d,"attempt":%d,"status":%q,"timestamp_utc":%q`, run, stage, attempt, status, ts.Format(time.RFC3339))
	if status == "failed" {
		s += `,"returncode":1,"error":"boom"`
	}
	return s + extra + "}\n"
}

// okRun is a run whose two stages succeed, starting at start and taking 20
// minutes; extra is added to every event.
func okRun(id string, start time.Time, extra string) string {
	return event(id, 1, 1, "started", start, extra) +
		event(id, 1, 1, "succeeded", start.Add(10*time.Minute), extra) +
		event(id, 2, 1, "started", start.Add(10*time.Minute), extra) +
		event(id, 2, 1, "succeeded", start.Add(20*time.Minute), extra)
}

// failedRun is a run whose first stage fails 5 minutes after start.
func failedRun(id string, start time.Time) string {
	return event(id, 1, 1, "started", start, "") + event(id, 1, 1, "failed", start.Add(5*time.Minute), "")
}

// claims is the extra member that makes a run claim slot s by scheduled_for.
func claims(s string) string { return `,"scheduled_for":"` + s + `"` }

// scheduleSummary renders what a test asserts of a snapshot with a schedule,
// one fact per line, in a fixed order.
func scheduleSummary(s *checker.Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s\n", s.Verdict)
	sr := s.Schedule
	fmt.Fprintf(&b, "expected %d\n", sr.ExpectedSlots)
	for _, sl := range sr.Slots {
		if sl.RunID == nil {
			fmt.Fprintf(&b, "slot %s %s\n", sl.ScheduledFor, sl.Status)
			continue
		}
		fmt.Fprintf(&b, "slot %s %s %s by %s\n", sl.ScheduledFor, sl.Status, *sl.RunID, *sl.ClaimedBy)
	}
	for _, m := range sr.Missed {
		fmt.Fprintf(&b, "missed %s due %s\n", m.ScheduledFor, m.DueAt)
	}
	for _, l := range sr.Late {
		fmt.Fprintf(&b, "late %s %s by %gs\n", l.ScheduledFor, l.RunID, l.LateBySeconds)
	}
	for _, e := range sr.Early {
		fmt.Fprintf(&b, "early %s %s by %gs\n", e.ScheduledFor, e.RunID, e.EarlyBySeconds)
	}
	for _, d := range sr.Duplicates {
		fmt.Fprintf(&b, "duplicate %s %s filled by %s\n", d.ScheduledFor, d.RunID, d.FilledBy)
	}
	for _, u := range sr.Unscheduled {
		fmt.Fprintf(&b, "unscheduled %s\n", u.RunID)
	}
	for _, r := range s.Collect() {
		fmt.Fprintf(&b, "run %s %s", r.RunID, r.State)
		if r.ScheduledFor != nil {
			fmt.Fprintf(&b, " for %s", *r.ScheduledFor)
		}
		if r.OverdueBySeconds != nil {
			fmt.Fprintf(&b, " overdue by %gs", *r.OverdueBySeconds)
		}
		b.WriteString("\n")
	}
	if sr.NextSlot != nil {
		fmt.Fprintf(&b, "next %s due %s\n", *sr.NextSlot, *sr.NextDueAt)
	}
	return b.String()
}

// TestSchedule judges logs against schedules at a fixed now and compares
// every slot, missed, late, duplicate and unscheduled run, run state and the
// verdict. The snapshot must also match snapshot.schema.json.
func TestSchedule(t *testing.T) {
	daily := "  cron: \"0 2 * * *\"\n"
	d := func(s string) time.Time { return at(t, s) }
	tests := []struct {
		name     string
		schedule string
		log      string
		now      string
		gate     checker.Gate
		want     string
	}{
		{
			name:     "daily slot missed",
			schedule: daily,
			log:      okRun("r-27", d("2026-11-27T02:00:04Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z missed
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
run r-27 succeeded for 2026-11-27T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "daily slot filled on time",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T02:00:04Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "present but late without scheduled_for: unscheduled, and the slot missed",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T03:10:00Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z missed
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
unscheduled r-28
run r-28 succeeded
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "the run claims its slot by scheduled_for though it started late",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T03:10:00Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z late r-28 by scheduled_for
late 2026-11-28T02:00:00Z r-28 by 2400s
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "scheduled_for in another offset names the same slot",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T02:01:00Z"), claims("2026-11-28T03:00:00+01:00")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by scheduled_for
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a scheduled_for that is no slot claims nothing; the window decides",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T02:01:00Z"), claims("2026-11-28T02:05:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a run from the day before names today's slot: early, it fills neither slot, both stay missed",
			schedule: daily + "  lookback_slots: 2\n",
			log:      okRun("r-x", d("2026-11-27T02:00:04Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 2
slot 2026-11-27T02:00:00Z missed
slot 2026-11-28T02:00:00Z missed
missed 2026-11-27T02:00:00Z due 2026-11-27T02:30:00Z
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
early 2026-11-28T02:00:00Z r-x by 86396s
run r-x succeeded
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a first event within the clock skew before its slot still claims it",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T01:55:00Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by scheduled_for
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a first event one second beyond the clock skew is early",
			schedule: daily,
			log:      okRun("r-28", d("2026-11-28T01:54:59Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z missed
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
early 2026-11-28T02:00:00Z r-28 by 301s
run r-28 succeeded
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "an early claim does not keep another run from filling the slot",
			schedule: daily,
			log:      okRun("r-x", d("2026-11-27T23:00:00Z"), claims("2026-11-28T02:00:00Z")) + okRun("r-28", d("2026-11-28T02:00:04Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
early 2026-11-28T02:00:00Z r-x by 10800s
run r-x succeeded
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest: an early run belongs to no slot, so its success does not fill the latest",
			schedule: daily,
			log:      okRun("r-x", d("2026-11-27T23:00:00Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z missed
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
early 2026-11-28T02:00:00Z r-x by 10800s
run r-x succeeded
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "two runs for one slot: the second is a duplicate",
			schedule: daily,
			log:      okRun("r-a", d("2026-11-28T02:00:04Z"), "") + okRun("r-b", d("2026-11-28T02:21:00Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-a by window
duplicate 2026-11-28T02:00:00Z r-b filled by r-a
run r-a succeeded for 2026-11-28T02:00:00Z
run r-b succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a scheduled_for claim fills the slot before a window claim on an earlier line",
			schedule: daily,
			log:      failedRun("r-a", d("2026-11-28T02:00:04Z")) + okRun("r-b", d("2026-11-28T02:40:00Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z late r-b by scheduled_for
late 2026-11-28T02:00:00Z r-b by 600s
duplicate 2026-11-28T02:00:00Z r-a filled by r-b
run r-a failed for 2026-11-28T02:00:00Z
run r-b succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest judges the latest slot by its latest run: a failed rerun after a success is unhealthy",
			schedule: daily,
			log:      okRun("r-a", d("2026-11-28T02:00:04Z"), "") + failedRun("r-b", d("2026-11-28T02:21:00Z")),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-a by window
duplicate 2026-11-28T02:00:00Z r-b filled by r-a
run r-a succeeded for 2026-11-28T02:00:00Z
run r-b failed for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest: a successful rerun after a failure makes the latest slot healthy",
			schedule: daily,
			log:      failedRun("r-a", d("2026-11-28T02:00:04Z")) + okRun("r-b", d("2026-11-28T02:21:00Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-a by window
duplicate 2026-11-28T02:00:00Z r-b filled by r-a
run r-a failed for 2026-11-28T02:00:00Z
run r-b succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest: the run that fills the slot by scheduled_for does not hide a later failed duplicate",
			schedule: daily,
			log:      okRun("r-a", d("2026-11-28T02:00:04Z"), claims("2026-11-28T02:00:00Z")) + failedRun("r-b", d("2026-11-28T02:25:00Z")),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-a by scheduled_for
duplicate 2026-11-28T02:00:00Z r-b filled by r-a
run r-a succeeded for 2026-11-28T02:00:00Z
run r-b failed for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest: the slot's runs are its filler and duplicates; an unscheduled failed run between them is not one",
			schedule: daily,
			log:      okRun("r-a", d("2026-11-28T02:00:04Z"), "") + failedRun("r-b", d("2026-11-28T02:40:00Z")) + okRun("r-c", d("2026-11-28T02:50:00Z"), claims("2026-11-28T02:00:00Z")),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z late r-c by scheduled_for
late 2026-11-28T02:00:00Z r-c by 1200s
duplicate 2026-11-28T02:00:00Z r-a filled by r-c
unscheduled r-b
run r-a succeeded for 2026-11-28T02:00:00Z
run r-b failed
run r-c succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "DST spring forward: 02:30 Berlin does not exist on 2026-03-29; its slot is due at 03:00, the first instant after the gap, and the night without a run is missed",
			schedule: "  cron: \"30 2 * * *\"\n  timezone: Europe/Berlin\n  lookback_slots: 3\n",
			log: okRun("r-27", d("2026-03-27T01:30:05Z"), "") + okRun("r-28", d("2026-03-28T01:30:05Z"), "") +
				okRun("r-30", d("2026-03-30T00:30:05Z"), ""),
			now: "2026-03-30T06:00:00Z",
			want: `verdict unhealthy
expected 3
slot 2026-03-28T01:30:00Z on_time r-28 by window
slot 2026-03-29T01:00:00Z missed
slot 2026-03-30T00:30:00Z on_time r-30 by window
missed 2026-03-29T01:00:00Z due 2026-03-29T01:30:00Z
run r-27 succeeded for 2026-03-27T01:30:00Z
run r-28 succeeded for 2026-03-28T01:30:00Z
run r-30 succeeded for 2026-03-30T00:30:00Z
next 2026-03-31T00:30:00Z due 2026-03-31T01:00:00Z
`,
		},
		{
			name:     "DST spring forward: a run at 03:00 CEST, as cronie runs a job from the gap, fills the slot",
			schedule: "  cron: \"30 2 * * *\"\n  timezone: Europe/Berlin\n  lookback_slots: 2\n",
			log:      okRun("r-29", d("2026-03-29T01:00:05Z"), "") + okRun("r-30", d("2026-03-30T00:30:05Z"), claims("2026-03-30T02:30:00+02:00")),
			now:      "2026-03-30T06:00:00Z",
			want: `verdict healthy
expected 2
slot 2026-03-29T01:00:00Z on_time r-29 by window
slot 2026-03-30T00:30:00Z on_time r-30 by scheduled_for
run r-29 succeeded for 2026-03-29T01:00:00Z
run r-30 succeeded for 2026-03-30T00:30:00Z
next 2026-03-31T00:30:00Z due 2026-03-31T01:00:00Z
`,
		},
		{
			name:     "DST spring forward in America/Los_Angeles (argo-workflows #8137): a daily 02:00 that never ran on 2022-03-13 is missed",
			schedule: "  cron: \"0 2 * * *\"\n  timezone: America/Los_Angeles\n  lookback_slots: 3\n",
			log:      okRun("n-12", d("2022-03-12T10:00:05Z"), "") + okRun("n-14", d("2022-03-14T09:00:05Z"), ""),
			now:      "2022-03-14T12:00:00Z",
			want: `verdict unhealthy
expected 3
slot 2022-03-12T10:00:00Z on_time n-12 by window
slot 2022-03-13T10:00:00Z missed
slot 2022-03-14T09:00:00Z on_time n-14 by window
missed 2022-03-13T10:00:00Z due 2022-03-13T10:30:00Z
run n-12 succeeded for 2022-03-12T10:00:00Z
run n-14 succeeded for 2022-03-14T09:00:00Z
next 2022-03-15T09:00:00Z due 2022-03-15T09:30:00Z
`,
		},
		{
			name:     "DST fall back: 02:30 Berlin happens twice on 2026-10-25, and is one slot, the first",
			schedule: "  cron: \"30 2 * * *\"\n  timezone: Europe/Berlin\n  lookback_slots: 3\n",
			log:      okRun("r-24", d("2026-10-24T00:30:05Z"), "") + okRun("r-25", d("2026-10-25T00:30:05Z"), ""),
			now:      "2026-10-25T06:00:00Z",
			want: `verdict unhealthy
expected 3
slot 2026-10-23T00:30:00Z missed
slot 2026-10-24T00:30:00Z on_time r-24 by window
slot 2026-10-25T00:30:00Z on_time r-25 by window
missed 2026-10-23T00:30:00Z due 2026-10-23T01:00:00Z
run r-24 succeeded for 2026-10-24T00:30:00Z
run r-25 succeeded for 2026-10-25T00:30:00Z
next 2026-10-26T01:30:00Z due 2026-10-26T02:00:00Z
`,
		},
		{
			name:     "DST fall back: a run at the second 02:30 names no slot; it is unscheduled",
			schedule: "  cron: \"30 2 * * *\"\n  timezone: Europe/Berlin\n",
			log:      okRun("r-cest", d("2026-10-25T00:30:05Z"), "") + okRun("r-cet", d("2026-10-25T01:30:05Z"), claims("2026-10-25T02:30:00+01:00")),
			now:      "2026-10-25T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-10-25T00:30:00Z on_time r-cest by window
unscheduled r-cet
run r-cest succeeded for 2026-10-25T00:30:00Z
run r-cet succeeded
next 2026-10-26T01:30:00Z due 2026-10-26T02:00:00Z
`,
		},
		{
			name:     "southern hemisphere, Australia/Sydney spring forward on 2026-10-04: 02:30 is in the gap and due at 03:00 AEDT",
			schedule: "  cron: \"30 2 * * *\"\n  timezone: Australia/Sydney\n  lookback_slots: 3\n",
			log: okRun("s-03", d("2026-10-02T16:30:05Z"), "") + okRun("s-04", d("2026-10-03T16:00:05Z"), "") +
				okRun("s-05", d("2026-10-04T15:30:05Z"), ""),
			now: "2026-10-04T20:00:00Z",
			want: `verdict healthy
expected 3
slot 2026-10-02T16:30:00Z on_time s-03 by window
slot 2026-10-03T16:00:00Z on_time s-04 by window
slot 2026-10-04T15:30:00Z on_time s-05 by window
run s-03 succeeded for 2026-10-02T16:30:00Z
run s-04 succeeded for 2026-10-03T16:00:00Z
run s-05 succeeded for 2026-10-04T15:30:00Z
next 2026-10-05T15:30:00Z due 2026-10-05T16:00:00Z
`,
		},
		{
			name:     "a half-hour shift, Australia/Lord_Howe fall back on 2026-04-05: 01:45 happens twice; a run only at the second leaves the slot missed",
			schedule: "  cron: \"45 1 * * *\"\n  timezone: Australia/Lord_Howe\n  lookback_slots: 2\n",
			log:      okRun("h-04", d("2026-04-03T14:45:05Z"), "") + okRun("h-05", d("2026-04-04T15:15:05Z"), ""),
			now:      "2026-04-04T20:00:00Z",
			want: `verdict unhealthy
expected 2
slot 2026-04-03T14:45:00Z on_time h-04 by window
slot 2026-04-04T14:45:00Z missed
missed 2026-04-04T14:45:00Z due 2026-04-04T15:15:00Z
unscheduled h-05
run h-04 succeeded for 2026-04-03T14:45:00Z
run h-05 succeeded
next 2026-04-05T15:15:00Z due 2026-04-05T15:45:00Z
`,
		},
		{
			name:     "a cron with * in its hour field follows the clock as it reads: two slots for the two 02:30s of the fall-back night",
			schedule: "  cron: \"30 * * * *\"\n  timezone: Europe/Berlin\n  start_grace_seconds: 600\n  lookback_slots: 3\n",
			log: okRun("h-a", d("2026-10-25T00:30:05Z"), "") + okRun("h-b", d("2026-10-25T01:30:05Z"), "") +
				okRun("h-c", d("2026-10-25T02:30:05Z"), ""),
			now: "2026-10-25T03:05:00Z",
			want: `verdict healthy
expected 3
slot 2026-10-25T00:30:00Z on_time h-a by window
slot 2026-10-25T01:30:00Z on_time h-b by window
slot 2026-10-25T02:30:00Z on_time h-c by window
run h-a succeeded for 2026-10-25T00:30:00Z
run h-b succeeded for 2026-10-25T01:30:00Z
run h-c succeeded for 2026-10-25T02:30:00Z
next 2026-10-25T03:30:00Z due 2026-10-25T03:40:00Z
`,
		},
		{
			name:     "a cron with * in its hour field has no slot in the spring-forward gap",
			schedule: "  cron: \"30 * * * *\"\n  timezone: Europe/Berlin\n  start_grace_seconds: 600\n  lookback_slots: 2\n",
			log:      okRun("h-a", d("2026-03-29T00:30:05Z"), "") + okRun("h-b", d("2026-03-29T01:30:05Z"), ""),
			now:      "2026-03-29T02:05:00Z",
			want: `verdict healthy
expected 2
slot 2026-03-29T00:30:00Z on_time h-a by window
slot 2026-03-29T01:30:00Z on_time h-b by window
run h-a succeeded for 2026-03-29T00:30:00Z
run h-b succeeded for 2026-03-29T01:30:00Z
next 2026-03-29T02:30:00Z due 2026-03-29T02:40:00Z
`,
		},
		{
			name:     "every_seconds: hourly slots from the epoch, one hour missed",
			schedule: "  every_seconds: 3600\n  start_grace_seconds: 600\n  lookback_slots: 3\n",
			log:      okRun("h-09", d("2026-01-01T09:00:05Z"), "") + okRun("h-11", d("2026-01-01T11:00:10Z"), ""),
			now:      "2026-01-01T12:05:00Z",
			want: `verdict unhealthy
expected 3
slot 2026-01-01T09:00:00Z on_time h-09 by window
slot 2026-01-01T10:00:00Z missed
slot 2026-01-01T11:00:00Z on_time h-11 by window
missed 2026-01-01T10:00:00Z due 2026-01-01T10:10:00Z
run h-09 succeeded for 2026-01-01T09:00:00Z
run h-11 succeeded for 2026-01-01T11:00:00Z
next 2026-01-01T12:00:00Z due 2026-01-01T12:10:00Z
`,
		},
		{
			name:     "every_seconds counts from since, and no slot is judged before it",
			schedule: "  every_seconds: 5400\n  start_grace_seconds: 300\n  lookback_slots: 5\n  since: \"2026-01-01T09:15:00Z\"\n",
			log:      okRun("a", d("2026-01-01T09:15:01Z"), "") + okRun("b", d("2026-01-01T10:45:02Z"), ""),
			now:      "2026-01-01T12:18:00Z",
			want: `verdict healthy
expected 2
slot 2026-01-01T09:15:00Z on_time a by window
slot 2026-01-01T10:45:00Z on_time b by window
run a succeeded for 2026-01-01T09:15:00Z
run b succeeded for 2026-01-01T10:45:00Z
next 2026-01-01T12:15:00Z due 2026-01-01T12:20:00Z
`,
		},
		{
			name:     "overdue while alive: the second stage started recently, the run is 4 h in",
			schedule: daily + "  max_runtime_seconds: 7200\n",
			log: event("r-28", 1, 1, "started", d("2026-11-28T02:00:04Z"), "") +
				event("r-28", 1, 1, "succeeded", d("2026-11-28T05:55:00Z"), "") +
				event("r-28", 2, 1, "started", d("2026-11-28T05:55:04Z"), ""),
			now: "2026-11-28T06:00:04Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 overdue for 2026-11-28T02:00:00Z overdue by 7200s
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "running within max runtime is not overdue",
			schedule: daily + "  max_runtime_seconds: 7200\n",
			log: event("r-28", 1, 1, "started", d("2026-11-28T02:00:04Z"), "") +
				event("r-28", 1, 1, "succeeded", d("2026-11-28T02:35:00Z"), "") +
				event("r-28", 2, 1, "started", d("2026-11-28T02:35:00Z"), ""),
			now: "2026-11-28T02:40:00Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 running for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "stalled wins over overdue, which is still measured",
			schedule: daily + "  max_runtime_seconds: 3600\n",
			log:      event("r-28", 1, 1, "started", d("2026-11-28T02:00:04Z"), ""),
			now:      "2026-11-28T06:00:04Z",
			want: `verdict unhealthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 stalled for 2026-11-28T02:00:00Z overdue by 10800s
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a finished run is never overdue, however long it took",
			schedule: daily + "  max_runtime_seconds: 60\n",
			log:      okRun("r-28", d("2026-11-28T02:00:04Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-28T02:00:00Z on_time r-28 by window
run r-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "the empty log with a schedule: every judged slot missed",
			schedule: daily + "  lookback_slots: 3\n",
			log:      "",
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 3
slot 2026-11-26T02:00:00Z missed
slot 2026-11-27T02:00:00Z missed
slot 2026-11-28T02:00:00Z missed
missed 2026-11-26T02:00:00Z due 2026-11-26T02:30:00Z
missed 2026-11-27T02:00:00Z due 2026-11-27T02:30:00Z
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "lookback 7 with one gap in the middle",
			schedule: daily + "  lookback_slots: 7\n",
			log: okRun("n-22", d("2026-11-22T02:00:03Z"), "") + okRun("n-23", d("2026-11-23T02:00:03Z"), "") +
				okRun("n-24", d("2026-11-24T02:00:03Z"), "") + okRun("n-26", d("2026-11-26T02:00:03Z"), "") +
				okRun("n-27", d("2026-11-27T02:00:03Z"), "") + okRun("n-28", d("2026-11-28T02:00:03Z"), "") +
				okRun("n-21", d("2026-11-21T02:00:03Z"), ""),
			now: "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 7
slot 2026-11-22T02:00:00Z on_time n-22 by window
slot 2026-11-23T02:00:00Z on_time n-23 by window
slot 2026-11-24T02:00:00Z on_time n-24 by window
slot 2026-11-25T02:00:00Z missed
slot 2026-11-26T02:00:00Z on_time n-26 by window
slot 2026-11-27T02:00:00Z on_time n-27 by window
slot 2026-11-28T02:00:00Z on_time n-28 by window
missed 2026-11-25T02:00:00Z due 2026-11-25T02:30:00Z
run n-22 succeeded for 2026-11-22T02:00:00Z
run n-23 succeeded for 2026-11-23T02:00:00Z
run n-24 succeeded for 2026-11-24T02:00:00Z
run n-26 succeeded for 2026-11-26T02:00:00Z
run n-27 succeeded for 2026-11-27T02:00:00Z
run n-28 succeeded for 2026-11-28T02:00:00Z
run n-21 succeeded for 2026-11-21T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest green while an older slot was missed",
			schedule: daily + "  lookback_slots: 3\n",
			log:      okRun("n-26", d("2026-11-26T02:00:03Z"), "") + okRun("n-28", d("2026-11-28T02:00:03Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict healthy
expected 3
slot 2026-11-26T02:00:00Z on_time n-26 by window
slot 2026-11-27T02:00:00Z missed
slot 2026-11-28T02:00:00Z on_time n-28 by window
missed 2026-11-27T02:00:00Z due 2026-11-27T02:30:00Z
run n-26 succeeded for 2026-11-26T02:00:00Z
run n-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate all on the same log is unhealthy",
			schedule: daily + "  lookback_slots: 3\n",
			log:      okRun("n-26", d("2026-11-26T02:00:03Z"), "") + okRun("n-28", d("2026-11-28T02:00:03Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			want: `verdict unhealthy
expected 3
slot 2026-11-26T02:00:00Z on_time n-26 by window
slot 2026-11-27T02:00:00Z missed
slot 2026-11-28T02:00:00Z on_time n-28 by window
missed 2026-11-27T02:00:00Z due 2026-11-27T02:30:00Z
run n-26 succeeded for 2026-11-26T02:00:00Z
run n-28 succeeded for 2026-11-28T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "gate latest red when the latest slot was missed though every run succeeded",
			schedule: daily + "  lookback_slots: 3\n",
			log:      okRun("n-26", d("2026-11-26T02:00:03Z"), "") + okRun("n-27", d("2026-11-27T02:00:03Z"), ""),
			now:      "2026-11-28T06:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict unhealthy
expected 3
slot 2026-11-26T02:00:00Z on_time n-26 by window
slot 2026-11-27T02:00:00Z on_time n-27 by window
slot 2026-11-28T02:00:00Z missed
missed 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
run n-26 succeeded for 2026-11-26T02:00:00Z
run n-27 succeeded for 2026-11-27T02:00:00Z
next 2026-11-29T02:00:00Z due 2026-11-29T02:30:00Z
`,
		},
		{
			name:     "a slot inside its grace is not judged yet",
			schedule: daily,
			log:      okRun("r-27", d("2026-11-27T02:00:04Z"), ""),
			now:      "2026-11-28T02:20:00Z",
			want: `verdict healthy
expected 1
slot 2026-11-27T02:00:00Z on_time r-27 by window
run r-27 succeeded for 2026-11-27T02:00:00Z
next 2026-11-28T02:00:00Z due 2026-11-28T02:30:00Z
`,
		},
		{
			name:     "no slot due before since: gate latest falls back to the latest run",
			schedule: daily + "  since: \"2026-12-01T00:00:00Z\"\n",
			log:      okRun("manual", d("2026-11-28T10:00:00Z"), ""),
			now:      "2026-11-28T12:00:00Z",
			gate:     checker.GateLatest,
			want: `verdict healthy
expected 0
unscheduled manual
run manual succeeded
next 2026-12-01T02:00:00Z due 2026-12-01T02:30:00Z
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := checker.Options{Definition: scheduleDef(t, tc.schedule), Now: at(t, tc.now), Gate: tc.gate, File: "log.jsonl"}
			res, err := checker.Check(strings.NewReader(tc.log), opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatalf("log refused: %+v", res.Report.Violations)
			}
			if got := scheduleSummary(res.Snapshot); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			doc, err := render.JSON(res.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			validateDoc(t, doc)
			// The schema validator on every event reads scheduled_for alike.
			slow := opts
			slow.SchemaEveryEvent = true
			if got := checkDoc(t, []byte(tc.log), slow); !bytes.Equal(got, doc) {
				t.Errorf("--schema-every-event snapshot differs:\n%s\nvs\n%s", got, doc)
			}
			// A second check gives the same JSON and text bytes.
			streamed, err := checker.Check(strings.NewReader(tc.log), opts)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := heldWhole(streamed.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole, doc) {
				t.Errorf("the snapshot document differs when its run reports are held whole:\n%s\nvs\n%s", doc, whole)
			}
			if a, b := render.Text(streamed.Snapshot), render.Text(res.Snapshot); a != b {
				t.Errorf("streamed text differs:\n%s\nvs\n%s", a, b)
			}
		})
	}
}

// TestGateLatestDuplicateTrigger: with every slot filled, --gate latest
// gives the verdict it gives without a schedule, where the latest run
// decides; a duplicate trigger that filled the slot first never hides a
// later failed rerun (outside review).
func TestGateLatestDuplicateTrigger(t *testing.T) {
	d := func(s string) time.Time { return at(t, s) }
	plain, err := checker.ParseDefinition([]byte("stages: [{id: 1}, {id: 2}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	scheduled := scheduleDef(t, "  cron: \"0 2 * * *\"\n")
	tests := []struct {
		name, log string
		want      string
	}{
		{"succeeded, then a failed rerun", okRun("r-a", d("2026-11-28T02:00:04Z"), "") + failedRun("r-b", d("2026-11-28T02:21:00Z")), checker.VerdictUnhealthy},
		{"failed, then a successful rerun", failedRun("r-a", d("2026-11-28T02:00:04Z")) + okRun("r-b", d("2026-11-28T02:21:00Z"), ""), checker.VerdictHealthy},
		{"the failed rerun names the slot", okRun("r-a", d("2026-11-28T02:00:04Z"), "") + failedRun("r-b", d("2026-11-28T02:21:00Z")) + event("r-b", 1, 2, "started", d("2026-11-28T02:27:00Z"), claims("2026-11-28T02:00:00Z")), checker.VerdictUnhealthy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, def := range []*checker.Definition{plain, scheduled} {
				res, err := checker.Check(strings.NewReader(tc.log), checker.Options{Definition: def, Now: d("2026-11-28T06:00:00Z"), Gate: checker.GateLatest})
				if err != nil || res.Snapshot == nil {
					t.Fatalf("%v %+v", err, res.Report.Violations)
				}
				if got := string(res.Snapshot.Verdict); got != tc.want {
					t.Errorf("schedule %v: verdict %s, want %s", def.Schedule != nil, got, tc.want)
				}
			}
		})
	}
}

// TestScheduleAbsentKeepsSnapshotKeys shows that a definition without a
// schedule writes none of the schedule keys.
func TestScheduleAbsentKeepsSnapshotKeys(t *testing.T) {
	def, err := checker.ParseDefinition([]byte("stages: [{id: 1}, {id: 2}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := event("r", 1, 1, "started", at(t, "2026-01-01T00:00:00Z"), claims("2026-01-01T00:00:00Z"))
	doc := checkDoc(t, []byte(log), checker.Options{Definition: def, Now: at(t, "2026-01-01T12:00:00Z")})
	for _, key := range []string{`"schedule"`, `"overdue"`, `"scheduled_for"`, `"overdue_by_seconds"`} {
		if bytes.Contains(doc, []byte(key)) {
			t.Errorf("snapshot without a schedule holds %s:\n%s", key, doc)
		}
	}
}

// TestConflictingScheduledFor: two events of one run naming different slots
// break the rule conflicting_scheduled_for, with or without a schedule.
func TestConflictingScheduledFor(t *testing.T) {
	d := func(s string) time.Time { return at(t, s) }
	log := event("r-1", 1, 1, "started", d("2026-11-28T02:00:00Z"), claims("2026-11-28T02:00:00Z")) +
		event("r-1", 1, 1, "succeeded", d("2026-11-28T02:10:00Z"), `,"scheduled_for":null`) +
		event("r-1", 2, 1, "started", d("2026-11-28T02:10:00Z"), claims("2026-11-28T03:00:00+01:00")) +
		event("r-1", 2, 1, "succeeded", d("2026-11-28T02:20:00Z"), claims("2026-11-29T02:00:00Z"))
	for _, def := range []*checker.Definition{scheduleDef(t, "  cron: \"0 2 * * *\"\n"), corpusDefinition(t)} {
		res, err := checker.Check(strings.NewReader(log), checker.Options{Definition: def, Now: d("2026-11-28T06:00:00Z"), File: "log.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		got := render.ViolationsText(res.Report)
		want := "log.jsonl:4: conflicting_scheduled_for: scheduled_for 2026-11-29T02:00:00Z differs from 2026-11-28T02:00:00Z given on line 1 for run r-1; a run fills one slot\n"
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestScheduleDefinitionErrors lists schedules the definition refuses, with
// the exact message.
func TestScheduleDefinitionErrors(t *testing.T) {
	tests := []struct {
		name, schedule, want string
	}{
		{"cron and every_seconds together", "  cron: \"0 2 * * *\"\n  every_seconds: 60\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule: valid against schemas at indexes 0 and 1"},
		{"neither cron nor every_seconds", "  timezone: UTC\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule: missing properties: 'cron'; at /schedule: missing properties: 'every_seconds'"},
		{"four cron fields", "  cron: \"0 2 * *\"\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule/cron: does not match pattern '^[0-9A-Za-z*,/?-]+( +[0-9A-Za-z*,/?-]+){4}$'"},
		{"a descriptor is not a 5-field cron", "  cron: \"@daily\"\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule/cron: does not match pattern '^[0-9A-Za-z*,/?-]+( +[0-9A-Za-z*,/?-]+){4}$'"},
		{"a zone prefix in the cron", "  cron: \"TZ=UTC 0 2 * * *\"\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule/cron: does not match pattern '^[0-9A-Za-z*,/?-]+( +[0-9A-Za-z*,/?-]+){4}$'"},
		{"an hour out of range", "  cron: \"0 25 * * *\"\n",
			`the pipeline definition: schedule.cron "0 25 * * *": end of range (25) above maximum (23): 25`},
		{"a cron that never fires", "  cron: \"0 0 30 2 *\"\n",
			`the pipeline definition: schedule.cron "0 0 30 2 *" never fires`},
		{"an unknown zone", "  cron: \"0 2 * * *\"\n  timezone: Europe/Atlantis\n",
			`the pipeline definition: schedule.timezone "Europe/Atlantis" is not an IANA time zone name (e.g. Europe/Berlin, UTC)`},
		{"the machine's zone", "  cron: \"0 2 * * *\"\n  timezone: Local\n",
			`the pipeline definition: schedule.timezone "Local" depends on the machine; name an IANA zone such as Europe/Berlin, or UTC`},
		{"since without an offset", "  cron: \"0 2 * * *\"\n  since: \"2026-01-01T00:00:00\"\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule/since: '2026-01-01T00:00:00' is not valid 'date-time'; at /schedule/since: must be an RFC 3339 date-time with an offset, uppercase T and Z, at most 9 fraction digits and no leap second, e.g. 2026-01-01T02:00:00Z or 2026-01-01T04:00:00+02:00"},
		{"lookback of zero", "  cron: \"0 2 * * *\"\n  lookback_slots: 0\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule/lookback_slots: must be >= 1 but found 0"},
		{"an unknown key", "  cron: \"0 2 * * *\"\n  grace: 5\n",
			"the pipeline definition does not match pipeline.schema.json: at /schedule: additionalProperties 'grace' not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checker.ParseDefinition([]byte("stages: [{id: 1}]\nschedule:\n" + tc.schedule))
			if err == nil {
				t.Fatal("definition accepted")
			}
			if err.Error() != tc.want {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestScheduleDefaults: a schedule with only a cron judges one slot with a
// 1800 s grace in UTC and no max runtime.
func TestScheduleDefaults(t *testing.T) {
	s := scheduleDef(t, "  cron: \"0 2 * * *\"\n").Schedule
	got := fmt.Sprintf("%s %d %d %d %v", s.Timezone, s.StartGraceSeconds, s.MaxRuntimeSeconds, s.LookbackSlots, s.Since.IsZero())
	if want := "UTC 1800 0 1 true"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestScheduleSlotFunctions checks the pure slot functions directly on a
// cron in a non-UTC zone and an interval.
func TestScheduleSlotFunctions(t *testing.T) {
	berlin := scheduleDef(t, "  cron: \"0 2 * * 1-5\"\n  timezone: Europe/Berlin\n  lookback_slots: 2\n").Schedule
	every := scheduleDef(t, "  every_seconds: 900\n  start_grace_seconds: 0\n  lookback_slots: 4\n").Schedule
	fmtSlots := func(ts []time.Time) string {
		var parts []string
		for _, x := range ts {
			parts = append(parts, x.Format(time.RFC3339))
		}
		return strings.Join(parts, " ")
	}
	tests := []struct {
		name, got, want string
	}{
		// 2026-11-28 is a Saturday: the weekday slots are Thursday's and Friday's, 01:00Z in winter.
		{"judged weekday slots", fmtSlots(berlin.JudgedSlots(at(t, "2026-11-29T12:00:00Z"))), "2026-11-26T01:00:00Z 2026-11-27T01:00:00Z"},
		{"a slot in the zone", fmt.Sprint(berlin.IsSlot(at(t, "2026-11-27T02:00:00+01:00"))), "true"},
		{"not a slot on a Saturday", fmt.Sprint(berlin.IsSlot(at(t, "2026-11-28T01:00:00Z"))), "false"},
		{"not a slot a nanosecond off", fmt.Sprint(berlin.IsSlot(at(t, "2026-11-27T01:00:00.000000001Z"))), "false"},
		{"window slot at the grace's end", fmtSlot(berlin.WindowSlot(at(t, "2026-11-27T01:30:00Z"))), "2026-11-27T01:00:00Z"},
		{"no window slot just after it", fmtSlot(berlin.WindowSlot(at(t, "2026-11-27T01:30:01Z"))), "none"},
		{"no window slot before the slot", fmtSlot(berlin.WindowSlot(at(t, "2026-11-27T00:59:59Z"))), "none"},
		{"next slot after the weekend", fmtSlot(checker.NextSlot(berlin, at(t, "2026-11-28T12:00:00Z"))), "2026-11-30T01:00:00Z"},
		{"interval slots with zero grace include now", fmtSlots(every.JudgedSlots(at(t, "2026-01-01T01:00:00Z"))), "2026-01-01T00:15:00Z 2026-01-01T00:30:00Z 2026-01-01T00:45:00Z 2026-01-01T01:00:00Z"},
		{"interval window is the slot itself", fmtSlot(every.WindowSlot(at(t, "2026-01-01T00:15:00Z"))), "2026-01-01T00:15:00Z"},
		{"interval slot", fmt.Sprint(every.IsSlot(at(t, "1969-12-31T23:45:00Z"))), "true"},
		{"interval next before the epoch", fmtSlot(checker.NextSlot(every, at(t, "1969-12-31T23:50:00Z"))), "1970-01-01T00:00:00Z"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

func fmtSlot(t time.Time, ok bool) string {
	if !ok {
		return "none"
	}
	return t.Format(time.RFC3339)
}
