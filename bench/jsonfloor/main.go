// Command jsonfloor is the floor under greenlight's decoding speed: it reads
// a JSON Lines file line by line and validates each line with one reused
// jsontext.Decoder, as greenlight's decoder does before it looks at any
// field (checker/decode.go), and does nothing else. bench/run.sh compares
// `greenlight check` and `greenlight validate` with it.
//
// usage: jsonfloor FILE
//
// It prints the number of lines and of invalid lines, and exits 1 when FILE
// cannot be read.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"

	"github.com/go-json-experiment/json/jsontext"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jsonfloor FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var rd bytes.Reader
	dec := jsontext.NewDecoder(&rd)
	lines, invalid := 0, 0
	for sc.Scan() {
		lines++
		rd.Reset(sc.Bytes())
		dec.Reset(&rd)
		if _, err := dec.ReadValue(); err != nil {
			invalid++
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d lines, %d invalid\n", lines, invalid)
}
