// Command loghash is the reference the --state target is set against
// (issue 18: "within 2x of hashing the log plus loading the state"): it
// hashes files with crypto/sha256 on one core, read in 1 MiB pieces, and
// does nothing else. Go's crypto/sha256 uses the CPU's SHA extensions
// where it has them, as coreutils' sha256sum may not, so bench/run.sh
// times this rather than sha256sum for "hash plus load". A resumed check
// proves the log's prefix faster than this: in SHA-256 pieces on several
// cores (docs/state.md, "The proof of the old part").
//
// usage: loghash FILE...
//
// It prints each file's SHA-256 and name, like sha256sum, and exits 1 when
// a file cannot be read.
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loghash FILE...")
		os.Exit(2)
	}
	buf := make([]byte, 1<<20)
	for _, name := range os.Args[1:] {
		sum, err := hashFile(name, buf)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%x  %s\n", sum, name)
	}
}

// hashFile is the SHA-256 of the file's bytes, read through buf.
func hashFile(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
