package render

import "testing"

func TestTerminal(t *testing.T) {
	cases := map[string]string{
		"r-17":                  "r-17",
		"café 漢字":               "café 漢字",
		"a\nb":                  `"a\nb"`,
		"\x1b[31mred":           `"\x1b[31mred"`,
		"rtl\u202eevil":         `"rtl\u202eevil"`,
		`say "hi"`:              `"say \"hi\""`,
		"tab\there":             `"tab\there"`,
		"::error::x":            "::error::x",
		"<img src=x onerror=1>": "<img src=x onerror=1>",
	}
	for in, want := range cases {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTerminalMessage(t *testing.T) {
	cases := map[string]string{
		`at /status: found "succeded"`: `at /status: found "succeded"`,
		"run \x1b[31mred":              `run \x1b[31mred`,
		"rtl\u202eevil and a\nb":       `rtl\u202eevil and a\nb`,
		"café":                         "café",
	}
	for in, want := range cases {
		if got := TerminalMessage(in); got != want {
			t.Errorf("TerminalMessage(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAnnotation(t *testing.T) {
	cases := map[string]string{
		"plain: 50% done, a:b":     "plain: 50% done, a:b",
		"e\x1b]8;;http://x\a link": `e\x1b]8;;http://x\a link`,
		"rtl\u202eevil":            `rtl\u202eevil`,
		"two\nlines\r\n\ttab":      "two\nlines\r\n\ttab",
		"\x00\x7f\u0085":           `\x00\x7f\u0085`,
		"café":                     "café",
	}
	for in, want := range cases {
		if got := Annotation(in); got != want {
			t.Errorf("Annotation(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	cases := map[string]string{
		"plain words":               "plain words",
		"<img src=x onerror=a()>":   `&lt;img src\=x onerror\=a\(\)&gt;`,
		"a | b":                     "a &#124; b",
		"[x](http://e)":             `\[x\]\(http\://e\)`,
		"line1\nline2\r\n# head":    `line1 line2  \# head`,
		"**b** _i_ `c` ~s~":         "\\*\\*b\\*\\* \\_i\\_ \\`c\\` \\~s\\~",
		"&amp; \"q\" 'a'":           "&amp;amp; &quot;q&quot; &#39;a&#39;",
		"\x00\x7f":                  `'\x00''\x7f'`,
		"@user #1 :emoji: 100% $x$": `\@user \#1 \:emoji\: 100\% \$x\$`,
	}
	for in, want := range cases {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %s, want %s", in, got, want)
		}
	}
}
