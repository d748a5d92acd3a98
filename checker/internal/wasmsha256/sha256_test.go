package wasmsha256

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pattern is n bytes that differ from block to block.
func pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*131 + i>>8)
	}
	return p
}

// TestKnownDigests checks FIPS 180-4's examples (the NIST CSRC example
// values for SHA-256) and the empty message.
func TestKnownDigests(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	} {
		d := New()
		d.Write([]byte(tc.in))
		if got := hex.EncodeToString(d.Sum(nil)); got != tc.want {
			t.Errorf("SHA-256(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestMatchesCryptoSHA256 holds the digest to crypto/sha256's for every
// length around the block and padding edges, written whole and in pieces
// of every size up to two blocks, with Sum between writes.
func TestMatchesCryptoSHA256(t *testing.T) {
	data := pattern(1000)
	for n := range 300 {
		want := sha256.Sum256(data[:n])
		for _, piece := range []int{n + 1, 1, 3, 55, 56, 63, 64, 65, 128} {
			d := New()
			for rest := data[:n]; len(rest) > 0; {
				k := min(piece, len(rest))
				d.Write(rest[:k])
				d.Sum(nil) // must leave d as it was
				rest = rest[k:]
			}
			if got := d.Sum([]byte("prefix")); !bytes.Equal(got, append([]byte("prefix"), want[:]...)) {
				t.Fatalf("%d bytes in pieces of %d: %x, want prefix and %x", n, piece, got, want)
			}
		}
	}
	big := pattern(1 << 20)
	want := sha256.Sum256(big)
	d := New()
	d.Write(big)
	if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatalf("1 MiB: %x, want %x", got, want)
	}
	d.Reset()
	d.Write(nil)
	if got, empty := d.Sum(nil), sha256.Sum256(nil); !bytes.Equal(got, empty[:]) || d.Size() != sha256.Size || d.BlockSize() != sha256.BlockSize {
		t.Fatalf("after Reset: %x, want %x", got, empty)
	}
}

// TestStateIsCryptoSHA256s marshals a state with each implementation,
// compares the bytes, resumes it with the other one and compares the
// digests, at every offset within a block and past several.
func TestStateIsCryptoSHA256s(t *testing.T) {
	data := pattern(400)
	for n := range 200 {
		std, own := sha256.New(), New()
		std.Write(data[:n])
		own.Write(data[:n])
		stdState, err := std.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		ownState, err := own.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ownState, stdState) {
			t.Fatalf("state after %d bytes:\n%x\nwant\n%x", n, ownState, stdState)
		}
		if got, _ := own.AppendBinary([]byte{7}); !bytes.Equal(got, append([]byte{7}, stdState...)) {
			t.Fatalf("AppendBinary after %d bytes: %x", n, got)
		}
		resumed := New()
		resumed.Write([]byte("overwritten by the state"))
		if err := resumed.UnmarshalBinary(stdState); err != nil {
			t.Fatal(err)
		}
		back := sha256.New()
		if err := back.(encoding.BinaryUnmarshaler).UnmarshalBinary(ownState); err != nil {
			t.Fatal(err)
		}
		want := sha256.Sum256(data)
		for _, h := range []hash.Hash{resumed, back} {
			h.Write(data[n:])
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%T resumed after %d bytes: %x, want %x", h, n, got, want)
			}
		}
	}
}

// TestUnmarshalRefuses: a state of SHA-224, of the wrong length or with no
// magic is an error, with the digest left as it was.
func TestUnmarshalRefuses(t *testing.T) {
	s224, _ := sha256.New224().(encoding.BinaryMarshaler).MarshalBinary()
	good, _ := New().MarshalBinary()
	for _, tc := range []struct {
		name, want string
		state      []byte
	}{
		{"SHA-224", "wasmsha256: not a SHA-256 hash state", s224},
		{"empty", "wasmsha256: not a SHA-256 hash state", nil},
		{"short", "wasmsha256: a SHA-256 hash state of the wrong size", good[:len(good)-1]},
		{"long", "wasmsha256: a SHA-256 hash state of the wrong size", append(good, 0)},
	} {
		d := New()
		d.Write([]byte("abc"))
		err := d.UnmarshalBinary(tc.state)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		want := sha256.Sum256([]byte("abc"))
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Errorf("%s: the refused state changed the digest", tc.name)
		}
	}
}

// TestBlockIsGenerated: block.go is what gen.go writes.
func TestBlockIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "gen.go")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "block.go"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("block.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("block.go is not what gen.go writes: run go generate in checker/internal/wasmsha256")
	}
}

// FuzzMatchesCryptoSHA256: any bytes, written in two pieces cut anywhere,
// hash as crypto/sha256 hashes them, and the state between the pieces is
// crypto/sha256's.
func FuzzMatchesCryptoSHA256(f *testing.F) {
	f.Add([]byte("abc"), 1)
	f.Add(pattern(200), 64)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		cut = min(max(cut, 0), len(data))
		std, own := sha256.New(), New()
		std.Write(data[:cut])
		own.Write(data[:cut])
		s1, _ := std.(encoding.BinaryMarshaler).MarshalBinary()
		s2, _ := own.MarshalBinary()
		if !bytes.Equal(s1, s2) {
			t.Fatalf("state after %d bytes: %x, want %x", cut, s2, s1)
		}
		std.Write(data[cut:])
		own.Write(data[cut:])
		if got, want := own.Sum(nil), std.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("digest %x, want %x", got, want)
		}
	})
}

// BenchmarkWrite hashes 1 MiB: build the test for GOOS=wasip1 GOARCH=wasm
// and run it under node to see the speed the checker's wasm builds get;
// BenchmarkWriteCryptoSHA256 is crypto/sha256 on the same bytes.
func BenchmarkWrite(b *testing.B) {
	benchmarkWrite(b, New())
}

func BenchmarkWriteCryptoSHA256(b *testing.B) {
	benchmarkWrite(b, sha256.New())
}

func benchmarkWrite(b *testing.B, h hash.Hash) {
	p := pattern(1 << 20)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		h.Write(p)
	}
}
