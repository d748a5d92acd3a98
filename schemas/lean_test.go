package schemas

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLeanBuild: in the lean build (tag greenlight_lean) Compile ends the
// process with ExitNeedsFull and writes nothing, so that the runner script
// can run the full module instead; after BeginOutput it panics instead
// (exit 2), since handing over then would write the results twice. The
// package's tests are built with the tag and TestLeanCompile run in a
// process of its own.
func TestLeanBuild(t *testing.T) {
	if Lean {
		t.Skip("the lean build itself: TestLeanCompile runs here")
	}
	if testing.Short() {
		t.Skip("builds this package's tests with the tag greenlight_lean; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "lean.test")
	if out, err := exec.Command("go", "test", "-c", "-tags", "greenlight_lean", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c -tags greenlight_lean: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, begin string
		exit        int
		stderr      string
	}{
		{"before BeginOutput", "", ExitNeedsFull, ""},
		{"after BeginOutput", "1", 2, "panic: the lean module needs the JSON Schema validator after it began writing its results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, "-test.run", "^TestLeanCompile$")
			cmd.Env = append(os.Environ(), "GREENLIGHT_TEST_LEAN=compile", "GREENLIGHT_TEST_LEAN_BEGIN="+c.begin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.exit || stdout.Len() != 0 || stderr.String() != c.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q", code, stdout.String(), stderr.String(), c.exit, c.stderr)
			}
		})
	}
}

// TestLeanCompile is TestLeanBuild's child: it compiles the event schema,
// after BeginOutput when GREENLIGHT_TEST_LEAN_BEGIN is set (its panic then
// printed as one line), and must not return in the lean build.
func TestLeanCompile(t *testing.T) {
	if os.Getenv("GREENLIGHT_TEST_LEAN") != "compile" {
		t.Skip("run by TestLeanBuild")
	}
	if os.Getenv("GREENLIGHT_TEST_LEAN_BEGIN") != "" {
		BeginOutput()
		defer func() {
			fmt.Fprintf(os.Stderr, "panic: %v", recover())
			os.Exit(2)
		}()
	}
	_, err := Compile("event")
	t.Fatalf("Compile returned (error %v) in a build with Lean %v", err, Lean)
}
