// Package render turns checker results into text for each sink: the
// terminal, Markdown (reports and the GitHub job summary) and JSON. It is
// pure: every function returns bytes or a string and touches no file.
//
// Everything that comes from an event log is untrusted. Each sink has its own
// escaping function here, and every piece of log text goes through it.
package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	return escapeInPlace(s, unicode.IsPrint)
}

// escapeInPlace replaces each rune of s that keep refuses by its Go escape
// (\x1b, \u202e), leaving the rest as it is; s itself when keep takes all.
func escapeInPlace(s string, keep func(rune) bool) string {
	for i, r := range s {
		if !keep(r) {
			var b strings.Builder
			b.WriteString(s[:i])
			for _, r := range s[i:] {
				if keep(r) {
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

// Annotation makes untrusted text safe for a workflow command's message or
// property (an annotation in the step log, which the runner's log viewer
// renders as a terminal would): like TerminalMessage, each control or
// otherwise unprintable character (ESC, BEL, a bidi override) becomes its
// Go escape in place, so no escape sequence reaches the log viewer, but
// tab, line feed and carriage return stay, since the workflow command's
// own escaping (%0A, %0D) keeps them inert and a multi-line error stays
// readable in the annotation.
func Annotation(s string) string {
	return escapeInPlace(s, func(r rune) bool { return unicode.IsPrint(r) || r == '\t' || r == '\n' || r == '\r' })
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

// XML escapes untrusted text for an XML 1.0 attribute value or character
// data: the five markup characters become entities, tab, line feed and
// carriage return become character references (so an attribute keeps them
// and no parser normalizes them away), and every character XML 1.0 cannot
// hold at all (U+0000 to U+001F other than those three, U+FFFE, U+FFFF) is
// replaced visibly by its escape \uXXXX (the notation of JSON and Go: ESC
// becomes \u001b), and a byte that is not UTF-8 by \xHH (docs/formats.md):
// nothing is dropped.
func XML(s string) string { return xmlEscape(s, true) }

// XMLText escapes untrusted text for XML character data as XML does, but
// keeps tab and line feed as they are: in an element's text they survive
// parsing, and a failure's message stays readable in a CI's test view.
func XMLText(s string) string { return xmlEscape(s, false) }

func xmlEscape(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
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
			b.WriteString("&apos;")
		case '\t':
			if !attr {
				b.WriteByte('\t')
				continue
			}
			b.WriteString("&#x9;")
		case '\n':
			if !attr {
				b.WriteByte('\n')
				continue
			}
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			if r < 0x20 || r == 0xFFFE || r == 0xFFFF {
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// labelValue escapes a label value for the text exposition: backslash,
// double quote and line feed are escaped; every other control character
// is written as \uXXXX visibly (the format has no escape for it).
func labelValue(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
