//go:build !wasm

package checker

import (
	"crypto/sha256"
	"hash"
)

// defaultSHA256 is the log's hash without Options.NewSHA256: natively
// crypto/sha256, with the CPU's SHA extensions where it has them.
func defaultSHA256() hash.Hash { return sha256.New() }
