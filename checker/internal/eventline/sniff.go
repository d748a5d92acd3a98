package eventline

import (
	"bytes"
	"errors"
	"io"
)

// The first bytes of files that are no JSON Lines text.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	utf8BOM   = []byte("\xef\xbb\xbf")
)

// Sniff looks at the first bytes of a log before any line is read
// (docs/rules.md, invalid_json). A gzip or zstd file is no event log: a
// fault of line 1 says so and how to read it, and the file is not read
// further (stop), since every line of it would be a violation of its own. A
// byte-order mark at the start is a fault of line 1, and the first line is
// then read without it, so its event counts and no violation cascades from
// the mark. The returned reader gives the rest of the log.
func Sniff(r io.Reader) (rest io.Reader, fault *Fault, stop bool, err error) {
	head := make([]byte, len(zstdMagic))
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, nil, false, err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return nil, &Fault{FaultInvalidJSON, "this is a gzip file (it starts with the bytes 1f 8b), not a JSON Lines event log: decompress it (gunzip) and check the .jsonl it holds; the rest of the file was not read"}, true, nil
	case bytes.HasPrefix(head, zstdMagic):
		return nil, &Fault{FaultInvalidJSON, "this is a zstd file (it starts with the bytes 28 b5 2f fd), not a JSON Lines event log: decompress it (zstd -d) and check the .jsonl it holds; the rest of the file was not read"}, true, nil
	case bytes.HasPrefix(head, utf8BOM):
		fault = &Fault{FaultInvalidJSON, "the file starts with a byte-order mark; write UTF-8 without a BOM (the first line is read without it)"}
		head = head[len(utf8BOM):]
	}
	return io.MultiReader(bytes.NewReader(head), r), fault, false, nil
}
