// Package version names the greenlight build that runs, for "greenlight
// version" and the snapshot's tool.version, in every shell (the CLI and
// the wasip1 module through internal/cli, the js module directly).
package version

import "runtime/debug"

// Devel is the version of a build that names none: neither a release nor a
// module version. It is the text checker writes as tool.version when
// Options.ToolVersion is empty.
const Devel = "devel"

// Of returns the version greenlight reports: release when the build set one
// (a release tag, see internal/cli.Version); else the main module's version
// that debug.ReadBuildInfo gives (v1.2.3 for "go install
// github.com/greenlight-ci/greenlight/cmd/greenlight@v1.2.3", a
// pseudo-version for a build in a git checkout with VCS stamping); else
// Devel ("devel": a test binary, or a build with
// -buildvcs=false, which the cross-target tests use so that every build
// they compare writes the same bytes).
func Of(release string) string {
	if release != "" {
		return release
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Devel
}
