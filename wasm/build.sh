#!/bin/sh
# Builds greenlight's WebAssembly modules:
#   wasm/viewer/greenlight.wasm   the js module the browser viewer loads (GOOS=js)
#   wasm/viewer/wasm_exec.js      Go's JavaScript glue, copied from $(go env GOROOT)/lib/wasm
#   dist/greenlight-wasip1.wasm   the WASI command (GOOS=wasip1), with its sha256
#                                 and VERSION, by scripts/build-dist.sh, which also
#                                 builds the action's lean module beside it
# The .wasm files and the copied wasm_exec.js are build outputs, kept out of git.
# Run from anywhere: sh wasm/build.sh   (or: go generate ./wasm/viewer)
set -eu
cd "$(dirname "$0")/.."
GOOS=js GOARCH=wasm go build -trimpath -ldflags=-s -o wasm/viewer/greenlight.wasm ./wasm/js
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" wasm/viewer/wasm_exec.js
sh scripts/build-dist.sh
ls -l wasm/viewer/greenlight.wasm dist/greenlight-wasip1.wasm
