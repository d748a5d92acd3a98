package eventline

import (
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/greenlight-ci/greenlight/checker/internal/swartest"
)

// syntaxState is what Syntax records of a line, for comparing two decoders.
type syntaxState struct {
	Fault       *Fault
	Raw         [fieldCount]string
	Kind        [fieldCount]byte
	Unknown     []string
	OtherKeys   []string
	Folded      bool
	FoldedKeys  []string
	FoldedCount int
	Recovery    bool
}

func stateOf(d *Decoder, f *Fault) syntaxState {
	s := syntaxState{Fault: f, Unknown: append([]string{}, d.unknown...), Folded: d.folded, FoldedCount: d.foldedCount, Recovery: d.recovery}
	for i := range d.raw {
		if d.raw[i] != nil {
			s.Raw[i] = "<" + string(d.raw[i]) + ">"
		}
		s.Kind[i] = byte(d.kind[i])
	}
	for _, k := range d.otherKeys {
		s.OtherKeys = append(s.OtherKeys, string(k))
	}
	for _, k := range d.foldedKeys[:min(d.foldedCount, maxFoldedKeys)] {
		s.FoldedKeys = append(s.FoldedKeys, k.name+"="+string(k.raw))
	}
	return s
}

// referenceSyntax is Syntax with jsontext alone, the behaviour before the
// one-pass scanner.
func referenceSyntax(d *Decoder, line []byte, keepUnknown bool) *Fault {
	d.resetFields()
	if len(line) == 0 || len(line) >= 3 && string(line[:3]) == "\xef\xbb\xbf" {
		return d.Syntax(line, keepUnknown) // the checks before either reader
	}
	return d.syntaxJSONText(line, keepUnknown)
}

// scanSeeds are lines the scanner must vouch for (TestScanVouches) and the
// seed corpus of FuzzScanMatchesJSONText, with lines it must leave to
// jsontext after them.
var scanSeeds = []string{
	`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}`,
	` { "run_id" : "r\u002d1 \u00e9 \n\t\"\\\/\b\f\r" , "stage" : "silver" , "attempt" : 1.0e+2 , "status" : "failed" } ` + "\t\r",
	`{}`,
	`{"x":[],"y":{},"z":[1,-0,0.5,1E5,-12.25e-3,true,false,null,"s",[{"a":{"a":1}},{"a":2}]],"Run_ID":"folded","host":"h","ſtage":1}`,
	`{"owner":"o","error":"héllo wörld ☃ 𝄞 very long text that goes past eight bytes","returncode":null,"a":{"b":1,"c":{"b":2}}}`,
	`{"status":"\u0000\uffff\uD7FF\uE000"}`,
	`{"stage":0,"attempt":7 ,"returncode":9, "x":[1,2 ,3],"y":{"z":4}}`, // one digit before , } and a space
	// The scanner leaves these to jsontext.
	`{"a":0 1}`, `{"a":7 ,}`, `{"a":-,"b":1}`, `{"a":00,"b":1}`, `{"a":[1 2]}`,
	`{"k\u0041":1}`,
	`{"a":"\ud83d\ude00"}`,
	`{"a":1,"a":2}`,
	`{"run_id":"a","run_id":"a"}`,
	`{"x":{"a":1,"a":1}}`,
	`{"x":[{"a":1},{"a":1,"b":{"c":1,"c":2}}]}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":+1}`, `{"a":tru}`, `{"a":nul}`, `{"a":truex}`,
	`{"a":"b"} x`, `{"a":"b"}{}`, `[1]`, `"s"`, `{"a" "b"}`, `{"a":1,}`, `{,}`, `{"a":1`, `{"a":"b`, `{"a":"b\`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xc0\xaf\"}", `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	"{\"a\":1}\x00", " ", "\xef\xbb\xbf{}",
}

// TestScanVouches: the scanner reads the common lines itself, so the one
// pass is what Check runs, and gives the same record as jsontext's path.
func TestScanVouches(t *testing.T) {
	d, ref := NewDecoder(), NewDecoder()
	for _, line := range scanSeeds[:7] {
		d.resetFields()
		if !d.scan([]byte(line), true) {
			t.Errorf("the scanner does not vouch for %q", line)
			continue
		}
		got := stateOf(d, nil)
		want := stateOf(ref, referenceSyntax(ref, []byte(line), true))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: scanner records\n%+v\njsontext's path\n%+v", line, got, want)
		}
	}
	for _, line := range scanSeeds[7:] {
		d.resetFields()
		if d.scan([]byte(line), true) {
			t.Errorf("the scanner vouches for %q, which it must leave to jsontext", line)
		}
	}
}

