package eventline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// utf8BOM is the byte-order mark of UTF-8.
var utf8BOM = []byte("\xef\xbb\xbf")

// binaryFormats are the first bytes of files that are no JSON Lines text,
// with the format's name and how to get the text out. The shells read
// gzip and zstd files themselves (internal/logsource), so the checker sees
// either only inside such a file, compressed twice.
var binaryFormats = []struct {
	magic []byte
	hex   string
	name  string
	fix   string
}{
	{[]byte{0x1f, 0x8b}, "1f 8b", "gzip", "decompress it (gunzip)"},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "28 b5 2f fd", "zstd", "decompress it (zstd -d)"},
	{[]byte("BZh"), "42 5a 68", "bzip2", "decompress it (bunzip2)"},
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "fd 37 7a 58 5a 00", "xz", "decompress it (unxz)"},
	{[]byte("PK\x03\x04"), "50 4b 03 04", "zip", "extract it (unzip)"},
	{[]byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, "37 7a bc af 27 1c", "7z", "extract it (7z x)"},
}

// sniffBytes is how many bytes Sniff looks at: the longest magic.
const sniffBytes = 6

// Sniff looks at the first bytes of a log's file before any line is read
// (docs/rules.md, invalid_json). A compressed or archive file (gzip, zstd,
// bzip2, xz, zip, 7z) is no event log: a fault of the file's first line
// says so and how to read it, and the file is not read further (stop),
// since every line of it would be a violation of its own. A byte-order
// mark at the start is a fault of the first line, which is then read
// without it, so its event counts and no violation cascades from the
// mark. The returned reader gives the rest of the file.
func Sniff(r io.Reader) (rest io.Reader, fault *Fault, stop bool, err error) {
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, nil, false, err
	}
	head = head[:n]
	for _, f := range binaryFormats {
		if bytes.HasPrefix(head, f.magic) {
			return nil, &Fault{FaultInvalidJSON, fmt.Sprintf("this is a %s file (it starts with the bytes %s), not a JSON Lines event log: %s and check the .jsonl it holds; the rest of the file was not read", f.name, f.hex, f.fix)}, true, nil
		}
	}
	if bytes.HasPrefix(head, utf8BOM) {
		fault = &Fault{FaultInvalidJSON, "the file starts with a byte-order mark; write UTF-8 without a BOM (the first line is read without it)"}
		head = head[len(utf8BOM):]
	}
	return io.MultiReader(bytes.NewReader(head), r), fault, false, nil
}
