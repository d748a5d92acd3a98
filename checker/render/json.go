package render

import (
	"bytes"
	"encoding/json"
)

// JSON encodes a snapshot, a violations report or any document greenlight
// writes: keys in struct order, two-space indent, HTML characters escaped,
// one trailing newline. Same value, same bytes, on every platform.
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
