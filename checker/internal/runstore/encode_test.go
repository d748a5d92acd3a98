package runstore

import (
	"encoding/binary"
	"runtime"
	"testing"
)

// TestStoreBodiesBeyondEnd: a run store whose last head says its bodies
// end 4 GiB on, in a checkpoint of a few bytes (a matching trailer over
// crafted contents), is a fault, found without allocating the 4 GiB: a
// damaged checkpoint, not a process killed for its memory.
func TestStoreBodiesBeyondEnd(t *testing.T) {
	var e Encoder
	e.Uvarint(1) // one run
	e.Uvarint(0) // no error texts
	e.String("r")
	e.Uvarint(uint64(indexBits(1)))
	slots := make([]byte, 4<<indexBits(1))
	slots[0] = 1
	e.B = append(e.B, slots...)
	head := make([]byte, headSize)
	binary.LittleEndian.PutUint32(head[24:], 1)          // the id's end
	binary.LittleEndian.PutUint32(head[28:], 0xffffffff) // the bodies' end
	e.B = append(e.B, head...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := NewDecoder(e.B)
	var s Store
	s.Decode(d, 1, func(b []byte) string { return string(b) }, nil)
	runtime.ReadMemStats(&after)
	if got, want := d.Fault(), "it ends early"; got != want {
		t.Fatalf("fault %q, want %q", got, want)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Fatalf("decoding allocated %d bytes", grown)
	}
}
