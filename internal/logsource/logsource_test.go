package logsource

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/greenlight-ci/greenlight/checker"
)

func gzipped(t testing.TB, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t testing.TB, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const twoEvents = `{"run_id":"r-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}
{"run_id":"r-1","stage":1,"attempt":1,"status":"succeeded","timestamp_utc":"2026-01-01T10:01:00Z"}
`

// TestNew: the text comes out whole and the stored bytes are described,
// whatever the name says.
func TestNew(t *testing.T) {
	text := []byte(twoEvents)
	for _, c := range []struct {
		name, compression string
		stored            []byte
	}{
		{"plain.gz", CompressionNone, text},
		{"log.jsonl", CompressionGzip, gzipped(t, text)},
		{"log.jsonl", CompressionZstd, zstded(t, text)},
		{"two-members.gz", CompressionGzip, append(gzipped(t, text[:50]), gzipped(t, text[50:])...)},
		{"empty", CompressionNone, nil},
	} {
		t.Run(c.compression+"/"+c.name, func(t *testing.T) {
			f, err := New(c.name, bytes.NewReader(c.stored))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := io.ReadAll(f.Log.R)
			if err != nil {
				t.Fatal(err)
			}
			want := text
			if c.stored == nil {
				want = nil
			}
			if !bytes.Equal(got, want) {
				t.Errorf("text %q, want %q", got, want)
			}
			if c.compression == CompressionNone {
				if f.Log.Stored != nil {
					t.Errorf("a plain file has Stored")
				}
				if n := f.StoredRead(); n != -1 {
					t.Errorf("a plain file's StoredRead is %d, want -1", n)
				}
				return
			}
			if n := f.StoredRead(); n != int64(len(c.stored)) {
				t.Errorf("StoredRead at the end is %d, want the file's %d bytes", n, len(c.stored))
			}
			sum := sha256.Sum256(c.stored)
			want2 := checker.SourceFile{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(c.stored)), Compression: c.compression}
			if st := f.Log.Stored(); st != want2 {
				t.Errorf("stored %+v, want %+v", st, want2)
			}
		})
	}
}

