package render_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// listingSnapshot has one run a minute from 10:00 in the given states
// (first letter: f failed, s succeeded), run ids r-00, r-01..., in that
// order, and missed slots at the given minutes.
func listingSnapshot(states string, missedAt ...int) *checker.Snapshot {
	base := at("2026-01-01T10:00:00Z")
	s := &checker.Snapshot{GeneratedAtUTC: "2026-01-01T12:00:00Z", Verdict: checker.VerdictUnhealthy, RunCount: len(states)}
	var runs []checker.RunReport
	for i, c := range states {
		st := checker.RunSucceeded
		if c == 'f' {
			st = checker.RunFailed
			s.StateCounts.Failed++
		} else {
			s.StateCounts.Succeeded++
		}
		first := base.Add(time.Duration(i) * time.Minute)
		runs = append(runs, checker.RunReport{RunID: fmt.Sprintf("r-%02d", i), State: checker.RunState(st), FirstEventAt: first.Format(time.RFC3339), FirstLine: i + 1, Recovery: checker.Recovery{Action: checker.ActionNone}})
		withTimes(&runs[i])
	}
	setRuns(s, runs)
	if len(missedAt) > 0 {
		s.Schedule = &checker.ScheduleReport{ExpectedSlots: len(missedAt)}
		for _, m := range missedAt {
			slot := base.Add(time.Duration(m) * time.Minute)
			s.Schedule.Missed = append(s.Schedule.Missed, checker.MissedSlot{ScheduledFor: slot.Format(time.RFC3339), Slot: slot})
		}
	}
	return s
}

// names lists rows as run ids, "missed@MINUTE" for a missed slot.
func names(rows []render.Row) string {
	var out []string
	for _, r := range rows {
		if r.Missed != nil {
			out = append(out, "missed@"+r.Missed.Slot.Format("04"))
			continue
		}
		out = append(out, r.Run.RunID)
	}
	return strings.Join(out, " ")
}

// TestSelect: the default listing is the latest unhealthy rows (capped)
// then the latest runs not among them, each latest first, with counts of
// the rest; a missed slot is unhealthy and follows a run that starts at
// its time.
func TestSelect(t *testing.T) {
	for _, c := range []struct {
		name                  string
		snap                  *checker.Snapshot
		o                     render.ListOptions
		unhealthy, latest     string
		more, missed, succeed int
	}{
		{"healthy", listingSnapshot("sssssss"), render.ListOptions{}, "", "r-06 r-05 r-04 r-03 r-02", 0, 0, 2},
		{"one failure among many", listingSnapshot("sfsssssss"), render.ListOptions{}, "r-01", "r-08 r-07 r-06 r-05 r-04", 0, 0, 3},
		{"latest failed: listed once", listingSnapshot("sssf"), render.ListOptions{}, "r-03", "r-02 r-01 r-00", 0, 0, 0},
		{"unhealthy capped", listingSnapshot("ffffssf"), render.ListOptions{MaxUnhealthy: 2, Latest: 3}, "r-06 r-03", "r-05 r-04", 3, 0, 0},
		{"missed slots", listingSnapshot("sfs", 1, 5), render.ListOptions{}, "missed@05 r-01 missed@01", "r-02 r-00", 0, 0, 0},
		{"missed slots capped", listingSnapshot("sss", 7, 8, 9), render.ListOptions{MaxUnhealthy: 1, Latest: 1}, "missed@09", "r-02", 0, 2, 2},
		{"empty", listingSnapshot(""), render.ListOptions{}, "", "", 0, 0, 0},
	} {
		l := render.Select(c.snap, c.o)
		if got := names(l.Unhealthy); got != c.unhealthy {
			t.Errorf("%s: unhealthy %q, want %q", c.name, got, c.unhealthy)
		}
		if got := names(l.Latest); got != c.latest {
			t.Errorf("%s: latest %q, want %q", c.name, got, c.latest)
		}
		if l.MoreUnhealthy != c.more || l.MoreMissed != c.missed || l.MoreSucceeded != c.succeed {
			t.Errorf("%s: more %d unhealthy, %d missed, %d succeeded; want %d, %d, %d", c.name, l.MoreUnhealthy, l.MoreMissed, l.MoreSucceeded, c.more, c.missed, c.succeed)
		}
	}
}

// TestSelectorCaps: a Selector with the default caps, offered every run
// once, gives for any smaller caps the listing Select gives with them,
// so that the step log and the job summary (which may list fewer rows to
// fit the runner's limit) share one pass over the runs.
func TestSelectorCaps(t *testing.T) {
	for _, c := range []struct {
		name string
		snap *checker.Snapshot
	}{
		{"healthy", listingSnapshot("sssssss")},
		{"latest failed", listingSnapshot("ssfsfsf")},
		{"many failures", listingSnapshot(strings.Repeat("sssfsfsfsf", 4))},
		{"missed slots", listingSnapshot("sfsffs", 1, 3, 5)},
		{"empty", listingSnapshot("")},
	} {
		sel := render.NewSelector(c.snap, render.ListOptions{})
		for r := range c.snap.Runs() {
			sel.Offer(r)
		}
		for u := 1; u <= render.DefaultMaxUnhealthy; u++ {
			for l := 1; l <= render.DefaultLatestRuns; l++ {
				o := render.ListOptions{MaxUnhealthy: u, Latest: l}
				got, want := sel.Listing(o), render.Select(c.snap, o)
				if names(got.Unhealthy) != names(want.Unhealthy) || names(got.Latest) != names(want.Latest) ||
					got.MoreUnhealthy != want.MoreUnhealthy || got.MoreMissed != want.MoreMissed || got.MoreSucceeded != want.MoreSucceeded {
					t.Errorf("%s, caps %d/%d: Selector %+v, Select %+v", c.name, o.MaxUnhealthy, o.Latest, got, want)
				}
			}
		}
	}
}

// TestTextCaps: 40 failures among 100 runs list the latest 20 of them, a
// line for the other 20, the latest runs and a line for the succeeded runs not
// shown, and the verdict first and last; --all-runs lists every run.
func TestTextCaps(t *testing.T) {
	states := strings.Repeat("sssfsfsfsf", 10) // 40 failed, 60 succeeded
	s := listingSnapshot(states)
	got := render.Text(s)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	head := "greenlight: " + render.Headline(s)
	// Of the 5 latest runs, 3 failed (r-99, r-97, r-95): listed first.
	if len(lines) != 1+20+1+2+1+1 || lines[0] != head || lines[len(lines)-1] != head {
		t.Fatalf("%d lines:\n%s", len(lines), got)
	}
	if lines[21] != "  ... 20 more unhealthy runs, see --format json" || lines[24] != "  ... 58 more succeeded runs, see --all-runs" {
		t.Errorf("the lines on what is not shown:\n%s", got)
	}
	var b strings.Builder
	if err := render.WriteTextOptions(&b, s, render.TextOptions{List: render.ListOptions{All: true}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 1+100+1 {
		t.Errorf("--all-runs: %d lines, want 102", n)
	}
}

// TestTextColor: the verdict, and only it, is painted, first and last.
func TestTextColor(t *testing.T) {
	var b strings.Builder
	if err := render.WriteTextOptions(&b, listingSnapshot("sf"), render.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	want := "greenlight: \x1b[1;31munhealthy\x1b[0m: 2 runs (1 succeeded, 1 failed), gate \n"
	if got := b.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, want) || strings.Count(got, "\x1b") != 4 {
		t.Errorf("got %q", got)
	}
}
