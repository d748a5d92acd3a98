package eventline

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadWarm: Config.Warm hears every batch of decoded lines before
// apply sees the first of them, the batches in line order and together
// every line once.
func TestReadWarm(t *testing.T) {
	var log strings.Builder
	const n = 3*batchLines + 17 // three whole batches and a short one
	for i := range n {
		fmt.Fprintf(&log, `{"run_id":"r-%d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}`+"\n", i/3)
	}
	var warmed []int // the lines warmed, in order
	var batches int
	next := 0 // the next line apply must see
	cfg := Config{MaxLineBytes: 1 << 20, Warm: func(batch []Decoded) {
		if len(warmed) != next {
			t.Fatalf("a batch warmed before apply saw line %d, the last line warmed", len(warmed))
		}
		batches++
		for i := range batch {
			warmed = append(warmed, batch[i].Line)
		}
	}}
	err := Read(NewLineReader(strings.NewReader(log.String()), cfg.MaxLineBytes, nil), &cfg, func(d *Decoded) {
		if next >= len(warmed) {
			t.Fatalf("line %d applied before its batch was warmed", d.Line)
		}
		if d.Line != warmed[next] {
			t.Fatalf("line %d applied where line %d was warmed", d.Line, warmed[next])
		}
		if d.Fault != nil {
			t.Fatalf("line %d: %v", d.Line, d.Fault.Msg)
		}
		next++
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warmed) != n || next != n || batches != 4 {
		t.Fatalf("%d lines warmed in %d batches, %d applied; want %d in 4", len(warmed), batches, next, n)
	}
	for i, line := range warmed {
		if line != i+1 {
			t.Fatalf("warmed line %d is line %d", i+1, line)
		}
	}
}

// TestReadWordsListedOnly: with Config.Listed, the JSON Schema validator
// words only the schema violations that are listed; every other line the
// compiled check refuses is the same schema violation, unworded. Each kind
// of short refused line is there (an empty object, attempt 0, an unknown
// status, a missing field, a key in another letter case), across several
// batches, and the listed ones have the validator's words, as Decode alone
// gives them.
func TestReadWordsListedOnly(t *testing.T) {
	refused := []string{
		`{}`,
		`{"run_id":"r-1","stage":1,"attempt":0,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}`,
		`{"run_id":"r-1","stage":1,"attempt":1,"status":"begun","timestamp_utc":"2026-01-01T00:00:00Z"}`,
		`{"run_id":"r-1","stage":1,"attempt":1,"timestamp_utc":"2026-01-01T00:00:00Z"}`,
		`{"run_id":"r-1","stage":1,"attempt":1,"status":"started","Status":"failed","timestamp_utc":"2026-01-01T00:00:00Z"}`,
	}
	var log strings.Builder
	const n = 2*batchLines + 9
	for i := range n {
		log.WriteString(refused[i%len(refused)] + "\n")
	}
	const listed = 7
	for _, every := range []bool{false, true} {
		t.Run(fmt.Sprintf("schema every event %v", every), func(t *testing.T) {
			applied := 0
			cfg := Config{MaxLineBytes: 1 << 20, SchemaEveryEvent: every, Listed: func() bool { return applied < listed }}
			dec := NewDecoder()
			var lazy Schema
			err := Read(NewLineReader(strings.NewReader(log.String()), cfg.MaxLineBytes, nil), &cfg, func(d *Decoded) {
				if d.Fault == nil || d.Fault.Kind != FaultSchema {
					t.Fatalf("line %d: %+v, want a schema fault", d.Line, d.Fault)
				}
				var want Decoded
				dec.Decode(&want, d.Line, []byte(refused[(d.Line-1)%len(refused)]), &lazy, &Config{})
				switch {
				case applied < listed || every:
					if d.Fault.Msg != want.Fault.Msg {
						t.Fatalf("line %d: listed, worded %q, want %q", d.Line, d.Fault.Msg, want.Fault.Msg)
					}
				case d.Fault.Msg != unlistedSchemaMsg:
					t.Fatalf("line %d: not listed, but worded %q", d.Line, d.Fault.Msg)
				}
				applied++
			})
			if err != nil {
				t.Fatal(err)
			}
			if applied != n {
				t.Fatalf("%d lines applied, want %d", applied, n)
			}
		})
	}
}
