#!/bin/sh
# Builds a release exactly as .github/workflows/release.yml publishes it
# (the workflow runs this script), into OUT (default release/):
#   OUT/assets/   the files of the GitHub release:
#                 greenlight-{linux,darwin,windows}-{amd64,arm64}[.exe]
#                 (the native binaries), greenlight-wasip1.wasm and
#                 greenlight-wasip1-lean.wasm (the action's modules), and
#                 checksums.txt (sha256 of each, sorted by name)
#   OUT/dist/     what the release commit adds to the repository:
#                 scripts/build-dist.sh's files (both modules, their .sha256
#                 files, VERSION), checksums.txt (the same file as in
#                 assets/) and REPOSITORY (owner/name, where engine native
#                 downloads the binaries from)
#   OUT/tree/     the release commit's tree: the files git tracks (or
#                 would, unignored new files) as they are in the working
#                 tree, with OUT/dist as dist/; what `uses: OWNER/greenlight@vX`
#                 checks out on a runner
# Every file is built reproducibly (the toolchain go.mod's toolchain line
# names, -trimpath, no VCS stamp, no build id, no cgo), so the same commit
# and version give the same bytes on any machine.
#
# Usage: sh scripts/release.sh [-o OUT] [-r OWNER/NAME] VERSION
#   (-r default greenlight-ci/greenlight)
set -eu
cd "$(dirname "$0")/.."
out=release
repo=greenlight-ci/greenlight
while [ $# -gt 1 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -r) repo=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 1 ]; then
  echo "usage: sh scripts/release.sh [-o OUT] [-r OWNER/NAME] VERSION" >&2
  exit 2
fi
version=$1
case $version in
  *[!A-Za-z0-9.+_-]*|'') echo "release: version '$version': use letters, digits and . + _ -" >&2; exit 2 ;;
esac
case $repo in
  */*/*|*[!A-Za-z0-9._/-]*|/*|*/) echo "release: repository '$repo': use OWNER/NAME" >&2; exit 2 ;;
esac
toolchain=$(sed -n 's/^toolchain \(go[0-9][0-9.]*\)$/\1/p' go.mod)
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
rm -rf "$out/assets" "$out/dist" "$out/tree"
mkdir -p "$out/assets"

# The native binaries, cross-compiled (no cgo, so one host builds all six).
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  goos=${target%/*}
  goarch=${target#*/}
  ext=""
  if [ "$goos" = windows ]; then ext=.exe; fi
  GOTOOLCHAIN=$toolchain GOFLAGS=-mod=readonly CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch \
    go build -trimpath -buildvcs=false \
    -ldflags="-s -w -buildid= -X github.com/greenlight-ci/greenlight/internal/cli.Version=$version" \
    -o "$out/assets/greenlight-$goos-$goarch$ext" ./cmd/greenlight
done

# The action's modules, their sha256 files and VERSION.
sh scripts/build-dist.sh -o "$out/dist" "$version"
cp "$out/dist/greenlight-wasip1.wasm" "$out/dist/greenlight-wasip1-lean.wasm" "$out/assets/"
if command -v sha256sum >/dev/null 2>&1; then sum="sha256sum"; else sum="shasum -a 256"; fi
(cd "$out/assets" && $sum greenlight-* | LC_ALL=C sort -k2 >checksums.txt)
cp "$out/assets/checksums.txt" "$out/dist/checksums.txt"
printf '%s\n' "$repo" >"$out/dist/REPOSITORY"

# The release commit's tree.
mkdir -p "$out/tree"
# The names are read one a line (no file name in the repository holds a
# line break); a tracked file deleted in the working tree is left out, as a
# commit of the working tree would leave it out.
git ls-files --cached --others --exclude-standard | while IFS= read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\n' "$f"; fi
done | tar -cf - -T - | tar -xf - -C "$out/tree"
cp -R "$out/dist" "$out/tree/dist"
echo "release $version for $repo in $out:"
(cd "$out" && find assets dist -type f | LC_ALL=C sort | while read -r f; do
  printf '%10d  %s\n' "$(wc -c <"$f")" "$f"
done)
