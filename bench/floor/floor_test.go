// Package floor measures how much slower Go code runs as WebAssembly than
// natively, on one core, for the two things greenlight's hot path is made
// of: loops over bytes and small function calls. bench/run.sh runs these
// benchmarks natively and as a wasip1 module under wazero; their ratio is
// the floor under the wasip1 module's wasm/native ratio (which also loses
// the second core the native pipeline uses).
package floor

import "testing"

var sink int

// quotes counts the bytes a JSON string scanner stops at.
func quotes(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '"' || c == '\\' {
			n++
		}
	}
	return n
}

// BenchmarkByteLoop scans 10 MiB a byte at a time.
func BenchmarkByteLoop(b *testing.B) {
	buf := make([]byte, 10<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		sink += quotes(buf)
	}
}

//go:noinline
func add(a, b int) int { return a + b }

// BenchmarkCalls makes 10,000,000 calls of a function that is not inlined.
func BenchmarkCalls(b *testing.B) {
	for b.Loop() {
		s := 0
		for i := range 10_000_000 {
			s = add(s, i)
		}
		sink += s
	}
}
