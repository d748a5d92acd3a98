package checker

import (
	"crypto/sha256"
	"hash"
)

// defaultSHA256 is the log's hash without Reading.NewSHA256: Go's
// crypto/sha256 on every target (a shell with a faster host hash, such as
// node's crypto in the action's module, gives it in Reading.NewSHA256).
func defaultSHA256() hash.Hash { return sha256.New() }
