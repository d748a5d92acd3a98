package render_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/render"
)

// junitSuites is the JUnit XML document as a consumer reads it.
type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnit renders every formatLog as JUnit XML, compares it with its
// golden, validates it with xmllint against the Apache Ant JUnit schema,
// and parses it back to cross-check every count with the snapshot.
func TestJUnit(t *testing.T) {
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			l := checkFormatLog(t, fl)
			var b bytes.Buffer
			if err := render.WriteJUnit(&b, []render.Log{l}); err != nil {
				t.Fatal(err)
			}
			golden(t, fl.name+".junit.xml", b.Bytes())
			assertInert(t, "junit", b.Bytes())

			var doc junitSuites
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("encoding/xml cannot read the document: %v", err)
			}
			if len(doc.Suites) != 1 {
				t.Fatalf("%d testsuites, want 1", len(doc.Suites))
			}
			s := doc.Suites[0]
			failures, errors, skipped := 0, 0, 0
			for _, c := range s.Cases {
				if c.Classname != l.Pipeline {
					t.Errorf("testcase %q has classname %q, want %q", c.Name, c.Classname, l.Pipeline)
				}
				switch {
				case c.Failure != nil:
					failures++
				case c.Error != nil:
					errors++
				case c.Skipped != nil:
					skipped++
				}
			}
			if s.Tests != len(s.Cases) || s.Failures != failures || s.Errors != errors || s.Skipped != skipped {
				t.Errorf("suite counts tests=%d failures=%d errors=%d skipped=%d, its testcases %d/%d/%d/%d", s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), failures, errors, skipped)
			}
			verdict := s.Cases[0]
			if verdict.Name != "verdict" {
				t.Fatalf("first testcase %q, want verdict", verdict.Name)
			}
			snap := l.Result.Snapshot
			if !l.Result.Report.Valid {
				rep := l.Result.Report
				if verdict.Error == nil || verdict.Error.Type != "invalid" {
					t.Errorf("verdict of an invalid log is not an invalid error: %+v", verdict)
				}
				if errors != 1+len(rep.Violations) || len(s.Cases) != 1+len(rep.Violations) {
					t.Errorf("%d errors in %d testcases for %d violations", errors, len(s.Cases), len(rep.Violations))
				}
				for i, v := range rep.Violations {
					if c := s.Cases[1+i]; c.Error == nil || c.Error.Type != string(v.Rule) || c.Error.Message != v.Message {
						t.Errorf("testcase %d does not carry violation %+v: %+v", 1+i, v, c)
					}
				}
				return
			}
			if (verdict.Failure == nil) != (snap.Verdict == checker.VerdictHealthy) {
				t.Errorf("verdict testcase %+v for verdict %s", verdict, snap.Verdict)
			}
			missed, _ := render.MissedCount(snap)
			c := snap.StateCounts
			overdue := 0
			if c.Overdue != nil {
				overdue = *c.Overdue
			}
			wantFailures := c.Failed + c.Cancelled + c.Incomplete
			if snap.Verdict != checker.VerdictHealthy {
				wantFailures++
			}
			if got, want := len(s.Cases), 1+snap.RunCount+missed; got != want {
				t.Errorf("%d testcases, want %d (verdict, runs, missed slots)", got, want)
			}
			if failures != wantFailures || errors != c.Stalled+c.Unknown+overdue+missed || skipped != c.Running {
				t.Errorf("failures/errors/skipped %d/%d/%d, snapshot counts %+v and %d missed", failures, errors, skipped, c, missed)
			}
			// The run ids come back as the log wrote them.
			i := 1
			render.EachRow(snap, func(row render.Row) bool {
				if row.Run != nil && s.Cases[i].Name != row.Run.RunID {
					t.Errorf("testcase %d is named %q, want the run id %q", i, s.Cases[i].Name, row.Run.RunID)
				}
				i++
				return true
			})
		})
	}
}

// TestJUnitSchema validates every golden with xmllint against the JUnit
// schema that Jenkins and GitLab read.
func TestJUnitSchema(t *testing.T) {
	xmllint := requireTool(t, "xmllint", "libxml2-utils")
	xsd := sharedFile(t, "schemas/JUnit.xsd")
	for _, fl := range formatLogs {
		t.Run(fl.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render.WriteJUnit(&b, []render.Log{checkFormatLog(t, fl)}); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", xsd, writeTemp(t, fl.name+".xml", b.Bytes())).CombinedOutput()
			if err != nil {
				t.Errorf("xmllint rejects the document: %v\n%s", err, out)
			}
		})
	}
}

// xmlVisible is what XML promises a reader gets back: s with every
// character XML 1.0 cannot hold written as \uXXXX and every byte that is
// not UTF-8 as \xHH.
func xmlVisible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// FuzzXMLEscape: whatever the text, an attribute and an element built
// with XML parse, and give back the text with only the characters XML
// cannot hold made visible; no text can add an attribute or an element.
func FuzzXMLEscape(f *testing.F) {
	for _, s := range []string{"", "a\"b", "</a><b x='1'>", "\x00\x1b[31m\r\n\t", "\ufffe\xff", "]]><!--", "&amp;&#0;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := `<a v="` + render.XML(s) + `">` + render.XMLText(s) + `</a>`
		var v struct {
			XMLName xml.Name
			V       string     `xml:"v,attr"`
			Attrs   []xml.Attr `xml:",any,attr"`
			Text    string     `xml:",chardata"`
			Inner   []struct {
				XMLName xml.Name
			} `xml:",any"`
		}
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%q does not parse: %v", doc, err)
		}
		want := xmlVisible(s)
		if v.XMLName.Local != "a" || len(v.Attrs) != 0 || len(v.Inner) != 0 || v.V != want || v.Text != want {
			t.Fatalf("%q reads back as %+v, want %q", doc, v, want)
		}
	})
}
