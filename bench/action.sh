#!/usr/bin/env bash
# Cold start of the GitHub Action (README "Use it in GitHub Actions"): the
# JavaScript action (node action/run.mjs, the wasip1 module from dist/) vs the
# native binary's action mode, on the 27-line sample and on the 1M log, and
# what a job pays instead when it builds greenlight from source with an empty
# build cache (the module cache is warm here; a fresh runner also downloads
# the modules). Medians of alternating runs, so the machine's load hits both.
# The logs must be real files under the working directory or $GREENLIGHT_BENCH_DIR:
# the module sees only its preopened directories, and a symlink out of them
# is refused.
#
# usage: bench/action.sh [RUNS [SECTION...]]
#   RUNS runs of the sample each (default 7); SECTION numbers pick sections
#   (default all), e.g. bench/action.sh 15 1 3 skips the build from source
# needs: node, python3, /usr/bin/time, ../shared/tools/genlog.py
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
shift $(( $# > 0 ? 1 : 0 ))
sections=" $* "
# want N: whether section N was asked for (all when none were named).
want() { [ "$sections" = "  " ] || [[ "$sections" == *" $1 "* ]]; }
work=${GREENLIGHT_BENCH_DIR:-/tmp/greenlight-bench}
mkdir -p "$work"

log="$work/1m.jsonl"
if [ ! -s "$log" ]; then
  echo "generating $log (genlog.py --events 1000000 --seed 1)"
  python3 ../shared/tools/genlog.py "$log" --events 1000000 --seed 1
fi

root="$work/action-root"
rm -rf "$root"
mkdir -p "$root/action"
cp action/run.mjs "$root/action/"
sh scripts/build-dist.sh -o "$root/dist" bench
go build -trimpath -o "$work/greenlight" ./cmd/greenlight
echo "node $(node --version), $(go version | cut -d' ' -f3), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# step NAME ARGS...: runs one action step with fresh file-command files and
# prints "wall_seconds cpu_seconds".
step() {
  : > "$work/output"; : > "$work/summary"
  env -i PATH="$PATH" GITHUB_OUTPUT="$work/output" GITHUB_STEP_SUMMARY="$work/summary" "${ENVS[@]}" \
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" > /dev/null 2>&1 || true
  tail -n 1 "$work/time.txt" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
  if [ "${CHECK_VERDICT:-}" ] && ! grep -qx "$CHECK_VERDICT" "$work/output"; then
    echo "bench/action.sh: $* did not write verdict $CHECK_VERDICT; its time means nothing" >&2
    exit 1
  fi
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if want 1; then
echo
echo "== 1. the 27-line sample, $runs alternating runs (budget: under 0.3 s from node start to exit)"
CHECK_VERDICT=unhealthy
ENVS=(INPUT_EVENTS=testdata/sample/campaign_metrics.jsonl INPUT_PIPELINE=testdata/sample/pipeline.yaml INPUT_NOW=2026-11-28T06:00:00Z)
: > "$work/w.txt"; : > "$work/n.txt"; : > "$work/b.txt"
for i in $(seq "$runs"); do
  step node "$root/action/run.mjs" >> "$work/w.txt"
  step "$work/greenlight" action >> "$work/n.txt"
  CHECK_VERDICT="" step node -e 0 >> "$work/b.txt"
done
printf 'wasm (node run.mjs)    median %.3f s wall (quickest %.3f s), %.2f s CPU\n' "$(cut -d' ' -f1 "$work/w.txt" | median)" "$(cut -d' ' -f1 "$work/w.txt" | sort -n | head -1)" "$(cut -d' ' -f2 "$work/w.txt" | median)"
printf 'native action mode     median %.3f s wall, %.2f s CPU\n' "$(cut -d' ' -f1 "$work/n.txt" | median)" "$(cut -d' ' -f2 "$work/n.txt" | median)"
printf 'node -e 0 (node alone) median %.3f s wall\n' "$(cut -d' ' -f1 "$work/b.txt" | median)"
fi

if want 2; then
echo
echo "== 2. building from source instead (go build -trimpath ./cmd/greenlight, empty GOCACHE)"
cache=$(mktemp -d)
CHECK_VERDICT=""
ENVS=(GOCACHE="$cache" HOME="$HOME" GOPATH="$(go env GOPATH)" GOFLAGS=-mod=readonly)
step go build -trimpath -o "$work/greenlight-cold" ./cmd/greenlight | awk '{ printf "build from source      %.1f s wall, %.1f s CPU\n", $1, $2 }'
rm -rf "$cache"
fi

if want 3; then
echo
echo "== 3. the 1M log ($(wc -l < "$log") events), 3 alternating runs (target: wasm under 6x native)"
CHECK_VERDICT=unhealthy
# The action reads only files inside its workspace.
ENVS=(GITHUB_WORKSPACE="$work" INPUT_EVENTS="$log" INPUT_STAGES=1,2 INPUT_NOW=2026-12-01T00:00:00Z RUNNER_TEMP="$work")
: > "$work/w.txt"; : > "$work/n.txt"
for i in 1 2 3; do
  step node "$root/action/run.mjs" >> "$work/w.txt"
  step "$work/greenlight" action >> "$work/n.txt"
done
w=$(cut -d' ' -f1 "$work/w.txt" | median); n=$(cut -d' ' -f1 "$work/n.txt" | median)
wc_=$(cut -d' ' -f2 "$work/w.txt" | median); nc=$(cut -d' ' -f2 "$work/n.txt" | median)
awk -v w="$w" -v n="$n" -v wc="$wc_" -v nc="$nc" 'BEGIN {
  printf "wasm (node run.mjs)    median %.2f s wall, %.2f s CPU\n", w, wc
  printf "native action mode     median %.2f s wall, %.2f s CPU\n", n, nc
  printf "wasm/native            %.1fx wall, %.1fx CPU\n", w/n, wc/nc }'
fi
