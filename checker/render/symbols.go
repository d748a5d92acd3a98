package render

import (
	"strings"

	"github.com/greenlight-ci/greenlight/checker"
)

// StateMark is how every renderer for people shows one state of a run, a
// stage, an attempt or a slot: one symbol (for Markdown and tables), one
// word (the state's name in the snapshot), a colour (CSS hex, for the HTML
// report and the viewer) and whether it is a failure (a red bar, Mermaid's
// crit). A stall candidate is inferred from silence, so it is not drawn as
// a failure.
type StateMark struct {
	State   string `json:"state"`
	Symbol  string `json:"symbol"`
	Word    string `json:"word"`
	Colour  string `json:"colour"`
	Failure bool   `json:"failure"`
	// Meaning says in a few words what the state means, for a legend.
	Meaning string `json:"meaning"`
}

// stateMarks is the one table of state symbols, in legend order: each
// state has its own symbol, and no two states share one (missed slots and
// cancelled runs did, 🚫, before).
var stateMarks = []StateMark{
	{checker.RunSucceeded, "✅", "succeeded", "#1a7f37", false, "every expected stage succeeded"},
	{checker.RunFailed, "❌", "failed", "#cf222e", true, "a stage failed"},
	{checker.RunUnknown, "❓", "unknown", "#8250df", false, "an outcome nobody could confirm"},
	{checker.RunCancelled, "⏹️", "cancelled", "#6e7781", false, "a stage was cancelled"},
	{checker.RunStalled, "⏸️", "stalled", "#bf8700", false, "silent too long: a stall candidate, not proof"},
	{checker.RunOverdue, "⌛", "overdue", "#9a6700", false, "in progress past the schedule's max runtime"},
	{checker.RunRunning, "⏳", "running", "#0969da", false, "in progress, recent evidence"},
	{checker.RunIncomplete, "⚠️", "incomplete", "#9a6700", false, "nothing failed or in progress, but a stage never succeeded"},
	{checker.StagePending, "⚪", "pending", "#6e7781", false, "a stage that never started"},
	{checker.StageBlocked, "⛔", "blocked", "#6e7781", false, "a stage not started because one it depends on did not succeed"},
	{checker.StageSkipped, "⏭️", "skipped", "#57606a", false, "a skippable stage skipped on purpose, or a stage after it"},
	{StateMissed, "🚫", "missed", "#cf222e", true, "a scheduled slot no run filled"},
}

// unknownMark is the mark of a state the table does not hold.
var unknownMark = StateMark{Symbol: "❔", Colour: "#6e7781"}

// StateMarks returns the table of state marks in legend order (a copy).
func StateMarks() []StateMark { return append([]StateMark(nil), stateMarks...) }

// Mark returns the mark of a run, stage or attempt state, or of
// StateMissed; a state the table does not know gets ❔ and its own name.
func Mark(state string) StateMark {
	for _, m := range stateMarks {
		if m.State == state {
			return m
		}
	}
	m := unknownMark
	m.State, m.Word = state, state
	return m
}

// stateIcon is Mark(state).Symbol, for the Markdown renderers.
func stateIcon(state string) string { return Mark(state).Symbol }

// LegendMarkdown is the job summary's one-line legend of the state symbols:
// "✅ succeeded · ❌ failed · …".
func LegendMarkdown() string {
	parts := make([]string, len(stateMarks))
	for i, m := range stateMarks {
		parts[i] = m.Symbol + " " + m.Word
	}
	return "_States: " + strings.Join(parts, " · ") + "._\n"
}

// StateCount is the number of runs in a run state that c counts: 0 for
// overdue without a schedule, or for a name that is no run state.
func StateCount(c checker.StateCounts, state string) int { return stateCount(c, state) }