// FuzzScanMatchesJSONText is the differential test of the one-pass scanner:
// for any line, Syntax gives exactly the fault (kind and text) and records
// exactly the members that jsontext's path does, and a line the scanner
// vouches for is one jsontext accepts. go test -fuzz=FuzzScanMatchesJSONText
// ./checker/internal/eventline explores.
func FuzzScanMatchesJSONText(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s), true)
	}
	d, ref := NewDecoder(), NewDecoder()
	f.Fuzz(func(t *testing.T, line []byte, keepUnknown bool) {
		d.resetFields()
		vouched := d.scan(line, keepUnknown)
		got := stateOf(d, d.Syntax(line, keepUnknown))
		want := stateOf(ref, referenceSyntax(ref, line, keepUnknown))
		if vouched && want.Fault != nil {
			t.Fatalf("the scanner vouches for %q, jsontext refuses it: %v", line, want.Fault)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: Syntax records\n%+v\njsontext's path\n%+v", line, got, want)
		}
	})
}

// TestKnownKey: knownKey finds the names most events spell exactly where
// scanString and field do, and no other name: every contract name and
// near misses of the ones it knows (a byte more, a byte less, another
// letter, an escape), before a colon or a space, at the end of a line too.
func TestKnownKey(t *testing.T) {
	d := NewDecoder()
	all := contractFieldNames()
	names := append([]string{}, all[:]...)
	for _, k := range []string{"run_id", "status", "stage", "error", "attempt", "attempt_id", "timestamp_utc", "returncode"} {
		names = append(names, k+"s", k[:len(k)-1], "X"+k[1:], k[:len(k)-1]+"X", `\u00`+strconv.FormatInt(int64(k[0]), 16)+k[1:])
	}
	for _, name := range names {
		for _, rest := range []string{`: 1, "other": 2}`, `:"x"}`, ` : 1}`, `:1}`, ``} {
			line := []byte(`"` + name + `"` + rest)
			end, plain := scanString(line, 0)
			want := -1
			if end > 0 && plain {
				want = d.field(line[1 : end-1])
			}
			f, gotEnd := knownKey(line, 0)
			if f >= 0 && (f != want || gotEnd != end) {
				t.Errorf("knownKey(%s) = %d, %d; scanString and field: %d, %d", line, f, gotEnd, want, end)
			}
			common := map[string]bool{"run_id": true, "status": true, "stage": true, "error": true, "attempt": true, "attempt_id": true, "timestamp_utc": true, "returncode": true}
			if f < 0 && common[name] && len(line) >= 16 {
				t.Errorf("knownKey(%s) does not know it", line)
			}
		}
	}
}

// TestStringSpecial holds stringSpecial to a byte loop: every byte value
// at every position of a plain word, and random words, are flagged where
// a byte is a quote, a backslash, a control character or from 0x80 on,
// the lowest flag exactly at the first such byte.
func TestStringSpecial(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	check := func(w uint64) {
		t.Helper()
		m := stringSpecial(w)
		first := -1
		for k := range 8 {
			if special(byte(w >> (8 * k))) {
				first = k
				break
			}
		}
		switch {
		case first < 0 && m != 0:
			t.Fatalf("stringSpecial(%#016x) = %#016x, want 0", w, m)
		case first >= 0 && (m == 0 || bits.TrailingZeros64(m)/8 != first):
			t.Fatalf("stringSpecial(%#016x) = %#016x, want the lowest flag at byte %d", w, m, first)
		}
	}
	swartest.Words(rand.New(rand.NewPCG(13, 14)), 0x10, check)
}

// TestPrintableASCII compares printableASCII with a byte loop on strings
// of every length up to 40 with one byte of every value at every
// position, and on random strings near the range's ends.
func TestPrintableASCII(t *testing.T) {
	loop := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c > 0x7e {
				return false
			}
		}
		return true
	}
	for n := range 41 {
		b := []byte(strings.Repeat("run-0123456789~ ", 3)[:n])
		if !printableASCII(b) {
			t.Fatalf("printableASCII(%q) = false", b)
		}
		for at := range n {
			for c := range 256 {
				v := append([]byte(nil), b...)
				v[at] = byte(c)
				if got, want := printableASCII(v), loop(v); got != want {
					t.Fatalf("printableASCII(%q) = %v, want %v", v, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(15, 16))
	near := []byte{0x00, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xff, 'a'}
	for range 100000 {
		b := make([]byte, r.IntN(30))
		for k := range b {
			b[k] = near[r.IntN(len(near))]
		}
		if got, want := printableASCII(b), loop(b); got != want {
			t.Fatalf("printableASCII(%q) = %v, want %v", b, got, want)
		}
	}
}
