// Package words holds the small pieces of English that every output for
// people shares (docs/contract.md, "Messages"): counts with the right
// plural, the nearest of some known names for a did-you-mean, and
// paragraphs wrapped for a terminal. It is pure, so the checker, its
// renderers and the shells can all use it.
package words

import (
	"strconv"
	"strings"
)

// verbs are the verbs a counted phrase may end with, and their plurals.
var verbs = map[string]string{
	"is":      "are",
	"was":     "were",
	"has":     "have",
	"does":    "do",
	"follows": "follow",
	"breaks":  "break",
	"matches": "match",
}

// irregular are the nouns whose plural the rules of pluralWord miss.
var irregular = map[string]string{
	"child": "children",
	"this":  "these",
	"it":    "they",
}

// Plural is phrase for n == 1 and its plural otherwise. The last word is
// the noun ("contract violation" gives "contract violations", "entry"
// "entries"), unless it is a verb, when the verb and the word before it
// change ("event is" gives "events are", "file follows" "files follow").
// A noun that ends in s, x, z, ch or sh takes "es"; one in a consonant and
// y takes "ies".
func Plural(n int, phrase string) string {
	if n == 1 {
		return phrase
	}
	ws := strings.Split(phrase, " ")
	last := len(ws) - 1
	if v, ok := verbs[ws[last]]; ok && last > 0 {
		ws[last] = v
		last--
	}
	ws[last] = pluralWord(ws[last])
	return strings.Join(ws, " ")
}

func pluralWord(w string) string {
	if p, ok := irregular[w]; ok {
		return p
	}
	switch {
	case w == "":
		return w
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"),
		strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		return w + "es"
	case len(w) > 1 && w[len(w)-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// Count is n in decimal, a space and Plural(n, noun): "1 event", "2 events",
// "0 violations".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun)
}

// Nearest is the one of known closest to s in edit distance (Distance,
// ignoring case), when it is close enough to be a slip: at most 1 edit for
// a name of up to 4 letters, 2 up to 8 and 3 beyond. Ties go to the
// earlier in known; "" when none is close or s is empty.
func Nearest(s string, known []string) string {
	if s == "" {
		return ""
	}
	ls := strings.ToLower(s)
	limit := 1
	switch n := len([]rune(ls)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		d := Distance(ls, strings.ToLower(k))
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Wrap breaks text into lines of at most width columns at spaces (a word
// longer than width stands on its own line), without a final newline.
func Wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		n := len([]rune(w))
		switch {
		case col == 0:
		case col+1+n > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}

// Distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, substitutions of one rune and swaps of two
// adjacent runes that turn a into b ("stauts" is 1 from "status").
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Knob is the name a shell gives the checker.Request field field (its Go
// name, checker.Request.Knob): its words in lower case joined by sep,
// after prefix ("--", "max-age" for MaxAge with sep '-'; "input_format" for
// InputFormat with sep '_'). JobLogFile, the job log's name, is the job
// log itself to every shell: prefix "job" sep "log".
func Knob(field, prefix string, sep byte) string {
	if field == "JobLogFile" {
		field = "JobLog"
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i, r := range field {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte(sep)
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
