package eventline

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadOrder: Read applies the lines of several batches in line order,
// every line once.
func TestReadOrder(t *testing.T) {
	var log strings.Builder
	const n = 3*batchLines + 17 // three whole batches and a short one
	for i := range n {
		fmt.Fprintf(&log, `{"run_id":"r-%d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}`+"\n", i/3)
	}
	next := 1 // the next line apply must see
	cfg := Config{MaxLineBytes: 1 << 20}
	err := Read(NewLineReader(strings.NewReader(log.String()), cfg.MaxLineBytes, nil), &cfg, func(d *Decoded) {
		if d.Line != next {
			t.Fatalf("line %d applied where line %d was next", d.Line, next)
		}
		if d.Fault != nil {
			t.Fatalf("line %d: %v", d.Line, d.Fault.Msg)
		}
		next++
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != n+1 {
		t.Fatalf("%d lines applied, want %d", next-1, n)
	}
}
