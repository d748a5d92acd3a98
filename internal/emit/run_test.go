package emit

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTail: the error text of a failed attempt is the end of its standard
// error, at most ErrorLines lines and ErrorBytes bytes, cut at a character
// boundary, trailing white space removed; blank is "".
func TestTail(t *testing.T) {
	var many []string
	for i := 1; i <= 30; i++ {
		many = append(many, "line "+strconv.Itoa(i))
	}
	long := strings.Repeat("é", ErrorBytes) // 2 bytes each
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"blank", " \n\t\r\n", ""},
		{"one line", "boom\n", "boom"},
		{"trailing white space", "a\nb  \n\n", "a\nb"},
		{"last 20 lines", strings.Join(many, "\n") + "\n", strings.Join(many[10:], "\n")},
		{"at most 4096 bytes, whole characters", long, strings.Repeat("é", ErrorBytes/2)},
		{"cut inside a character", long + "x", strings.Repeat("é", ErrorBytes/2-1) + "x"},
		{"invalid UTF-8 kept as U+FFFD", "bad \xff byte", "bad \uFFFD byte"},
	} {
		if got := Tail([]byte(c.in)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTailBuffer: the buffer keeps only the last bytes written.
func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 8}
	for _, s := range []string{"0123", "456789", "ab"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatal(n, err)
		}
	}
	if string(b.buf) != "456789ab" {
		t.Errorf("kept %q", b.buf)
	}
}

// TestOwnerAndAttemptID: the owner is local-pid://HOST/PID of this process;
// attempt ids are 26 base32 characters and differ.
func TestOwnerAndAttemptID(t *testing.T) {
	host, _ := os.Hostname()
	if got, want := Owner(), "local-pid://"+host+"/"+strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("owner %q, want %q", got, want)
	}
	seen := map[string]bool{}
	for range 1000 {
		id := NewAttemptID()
		if !regexp.MustCompile(`^[A-Z2-7]{26}$`).MatchString(id) || seen[id] {
			t.Fatalf("attempt id %q malformed or repeated", id)
		}
		seen[id] = true
	}
}
