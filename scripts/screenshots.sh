#!/bin/sh
# Regenerates the README's screenshots in docs/img/ from the bundled sample
# (testdata/sample), judged at 2026-11-28T06:00:00Z: the viewer
# (viewer.png), the static report of "greenlight report --html"
# (report.png, JavaScript disabled) and the job summary rendered from its
# Markdown (job-summary.png). It runs wasm/wasmtest's TestScreenshots in
# headless Chromium (apt-get install chromium fonts-noto-color-emoji: the job
# summary draws states as emoji, as GitHub renders them); each PNG must stay under
# 1 MB or the test fails.
#
# Usage: sh scripts/screenshots.sh
set -eu
cd "$(dirname "$0")/.."
mkdir -p docs/img
GREENLIGHT_REQUIRE_BROWSER=1 go -C wasm/wasmtest test -count=1 -run '^TestScreenshots$' . -screenshots "$PWD/docs/img"
ls -l docs/img
