package runstore

import (
	"strings"
	"testing"
)

// TestPeople: the set answers the same before and after it grows past its
// short list into maps (keys here are lower case; package checker's
// identityKey makes the real ones).
func TestPeople(t *testing.T) {
	var p People
	has := func(key string) bool { _, ok := p.ByKey(key); return ok }
	for i := range 20 {
		name := string(rune('a'+i)) + "x"
		p.Add(Identity{name, strings.ToLower(name), i + 1})
		p.Add(Identity{name, strings.ToLower(name), 100}) // a repeat is not added
		upper := string(rune('A'+i)) + "X"
		p.Add(Identity{upper, strings.ToLower(upper), 200 + i}) // same key, new spelling
		for j := 0; j <= i; j++ {
			n := string(rune('a'+j)) + "x"
			if id, ok := p.ByKey(n); !ok || id.Name != n || id.Line != j+1 || !p.SpelledBefore(n) || !p.SpelledBefore(string(rune('A'+j))+"X") {
				t.Fatalf("after %d adds: byKey(%q) = %+v, %v", i+1, n, id, ok)
			}
		}
		if has("zz") || has("") || p.SpelledBefore("zz") {
			t.Fatalf("after %d adds: an unknown name is in the set", i+1)
		}
	}
	p.Add(Identity{" ", "", 300})
	if !p.SpelledBefore(" ") || has("") {
		t.Fatal("a blank requester is remembered as spelled but names nobody")
	}
}
