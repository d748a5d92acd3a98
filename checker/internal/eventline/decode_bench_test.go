package eventline

import "testing"

// BenchmarkDecodeLines measures one goroutine's decoding (reading rules,
// member record, compiled contract check) of the four line shapes of
// ../shared/tools/genlog.py's logs, the per-line cost of Check.
func BenchmarkDecodeLines(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"run_id": "run-00000001", "stage": 1, "attempt": 1, "status": "started", "timestamp_utc": "2026-01-01T00:01:32.000000Z"}`),
		[]byte(`{"run_id": "run-00000001", "stage": 1, "attempt": 1, "status": "failed", "timestamp_utc": "2026-01-01T00:02:13.000000Z", "returncode": 1, "error": "java.lang.OutOfMemoryError: Java heap space"}`),
		[]byte(`{"run_id": "run-00000001", "stage": 1, "attempt": 2, "status": "started", "timestamp_utc": "2026-01-01T00:02:14.000000Z"}`),
		[]byte(`{"run_id": "run-00000001", "stage": 1, "attempt": 2, "status": "succeeded", "timestamp_utc": "2026-01-01T00:02:35.000000Z", "returncode": 0}`),
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	lazy := &Schema{}
	cfg := &Config{}
	d := NewDecoder()
	var out Decoded
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		d.arena = d.arena[:0]
		for i, l := range lines {
			d.Decode(&out, i+1, l, lazy, cfg)
			if out.Fault != nil {
				b.Fatal(out.Fault)
			}
		}
	}
}
