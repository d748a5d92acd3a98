package render_test

import (
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// TestAxisFormat: the axis shows seconds on a run of minutes, hours and
// minutes on a run of hours, and dates on a run of days.
func TestAxisFormat(t *testing.T) {
	for _, c := range []struct {
		span          time.Duration
		mermaid, step string
	}{
		{0, "%H:%M:%S", "1s"},
		{40 * time.Second, "%H:%M:%S", "10s"},
		{3 * time.Minute, "%H:%M:%S", "30s"},
		{6 * time.Minute, "%H:%M", "1m0s"},
		{65 * time.Minute, "%H:%M", "10m0s"},
		{10 * time.Hour, "%H:%M", "2h0m0s"},
		{3 * 24 * time.Hour, "%m-%d %H:%M", "12h0m0s"},
		{10 * 24 * time.Hour, "%m-%d", "48h0m0s"},
	} {
		ax := render.AxisFormat(c.span)
		if ax.Mermaid != c.mermaid || ax.Step.String() != c.step {
			t.Errorf("AxisFormat(%s) = %s every %s, want %s every %s", c.span, ax.Mermaid, ax.Step, c.mermaid, c.step)
		}
	}
}

// TestAxisTicks: ticks fall on whole steps, inside the span, labels unique.
func TestAxisTicks(t *testing.T) {
	var got []string
	for _, tk := range render.AxisTicks(at("2026-01-01T10:04:07Z"), at("2026-01-01T10:06:07Z")) {
		got = append(got, tk.Label)
	}
	if want := "10:04:30 10:05:00 10:05:30 10:06:00"; strings.Join(got, " ") != want {
		t.Errorf("ticks %q, want %q", strings.Join(got, " "), want)
	}
}

// TestGanttShortStalledRun: a run of two minutes gets a seconds axis; a
// stall candidate's bar runs to now and is not crit; the run's span runs
// to now, not the 0 s between its only event and itself.
func TestGanttShortStalledRun(t *testing.T) {
	r := withTimes(&checker.RunReport{
		RunID: "r-2", State: checker.RunStalled, FirstEventAt: "2026-01-01T10:00:00Z", LastEventAt: "2026-01-01T10:00:00Z",
		Stages: []checker.StageReport{{Stage: checker.IntStage(1), State: checker.StageStalled, AttemptCount: 1, Attempts: []checker.AttemptReport{
			{Attempt: 1, Status: checker.StageStalled, StartedAt: "2026-01-01T10:00:00Z", SilentForSeconds: ptr(120.0)},
		}}},
	})
	now := at("2026-01-01T10:02:00Z")
	got := render.Gantt(r, now)
	for _, want := range []string{"    axisFormat %H:%M:%S\n", "    attempt 1 stall candidate :s1a1, 2026-01-01 10:00:00, 2026-01-01 10:02:00\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Gantt lacks %q:\n%s", want, got)
		}
	}
	if secs := render.RunSeconds(r, now); secs != 120 {
		t.Errorf("RunSeconds = %v, want 120", secs)
	}
}

// TestStateMarks: every state has one symbol and one word, and no two
// states share a symbol; a stall candidate is not a failure.
func TestStateMarks(t *testing.T) {
	seen := map[string]string{}
	for _, m := range render.StateMarks() {
		if other, dup := seen[m.Symbol]; dup {
			t.Errorf("%s and %s share the symbol %s", other, m.State, m.Symbol)
		}
		seen[m.Symbol] = m.State
		if m.Word != m.State {
			t.Errorf("state %s has the word %q", m.State, m.Word)
		}
	}
	for _, s := range []string{checker.RunSucceeded, checker.RunFailed, checker.RunUnknown, checker.RunCancelled, checker.RunStalled,
		checker.RunOverdue, checker.RunRunning, checker.RunIncomplete, checker.StagePending, checker.StageBlocked, render.StateMissed} {
		if _, ok := seen[render.Mark(s).Symbol]; !ok || render.Mark(s).State != s {
			t.Errorf("state %s is not in the table", s)
		}
	}
	if render.Mark(checker.RunStalled).Failure || !render.Mark(checker.RunFailed).Failure {
		t.Error("stalled is drawn as a failure, or failed is not")
	}
	if got, want := render.LegendMarkdown(), "_States: ✅ succeeded · ❌ failed · ❓ unknown · ⏹️ cancelled · ⏸️ stalled · ⌛ overdue · ⏳ running · ⚠️ incomplete · ⚪ pending · ⛔ blocked · ⏭️ skipped · 🚫 missed._\n"; got != want {
		t.Errorf("LegendMarkdown() = %q, want %q", got, want)
	}
}
