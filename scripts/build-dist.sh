#!/bin/sh
# Builds the release files of the JavaScript action into dist/ (git-ignored
# on main; the release workflow commits them on the release commit only):
#   dist/greenlight-wasip1.wasm              the wasip1 module action/run.mjs runs
#   dist/greenlight-wasip1.wasm.sha256       its sha256, which run.mjs checks
#   dist/greenlight-wasip1-lean.wasm         the same built with the tag
#                                            greenlight_lean: without the JSON
#                                            Schema validator, and hashing logs
#                                            with SHA-256 imported from run.mjs,
#                                            which tries it first
#   dist/greenlight-wasip1-lean.wasm.sha256  its sha256
#   dist/VERSION                        the version the action logs
# The module is built reproducibly: the toolchain that go.mod's toolchain line
# names (GOTOOLCHAIN pins it, fetching it if the local go is another one),
# -trimpath, no VCS stamp, no build id, no cgo; the same source and version
# give the same bytes on any machine and in any directory.
#
# Usage: sh scripts/build-dist.sh [-o DIR] [VERSION]   (VERSION default devel)
set -eu
cd "$(dirname "$0")/.."
out=dist
if [ "${1:-}" = "-o" ]; then
  out=$2
  shift 2
fi
version=${1:-devel}
case $version in
  *[!A-Za-z0-9.+_-]*) echo "build-dist: version $version: use letters, digits and . + _ -" >&2; exit 2 ;;
esac
toolchain=$(sed -n 's/^toolchain \(go[0-9][0-9.]*\)$/\1/p' go.mod)
if [ -z "$toolchain" ]; then
  echo "build-dist: go.mod has no toolchain line to pin the Go version" >&2
  exit 2
fi
mkdir -p "$out"
# build NAME [TAGS]: builds dist/NAME and its sha256 file.
build() {
  GOTOOLCHAIN=$toolchain GOFLAGS=-mod=readonly CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm \
    go build -trimpath -buildvcs=false -tags="${2:-}" \
    -ldflags="-s -w -buildid= -X github.com/greenlight-ci/greenlight/internal/cli.Version=$version" \
    -o "$out/$1" ./wasm/wasip1
  if command -v sha256sum >/dev/null 2>&1; then
    (cd "$out" && sha256sum "$1" >"$1.sha256")
  else
    (cd "$out" && shasum -a 256 "$1" >"$1.sha256")
  fi
}
build greenlight-wasip1.wasm
build greenlight-wasip1-lean.wasm greenlight_lean
printf '%s\n' "$version" >"$out/VERSION"
