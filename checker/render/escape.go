// Package render turns checker results into text for each sink: the
// terminal, Markdown (reports and the GitHub job summary) and JSON. It is
// pure: every function returns bytes or a string and touches no file.
//
// Everything that comes from an event log is untrusted. Each sink has its own
// escaping function here, and every piece of log text goes through it.
package render

import (
	"strconv"
	"strings"
	"unicode"
)

// Terminal makes untrusted text safe for a terminal: when s holds a control
// or otherwise unprintable character (including bidi overrides), or a
// backslash or double quote, it is returned Go-quoted ("a\nb"); otherwise as it is.
func Terminal(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '"' || r == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}

// TerminalMessage makes a message safe for a terminal without quoting it as
// a whole (docs/contract.md, "Messages"): each control or otherwise
// unprintable character (a bidi override too) becomes its Go escape (\x1b,
// \u202e) in place, and the rest is left as it is, so the quotes a message
// puts around a value stay plain quotes. The checker quotes the values it
// takes from a log (strconv.Quote) where a quote could blur them.
func TerminalMessage(s string) string {
	for i, r := range s {
		if !unicode.IsPrint(r) {
			var b strings.Builder
			b.WriteString(s[:i])
			for _, r := range s[i:] {
				if unicode.IsPrint(r) {
					b.WriteRune(r)
				} else {
					q := strconv.QuoteRune(r)
					b.WriteString(q[1 : len(q)-1])
				}
			}
			return b.String()
		}
	}
	return s
}

// Markdown makes untrusted text inert inside a Markdown paragraph or table
// cell: HTML metacharacters become entities, Markdown punctuation is
// backslash-escaped, line breaks and other control characters become spaces
// or escapes, so no link, image, heading, table cell or HTML tag can form.
func Markdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		case '|':
			b.WriteString("&#124;")
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '#', '+', '-', '.', '!', '~', ':', '@', '$', '%', '=':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			if !unicode.IsPrint(r) && r != ' ' {
				b.WriteString(strconv.QuoteRune(r))
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
