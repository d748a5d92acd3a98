package actiontest

import (
	"fmt"
	"os"
	"testing"
)

// root is the repository, relative to this package's directory.
const root = "../../.."

// workDir holds what the tests build (the release layouts, native
// binaries); it lives as long as the test binary.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "greenlight-actiontest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
