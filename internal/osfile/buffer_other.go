//go:build !linux

package osfile

// hugeBuffer is nil: the buffer is the Go heap's (buffer_linux.go).
func hugeBuffer(int) []byte { return nil }
