//go:build !unix

package osfile

import "os"

// Mapped is a regular file open for reading, read at offsets. Where the
// system has no memory mappings (wasip1, js, Windows) a resumed check's
// proof reads it through a buffer.
type Mapped struct{ f *os.File }

// NewMapped is f, a regular file open for reading, to be read at offsets.
func NewMapped(f *os.File) *Mapped { return &Mapped{f: f} }

// ReadAt reads the file (io.ReaderAt).
func (m *Mapped) ReadAt(p []byte, off int64) (int, error) { return m.f.ReadAt(p, off) }

// Close does nothing: the file stays open.
func (m *Mapped) Close() error { return nil }
