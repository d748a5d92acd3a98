//go:build !(wasip1 && greenlight_lean)

package action

import "hash"

// hostSHA256 is checker.Reading.NewSHA256 for this build: nil, Go's own
// crypto/sha256 (the lean module uses the host's, hostsha_wasip1.go).
func hostSHA256() func() hash.Hash { return nil }
