package eventline

import (
	"fmt"
	"strings"
	"testing"
)

// hostileLineBytes is the size of every line BenchmarkHostileLine reads:
// the default --max-line-bytes, the longest line greenlight reads at all.
const hostileLineBytes = 1 << 20

// hostileLines are 1 MiB event lines (outside review):
// two valid ones, the baselines, and hostile ones, each refused, that cost
// the schema validator seconds before it was bounded. Each is padded to
// hostileLineBytes with an unknown string field where it has room.
func hostileLines() []struct{ name, line string } {
	const head = `{"run_id":"r-1","stage":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"`
	pad := func(s string) string {
		if n := hostileLineBytes - len(s) - len(`,"pad":""}`); n > 0 {
			return s + `,"pad":"` + strings.Repeat("x", n) + `"}`
		}
		return s + "}"
	}
	keys := func(prefix string, n int, name func(i int) string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; i < n && b.Len() < hostileLineBytes-64; i++ {
			fmt.Fprintf(&b, `,"%s":1`, name(i))
		}
		return b.String()
	}
	plain := func(i int) string { return fmt.Sprintf("k%07d", i) }
	// Letter-case variants of manual_completion: 2^16 of them.
	folded := func(i int) string {
		b := []byte("manual_completion")
		for k, bit := 0, 0; k < len(b); k++ {
			if b[k] == '_' {
				continue
			}
			if i>>bit&1 == 1 {
				b[k] -= 'a' - 'A'
			}
			bit++
		}
		return string(b)
	}
	digits := strings.Repeat("9", 900_000)
	return []struct{ name, line string }{
		{"valid/long-string", pad(head + `,"attempt":1`)},
		{"valid/many-keys", keys(head+`,"attempt":1`, 1<<20, plain) + "}"},
		{"hostile/long-zero-fraction", pad(head + `,"attempt":1.` + strings.Repeat("0", 900_000))},
		{"hostile/long-digits", pad(head + `,"attempt":` + digits)},
		{"hostile/long-digits-returncode", pad(head + `,"attempt":1,"returncode":-` + digits)},
		{"hostile/many-keys", keys(head, 1<<20, plain) + "}"},
		{"hostile/many-folded-keys", keys(head+`,"attempt":1`, 1<<20, func(i int) string { return folded(i + 1) }) + "}"},
		{"hostile/many-keys-in-stage", keys(`{"run_id":"r-1","attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z","stage":{"a":1`, 1<<20, plain) + "}}"},
		{"hostile/blank-error", `{"run_id":"r-1","stage":1,"attempt":0,"status":"failed","timestamp_utc":"2026-01-01T00:00:00Z","error":"` + strings.Repeat(" ", hostileLineBytes-200) + `"}`},
		{"hostile/long-run-id", `{"run_id":"` + strings.Repeat("x", hostileLineBytes-200) + `\u0000","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}`},
	}
}

// BenchmarkHostileLine reads each of hostileLines through decodeLine, as
// Check does (reading rules, compiled contract check, and for a refused
// line the schema validator's message). bench/run.sh prints each hostile
// line's cost as a multiple of the valid/long-string line's; the target is
// at most 10x.
func BenchmarkHostileLine(b *testing.B) {
	lazy := &Schema{}
	if _, err := lazy.Get(); err != nil {
		b.Fatal(err)
	}
	opts := &Config{}
	for _, tc := range hostileLines() {
		b.Run(tc.name, func(b *testing.B) {
			dec := NewDecoder()
			line := []byte(tc.line)
			b.SetBytes(int64(len(line)))
			var out Decoded
			for b.Loop() {
				dec.arena = dec.arena[:0]
				dec.Decode(&out, 1, line, lazy, opts)
			}
			valid := strings.HasPrefix(tc.name, "valid/")
			if (out.Fault == nil) != valid {
				b.Fatalf("%s: fault %v", tc.name, out.Fault)
			}
		})
	}
}
