package render

import (
	"html"
	"html/template"
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
	// Glyph is the symbol as SVG path data in a 16 by 16 box, stroked in
	// white over a disc of Colour (Icon), so that the HTML report and the
	// viewer draw it the same with or without an emoji font.
	Glyph string `json:"glyph"`
}

// Icon is the mark drawn as inline SVG: a disc of the state's colour with
// its glyph in white, labelled with the state's word for screen readers.
// It is an element, not an image, so the report's Content-Security-Policy
// (no img-src) allows it.
func (m StateMark) Icon() template.HTML {
	var b strings.Builder
	b.WriteString(`<svg class="icon" viewBox="0 0 16 16" width="16" height="16" role="img" aria-label="`)
	b.WriteString(html.EscapeString(m.Word))
	b.WriteString(`"><circle cx="8" cy="8" r="8" fill="`)
	b.WriteString(html.EscapeString(m.Colour))
	b.WriteString(`"/>`)
	if m.Glyph != "" {
		b.WriteString(`<path d="`)
		b.WriteString(html.EscapeString(m.Glyph))
		b.WriteString(`" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// stateMarks is the one table of state symbols, in legend order: each
// state has its own symbol, and no two states share one (missed slots and
// cancelled runs did, 🚫, before).
var stateMarks = []StateMark{
	{checker.RunSucceeded, "✅", "succeeded", "#1a7f37", false, "every expected stage succeeded", "M4.5 8.5l2.3 2.3L11.5 5.8"},
	{checker.RunFailed, "❌", "failed", "#cf222e", true, "a stage failed", "M5.5 5.5l5 5M10.5 5.5l-5 5"},
	{checker.RunUnknown, "❓", "unknown", "#8250df", false, "an outcome nobody could confirm", "M6 6.2a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6.9v.5M8 11.6v.1"},
	{checker.RunCancelled, "⏹️", "cancelled", "#6e7781", false, "a stage was cancelled", "M5.5 5.5h5v5h-5z"},
	{checker.RunStalled, "⏸️", "stalled", "#bf8700", false, "silent too long: a stall candidate, not proof", "M6.5 5v6M9.5 5v6"},
	{checker.RunOverdue, "⌛", "overdue", "#9a6700", false, "in progress past the schedule's max runtime", "M5 4.5h6M5 11.5h6M5.5 4.5l5 7M10.5 4.5l-5 7"},
	{checker.RunRunning, "⏳", "running", "#0969da", false, "in progress, recent evidence", "M8 4.5V8l2.5 1.5"},
	{checker.RunIncomplete, "⚠️", "incomplete", "#9a6700", false, "nothing failed or in progress, but a stage never succeeded", "M8 4.5v4M8 11.2v.1"},
	{checker.StagePending, "⚪", "pending", "#6e7781", false, "a stage that never started", "M8 8h.01"},
	{checker.StageBlocked, "⛔", "blocked", "#6e7781", false, "a stage not started because one it depends on did not succeed", "M4.5 8h7"},
	{checker.StageSkipped, "⏭️", "skipped", "#57606a", false, "a skippable stage skipped on purpose, or a stage after it", "M4.5 5l3 3-3 3M8.5 5l3 3-3 3"},
	{StateMissed, "🚫", "missed", "#cf222e", true, "a scheduled slot no run filled", "M5.2 10.8l5.6-5.6"},
}

// unknownMark is the mark of a state the table does not hold.
var unknownMark = StateMark{Symbol: "❔", Colour: "#6e7781", Glyph: "M6 6.2a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6.9v.5M8 11.6v.1"}

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