// TestStoredReadProgress: while a compressed file's text is read, its
// StoredRead grows and never passes the file's size, although the text
// read soon does; at the end it is the file's size.
func TestStoredReadProgress(t *testing.T) {
	text := bytes.Repeat([]byte(twoEvents), 4000) // 784 KB that compress well
	for _, c := range []struct {
		name   string
		stored []byte
	}{{"gzip", gzipped(t, text)}, {"zstd", zstded(t, text)}} {
		t.Run(c.name, func(t *testing.T) {
			f, err := New("log", bytes.NewReader(c.stored))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			size := int64(len(c.stored))
			var read, last int64
			buf := make([]byte, 4096)
			for {
				n, err := f.Log.R.Read(buf)
				read += int64(n)
				got := f.StoredRead()
				if got < last || got > size {
					t.Fatalf("after %d bytes of text StoredRead is %d (before: %d), want it growing up to %d", read, got, last, size)
				}
				last = got
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if read != int64(len(text)) || read <= size {
				t.Fatalf("read %d bytes of text from %d stored; the case needs a text larger than the file", read, size)
			}
			if last != size {
				t.Errorf("StoredRead at the end is %d, want %d", last, size)
			}
		})
	}
}

// TestBrokenStreams: a truncated or corrupt stream gives the text up to the
// break, then a *BrokenStreamError with its message; never io.EOF.
func TestBrokenStreams(t *testing.T) {
	text := []byte(strings.Repeat(twoEvents, 50))
	gz, zs := gzipped(t, text), zstded(t, text)
	flip := func(b []byte) []byte {
		b = slices.Clone(b)
		b[len(b)/2] ^= 0xff
		return b
	}
	for _, c := range []struct {
		name   string
		stored []byte
		msg    string
	}{
		{"gzip cut in its trailer", gz[:len(gz)-4], "the gzip stream is cut short: the file's %d bytes end before the stream does (a truncated file, or one still being written)"},
		{"gzip cut in its data", gz[:len(gz)/2], "the gzip stream is cut short: the file's %d bytes end before the stream does (a truncated file, or one still being written)"},
		{"gzip header only", gz[:5], "the gzip stream is cut short: the file's %d bytes end before the stream does (a truncated file, or one still being written)"},
		{"zstd cut", zs[:len(zs)-3], "the zstd stream is cut short: the file's %d bytes end before the stream does (a truncated file, or one still being written)"},
		{"gzip corrupt", flip(gz), "the gzip stream is corrupt ("},
		{"zstd corrupt", flip(zs), "the zstd stream is corrupt ("},
		{"gzip then garbage", append(slices.Clone(gz), "and then some text that is no gzip member"...), "the gzip stream is corrupt (gzip: invalid header)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := New("x", bytes.NewReader(c.stored))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := io.ReadAll(f.Log.R)
			var broken *BrokenStreamError
			if !errors.As(err, &broken) {
				t.Fatalf("error %v, want a BrokenStreamError", err)
			}
			want := c.msg
			if strings.Contains(want, "%d") {
				want = strings.Replace(want, "%d", itoa(len(c.stored)), 1)
				if broken.Msg != want {
					t.Errorf("message %q, want %q", broken.Msg, want)
				}
			} else if !strings.HasPrefix(broken.Msg, want) {
				t.Errorf("message %q, want it to start %q", broken.Msg, want)
			}
			// A cut stream gives the text before the cut; a corrupt one may
			// give wrong text before its checksum fails, which the checker
			// reads into an invalid log all the same.
			if strings.Contains(c.name, "cut") && !bytes.HasPrefix(text, got) {
				t.Errorf("the text before the break is not the log's start")
			}
		})
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// TestReadErrorStaysAReadError: an I/O error of the file under the decoder
// is returned as it is, not as a broken stream.
func TestReadErrorStaysAReadError(t *testing.T) {
	gz := gzipped(t, []byte(twoEvents))
	disk := errors.New("input/output error")
	f, err := New("x", io.MultiReader(bytes.NewReader(gz[:20]), errReader{disk}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(f.Log.R)
	if !errors.Is(err, disk) {
		t.Errorf("error %v, want the read error", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestBomb: a gzip file that inflates to 64 MiB of one line is checked as a
// plain file of that text would be: one line_too_long violation, the line
// skipped and never held (the checker's line bound), no error.
func TestBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 64 MiB")
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	chunk := bytes.Repeat([]byte{'a'}, 1<<20)
	for range 64 {
		w.Write(chunk)
	}
	w.Close()
	f, err := New("bomb.gz", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	def, _ := checker.LinearDefinition([]checker.StageID{{Int: 1}})
	res, err := checker.CheckFiles([]checker.LogFile{f.Log}, checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, checker.Reading{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Report.Violations); n != 1 || res.Report.Violations[0].Rule != checker.RuleLineTooLong || res.Report.Violations[0].File != "bomb.gz" {
		t.Errorf("violations %+v, want one line_too_long in bomb.gz", res.Report.Violations)
	}
}

// TestNaturalLess lists pairs in order; each must sort before the next.
func TestNaturalLess(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"events-9.jsonl", "events-10.jsonl"},
		{"events-2026-11-27.jsonl", "events-2026-11-28.jsonl.gz"},
		{"events-2026-11-28.jsonl", "events-2026-11-28.jsonl.gz"},
		{"events.jsonl", "events.jsonl.1"},
		{"a7", "a07"},
		{"a07", "a8"},
		{"a", "b"},
		{"A", "a"},
		{"x/2/z", "x/10/a"},
		{"9", "a"},
	} {
		if !NaturalLess(c.a, c.b) {
			t.Errorf("NaturalLess(%q, %q) = false, want true", c.a, c.b)
		}
		if NaturalLess(c.b, c.a) {
			t.Errorf("NaturalLess(%q, %q) = true, want false", c.b, c.a)
		}
	}
	if NaturalLess("same", "same") {
		t.Error("NaturalLess is not strict")
	}
}

func TestSort(t *testing.T) {
	names := []string{"e-10.gz", "e-9", "e-1"}
	given := slices.Clone(names)
	if err := Sort(given, OrderGiven); err != nil || !slices.Equal(given, names) {
		t.Errorf("given: %q, %v", given, err)
	}
	if err := Sort(names, OrderName); err != nil || !slices.Equal(names, []string{"e-1", "e-9", "e-10.gz"}) {
		t.Errorf("name: %q, %v", names, err)
	}
	if err := Sort(names, "time"); err == nil || err.Error() != `--log-order "time": use given or name` {
		t.Errorf("unknown order: %v", err)
	}
}

// FuzzDecode feeds any bytes through New and the checker: reading never
// panics, and either ends with io.EOF (a whole stream, or a plain file) or
// fails with a BrokenStreamError; the checker then reports it, and gives a
// snapshot only when the text read whole was a valid log.
func FuzzDecode(f *testing.F) {
	text := []byte(twoEvents)
	gz, zs := gzipped(f, text), zstded(f, text)
	for _, seed := range [][]byte{text, gz, zs, gz[:len(gz)-4], zs[:len(zs)-2], {0x1f, 0x8b}, {0x28, 0xb5, 0x2f, 0xfd}, nil} {
		f.Add(seed)
	}
	def, _ := checker.LinearDefinition([]checker.StageID{{Int: 1}})
	f.Fuzz(func(t *testing.T, stored []byte) {
		file, err := New("f", bytes.NewReader(stored))
		if err != nil {
			t.Fatal(err)
		}
		_, rerr := io.Copy(io.Discard, file.Log.R)
		file.Close()
		var broken *BrokenStreamError
		if rerr != nil && !errors.As(rerr, &broken) {
			t.Fatalf("read error %v is no BrokenStreamError", rerr)
		}
		file, _ = New("f", bytes.NewReader(stored))
		defer file.Close()
		res, err := checker.CheckFiles([]checker.LogFile{file.Log}, checker.Options{Definition: def, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), MaxLineBytes: 4096}, checker.Reading{})
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		if broken != nil && res.Report.Valid {
			t.Fatalf("a broken stream (%s) gave a valid log", broken.Msg)
		}
	})
}

// BenchmarkRead reads a 4 MB log's text plain, from gzip and from zstd
// (go test -bench Read ./internal/logsource): the cost of decompression
// beside the checker's own (bench/run.sh measures the whole check).
func BenchmarkRead(b *testing.B) {
	var text []byte
	for i := 0; len(text) < 4<<20; i++ {
		text = fmt.Appendf(text, `{"run_id":"run-%08d","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T00:01:32Z"}`+"\n", i)
	}
	for _, c := range []struct {
		name   string
		stored []byte
	}{{"none", text}, {"gzip", gzipped(b, text)}, {"zstd", zstded(b, text)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				f, err := New("x", bytes.NewReader(c.stored))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, f.Log.R); err != nil {
					b.Fatal(err)
				}
				if f.Log.Stored != nil {
					f.Log.Stored()
				}
				f.Close()
			}
		})
	}
}
