#!/usr/bin/env bash
# The Go benchmarks of the core before and after: BenchmarkCheck,
# BenchmarkCheckJSON and BenchmarkSnapshotJSON (checker/bench_test.go) of a
# base commit (default 09f2a20, the A/B base of bench/run.sh section 11)
# and of this tree, on the 1M-event log, the two test binaries alternating
# COUNT times each, compared by benchstat.
#
# usage: bench/benchstat.sh [COUNT [BASE]]
# needs: ~/go/bin/benchstat (go install golang.org/x/perf/cmd/benchstat@latest),
# the 1M log bench/run.sh generates (GREENLIGHT_BENCH_DIR, /tmp/greenlight-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-6}
base=${2:-09f2a20}
work=${GREENLIGHT_BENCH_DIR:-/tmp/greenlight-bench}
log="$work/1m.jsonl"
benchstat=$(command -v benchstat || echo "$HOME/go/bin/benchstat")
[ -s "$log" ] || { echo "no $log: run bench/run.sh 1 1 first (it generates it)" >&2; exit 2; }
[ -x "$benchstat" ] || { echo "benchstat not found: go install golang.org/x/perf/cmd/benchstat@latest" >&2; exit 2; }
src="$work/benchstat-$base"
if [ ! -x "$src/checker.test" ]; then
  rm -rf "$src"; mkdir -p "$src"
  git archive "$base" | tar -x -C "$src"
  go -C "$src" test -c -o "$src/checker.test" ./checker
fi
go test -c -o "$work/checker-head.test" ./checker
benches='^Benchmark(Check|CheckJSON|SnapshotJSON)$'
: > "$work/bench-base.txt"; : > "$work/bench-head.txt"
for i in $(seq "$count"); do
  (cd "$src/checker" && GREENLIGHT_BENCH_LOG="$log" "$src/checker.test" -test.run XXX -test.bench "$benches" -test.benchtime 2x -test.benchmem) >> "$work/bench-base.txt"
  (cd checker && GREENLIGHT_BENCH_LOG="$log" "$work/checker-head.test" -test.run XXX -test.bench "$benches" -test.benchtime 2x -test.benchmem) >> "$work/bench-head.txt"
done
"$benchstat" "$base=$work/bench-base.txt" "this tree=$work/bench-head.txt"
