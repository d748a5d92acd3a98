package action

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// viewError returns the error for a file action mode cannot read or write
// (verb "read" or "write"): when the wasip1 module cannot reach p at all,
// because it lies outside every directory the runner script preopened,
// one that says so and what to do, in place of the "Invalid argument" Go
// reports for such a path under WASI; otherwise describe(), the usual one.
func viewError(verb, p string, describe func() string) string {
	outside, dirs := outsideView(p)
	if !outside {
		return describe()
	}
	seen := make([]string, len(dirs))
	for i, d := range dirs {
		seen[i] = render.Terminal(d)
	}
	return fmt.Sprintf("cannot %s %s: the path is outside what the action may %s with engine wasm, which is the workspace and RUNNER_TEMP (the module sees only %s); use a path there, or engine native",
		verb, render.Terminal(p), verb, strings.Join(seen, ", "))
}

// HostPathsVar names the variable the runner script sets to "windows" in
// the module's environment on a Windows runner (action/run.mjs). Its path
// inputs are then Windows paths, which action mode maps to the module's
// view with GuestPath.
const HostPathsVar = "GREENLIGHT_HOST_PATHS"

// GuestPath maps a Windows path to the path the wasip1 module sees, as
// action/run.mjs maps the directories it preopens: "D:\a\repo\x.jsonl"
// becomes "/D/a/repo/x.jsonl" (the drive letter in upper case) and a
// relative "logs\x.jsonl" becomes "logs/x.jsonl". A WASI program knows only
// slash-separated paths from a root of its own.
func GuestPath(p string) string {
	if len(p) >= 2 && p[1] == ':' && 'A' <= p[0]&^0x20 && p[0]&^0x20 <= 'Z' {
		rest := p[2:]
		if rest != "" && (rest[0] == '\\' || rest[0] == '/') {
			rest = rest[1:]
		}
		return "/" + string(p[0]&^0x20) + "/" + strings.ReplaceAll(rest, `\`, "/")
	}
	return strings.ReplaceAll(p, `\`, "/")
}
