#!/usr/bin/env bash
# Reproduces the performance targets of greenlight (see README "Performance")
# on this machine and prints the ratios. Ratios are measured in one run, with
# greenlight and its peer alternating, so the machine's load hits both.
#
# usage: bench/run.sh [RUNS [SECTION...]]
#   RUNS alternating runs each (default 5); SECTION numbers pick sections
#   (default all), e.g. bench/run.sh 3 8 9 10 11 12
# needs: python3, /usr/bin/time, ../shared/tools/{genlog,refmonitor}.py
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift $(( $# > 0 ? 1 : 0 ))
sections=" $* "
# want N: whether section N was asked for (all when none were named).
want() { [ "$sections" = "  " ] || [[ "$sections" == *" $1 "* ]]; }
tools=../shared/tools
work=${GREENLIGHT_BENCH_DIR:-/tmp/greenlight-bench}
mkdir -p "$work"
now=2026-12-01T00:00:00Z

# The machine: the ratios that set greenlight against itself move with the
# CPU (section 12's proof hashes with SHA-256, which uses the SHA
# instructions where the CPU has them: docs/state.md).
if [ -r /proc/cpuinfo ]; then
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  has=""
  for f in avx512f avx2 sha_ni; do [[ " $flags " == *" $f "* ]] && has="$has $f"; done
  if [ -n "$has" ]; then has="with$has"; else has="without avx512f, avx2 or sha_ni"; fi
  echo "machine: ${model:-unknown CPU}, $(nproc) cores, $has; $(go version | cut -d' ' -f3)"
fi
# The logs genlog.py writes retry a stage past three same-kind failures,
# and a later night starts it again without rerun_from: under the retry
# brake's default (enforce: true) those logs are invalid. The benchmark
# times the same work refmonitor.py does, so greenlight reads them with the
# brake as a warning (docs/recovery.md, retry brake).
pipe="$work/bench-pipeline.yaml"
printf 'stages: [{id: 1}, {id: 2}]\nretry_brake: {enforce: false}\n' > "$pipe"
echo "building greenlight"
go build -o "$work/greenlight" ./cmd/greenlight
gl="$work/greenlight"

log="$work/1m.jsonl"
if [ ! -s "$log" ]; then
  echo "generating $log (genlog.py --events 1000000 --seed 1)"
  python3 "$tools/genlog.py" "$log" --events 1000000 --seed 1
fi
bytes=$(stat -L -c %s "$log")
events=$(wc -l < "$log")

# measure CMD...: prints "seconds maxrss_kb exit_status": the wall time to
# the millisecond (GNU time's %e has centiseconds, a tenth of a resumed
# check), the peak RSS and exit status by /usr/bin/time.
measure() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M %x" -o "$work/time.txt" "$@" > /dev/null 2>"$work/stderr.txt" || true
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(tail -n 1 "$work/time.txt")" | awk '{ printf "%.3f %s %s\n", $1 / 1000, $2, $3 }'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if want 1; then
echo
echo "== 1. check vs refmonitor.py on $events events ($((bytes / 1000000)) MB), $runs alternating runs"
: > "$work/gl.txt"; : > "$work/ref.txt"
for i in $(seq "$runs"); do
  measure "$gl" check "$log" --pipeline "$pipe" --now "$now" --format json >> "$work/gl.txt"
  measure python3 "$tools/refmonitor.py" "$log" --stages 1,2 --now "$now" >> "$work/ref.txt"
done
gl_t=$(cut -d' ' -f1 "$work/gl.txt" | median); ref_t=$(cut -d' ' -f1 "$work/ref.txt" | median)
gl_m=$(cut -d' ' -f2 "$work/gl.txt" | sort -n | tail -1); ref_m=$(cut -d' ' -f2 "$work/ref.txt" | sort -n | tail -1)
awk -v g="$gl_t" -v r="$ref_t" -v gm="$gl_m" -v rm="$ref_m" -v ev="$events" -v by="$bytes" 'BEGIN {
  printf "greenlight  median %.2f s  %.0f events/s  %.0f MB/s  peak RSS %.0f MB\n", g, ev/g, by/g/1e6, gm/1024
  printf "refmonitor  median %.2f s  %.0f events/s  peak RSS %.0f MB\n", r, ev/r, rm/1024
  printf "speed-up %.1fx (target >= 25x)   RSS ratio %.2f (target <= 0.25)\n", r/g, gm/rm }'
fi

if want 2; then
echo
echo "== 2. linear throughput: 1,000,000 vs 10,000,000 events streamed through standard input"
log10="$work/10m.jsonl"
if [ ! -s "$log10" ]; then
  echo "generating $log10 (genlog.py --events 10000000 --seed 1; a few minutes)"
  python3 "$tools/genlog.py" "$log10" --events 10000000 --seed 1
fi
# The 10M log's runs reach into 2031, so both are judged at a later now.
later=2040-01-01T00:00:00Z
# Three alternating runs of each; medians (one 20 s run varies by 10 % here).
: > "$work/t1.txt"; : > "$work/t10.txt"
for i in 1 2 3; do
  measure sh -c "cat '$log' | '$gl' check - --pipeline '$pipe' --now $later --format json" >> "$work/t1.txt"
  measure sh -c "cat '$log10' | '$gl' check - --pipeline '$pipe' --now $later --format json" >> "$work/t10.txt"
done
t1=$(cut -d' ' -f1 "$work/t1.txt" | median); t10=$(cut -d' ' -f1 "$work/t10.txt" | median)
m1=$(cut -d' ' -f2 "$work/t1.txt" | sort -n | tail -1); m10=$(cut -d' ' -f2 "$work/t10.txt" | sort -n | tail -1)
awk -v a="$t1" -v b="$t10" -v ma="$m1" -v mb="$m10" 'BEGIN {
  printf "1M: %.2f s, peak RSS %.0f MB   10M: %.2f s, peak RSS %.0f MB   time ratio %.2f (target <= 11)\n", a, ma/1024, b, mb/1024, b/a }'
echo "(peak RSS of the pipe is the larger of cat and greenlight; the 10M log has ten times the runs)"
# The same 10M log with --window 7d, read from the file, once: the runs
# whose attempts ended before the window are folded into 40-byte records
# (docs/window.md), which is what bounds its memory.
/usr/bin/time -f "%e %M %x" -o "$work/t10w.txt" "$gl" check "$log10" --pipeline "$pipe" --now "$later" --window 7d > "$work/t10w.out" 2>/dev/null || true
read -r tw mw xw < <(tail -n 1 "$work/t10w.txt")
awk -v t="$tw" -v m="$mw" -v x="$xw" -v f="$(grep -o '[0-9]* older runs folded' "$work/t10w.out")" 'BEGIN {
  printf "10M --window 7d: %.2f s, peak RSS %.0f MB (target <= 300 MB), exit %d; %s\n", t, m/1024, x, f }'
# A gate over that log (docs/state.md, "With --window"): the same windowed
# check with --state on a copy of the log, which then grows by 1,000
# events (genlog.py's first, under run ids of their own, moved to the day
# of its last event); the check resumed from that checkpoint, 3 runs.
g10="$work/growing-10m.jsonl"; s10="$work/growing-10m.state"
cp "$log10" "$g10"; rm -f "$s10"
"$gl" check "$g10" --pipeline "$pipe" --now "$later" --window 7d --state "$s10" > /dev/null || true
cp "$s10" "$s10.orig"
[ -s "$work/1k.jsonl" ] || python3 "$tools/genlog.py" "$work/1k.jsonl" --events 1000 --seed 2
sed 's/"run_id": "run-/"run_id": "tail-/; s/"2026-01-01T0/"2031-10-10T1/' "$work/1k.jsonl" >> "$g10"
sync
: > "$work/t10s.txt"
for i in 1 2 3; do
  cp "$s10.orig" "$s10"; sync "$s10"
  measure "$gl" check "$g10" --pipeline "$pipe" --now "$later" --window 7d --state "$s10" >> "$work/t10s.txt"
done
ts=$(cut -d' ' -f1 "$work/t10s.txt" | median); ms=$(cut -d' ' -f2 "$work/t10s.txt" | sort -n | tail -1); xs=$(cut -d' ' -f3 "$work/t10s.txt" | sort -u | tr '\n' ' ')
awk -v t="$ts" -v m="$ms" -v x="$xs" -v full="$tw" -v size="$(stat -c %s "$s10.orig")" 'BEGIN {
  printf "10M --window 7d gate: 1,000 events appended, --state %.2f s (%.0fx the full check above), peak RSS %.0f MB, checkpoint %.0f MB, exit %s\n", t, full/t, m/1024, size/1e6, x }'
rm -f "$g10" "$s10" "$s10.orig"
fi

if want 3; then
echo
echo "== 3. memory follows runs and attempts, not the size of events"
python3 bench/genruns.py "$work/r100-e1k.jsonl" --runs 100 --events 1000
python3 bench/genruns.py "$work/r100-e1k-pad.jsonl" --runs 100 --events 1000 --pad 10000
python3 bench/genruns.py "$work/r100-e1m.jsonl" --runs 100 --events 1000000
for f in r100-e1k r100-e1k-pad r100-e1m; do
  printf '%-14s %8s bytes  ' "$f" "$(stat -c %s "$work/$f.jsonl")"
  measure "$gl" check "$work/$f.jsonl" --pipeline "$pipe" --now "$now" --format json | awk '{ printf "%.2f s  peak RSS %.1f MB\n", $1, $2/1024 }'
done
echo "(r100-e1m holds 100 runs with ~5,000 attempts each: its state grows with the attempts, which the snapshot lists)"
fi

if want 4; then
echo
echo "== 4. the same wasip1 module on the 1M log: under wazero (the test harness) and under node (the action's runtime) vs native"
GREENLIGHT_BENCH_LOG="$log" go -C wasm/wasmtest test . -run XXX -bench WASIvsNative -benchtime 1x | grep -E 'wasm/native' |
  awk '{ for (i = 1; i <= NF; i++) { if ($i == "native-s/op") n = $(i-1); if ($i == "wasm-s/op") w = $(i-1); if ($i == "wasm/native") r = $(i-1) } }
       END { printf "wazero, in-process (module compiled once): native %.2f s  wasip1 %.2f s  ratio %.1f\n", n, w, r }'
# node: the module as the action ships it (scripts/build-dist.sh), run by
# bench/node-wasi.mjs with the action's V8 flags and GC pacing, each a
# process from node's start to its exit, alternating with the native CLI.
sh scripts/build-dist.sh -o "$work/dist" bench
logdir=$(dirname "$log")
: > "$work/wn.txt"; : > "$work/nn.txt"
for i in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" node bench/node-wasi.mjs --dir "$logdir=/data" "$work/dist/greenlight-wasip1.wasm" \
    check "/data/$(basename "$log")" --pipeline /data/bench-pipeline.yaml --now "$now" --format json > /dev/null 2>&1 || true
  tail -n 1 "$work/time.txt" >> "$work/wn.txt"
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$gl" check "$log" --pipeline "$pipe" --now "$now" --format json > /dev/null 2>&1 || true
  tail -n 1 "$work/time.txt" >> "$work/nn.txt"
done
wt=$(cut -d' ' -f1 "$work/wn.txt" | median); nt=$(cut -d' ' -f1 "$work/nn.txt" | median)
wc_=$(awk '{ print $2 + $3 }' "$work/wn.txt" | median); nc=$(awk '{ print $2 + $3 }' "$work/nn.txt" | median)
awk -v w="$wt" -v n="$nt" -v wc="$wc_" -v nc="$nc" -v r="$runs" -v nv="$(node --version)" 'BEGIN {
  printf "node %s, processes, median of %d: native %.2f s (%.2f s CPU)  wasip1 %.2f s (%.2f s CPU)  ratio %.1f wall, %.1f CPU (target <= 6)\n", nv, r, n, nc, w, wc, w/n, wc/nc }'
echo "the floor: the same Go code, one core, native vs wasip1 under wazero and under node (bench/floor)"
go -C wasm/wasmtest build -o "$work/wazero" github.com/tetratelabs/wazero/cmd/wazero
GOOS=wasip1 GOARCH=wasm go test -c -o "$work/floor.wasm" ./bench/floor
nat=$(go test ./bench/floor -run XXX -bench . -benchtime 3x -cpu 1 | awk '/^Benchmark/ { print $1, $3 }')
wsm=$("$work/wazero" run -cachedir "$work/wazero-cache" "$work/floor.wasm" -test.run XXX -test.bench . -test.benchtime 3x | awk '/^Benchmark/ { print $1, $3 }')
nod=$(node bench/node-wasi.mjs "$work/floor.wasm" -test.run XXX -test.bench . -test.benchtime 3x | awk '/^Benchmark/ { print $1, $3 }')
printf '%s\n%s\n%s\n' "$nat" "$wsm" "$nod" | awk '{ sub(/-[0-9]+$/, "", $1); n[$1]++; v[$1, n[$1]] = $2 }
  END { for (k in n) printf "%-18s native %6.1f ms  wazero %7.1f ms (%.1fx)  node %7.1f ms (%.1fx)\n", k, v[k,1]/1e6, v[k,2]/1e6, v[k,2]/v[k,1], v[k,3]/1e6, v[k,3]/v[k,1] }' | sort
fi

if want 5; then
echo
echo "== 5. the browser viewer: the 1M log preloaded, checked in the Web Worker (headless Chromium)"
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null; then
  sh wasm/build.sh > /dev/null
  GREENLIGHT_BENCH_LOG="$log" go -C wasm/wasmtest test . -run XXX -bench Viewer -benchtime 1x | grep -E 'page-s/op' |
    awk '{ for (i = 1; i <= NF; i++) { if ($i == "page-s/op") p = $(i-1); if ($i == "worker-s/op") w = $(i-1); if ($i == "progress-updates/op") u = $(i-1); if ($i == "max-page-ms") m = $(i-1) } }
         END { printf "page open to verdict %.1f s (target < 15 s), worker %.1f s, %d progress updates seen, slowest page answer %.0f ms\n", p, w, u, m }'
else
  echo "no Chromium: skipped (apt-get install chromium)"
fi
fi

if want 6; then
echo
echo "== 6. the bundled sample: process wall time, median of 41 (and of greenlight version, the start-up alone)"
# Timed from python: a fork and exec of greenlight and nothing else.
python3 - "$gl" <<'PY'
import statistics, subprocess, sys, time
gl = sys.argv[1]
for args, target in ((["check", "testdata/sample/campaign_metrics.jsonl", "--pipeline", "testdata/sample/pipeline.yaml",
                       "--now", "2026-11-28T06:00:00Z"], " (target < 20 ms)"), (["version"], "")):
    times = []
    for _ in range(41):
        t = time.perf_counter()
        subprocess.run([gl] + args, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t)
    print("%-8s %.1f ms%s" % (args[0], statistics.median(times) * 1000, target))
PY
fi

if want 7; then
echo
echo "== 7. Go benchmarks of the core on the 1M log, 09f2a20 against this tree, $runs alternating runs each: bench/benchstat.sh"
bash bench/benchstat.sh "$runs"
fi

if want 8; then
echo
echo "== 8. a 10,000-stage definition with 1,000 failed runs (9,999 blocked stages each), checked and every run report built"
go test ./checker -run XXX -bench BlockedStages -benchtime 3x | grep -E '^BenchmarkBlockedStages' |
  awk '{ sub(/^BenchmarkBlockedStages\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "%-18s %.2f s per check (target: seconds)\n", $1, $3/1e9 }'
echo "(before the stage plan the forward case took 96 s, and one run against 4,000 stages declared backward 19 s: cubic)"
fi

if want 9; then
echo
echo "== 9. hostile 1 MiB lines vs valid ones (docs/contract.md: bounded validator work): go test -bench HostileLine, the fastest of 5 counts of 20 runs each"
# The fastest of several counts: a line takes 0.3 to 40 ms, and a single
# count of a few runs moved a ratio by 2x with the machine's load.
go test ./checker/internal/eventline -run XXX -bench HostileLine -benchtime 20x -count 5 | awk '
  /^BenchmarkHostileLine\// { name = $1; sub(/^BenchmarkHostileLine\//, "", name); sub(/-[0-9]+$/, "", name)
    if (!(name in ns)) { ns[name] = $3; order[++n] = name } else if ($3 < ns[name]) ns[name] = $3 }
  END {
    printf "%-32s %8s  %-17s %7s  %s\n", "line", "ms", "valid line alike", "ratio", "x valid/long-string"
    for (i = 1; i <= n; i++) {
      k = order[i]; alike = (k ~ /many-/) ? "valid/many-keys" : "valid/long-string"
      printf "%-32s %8.1f  %-17s %7.1f  %.1f\n", k, ns[k]/1e6, alike, ns[k]/ns[alike], ns[k]/ns["valid/long-string"] }
    print "(target: a hostile line <= 10x the valid 1 MiB line alike; a line of 1 MiB of keys costs ~20x one of 1 MiB of string, valid or not: the duplicate-key check)" }'
fi

if want 10; then
echo
echo "== 10. peak RSS of every output format vs json on the 1M-event log (docs/contract.md: streamed outputs)"
# A run that fails early would look small: each line shows its exit status
# (0 for check, 1 for an unhealthy log in action mode).
read -r _ json_m json_x < <(measure "$gl" check "$log" --pipeline "$pipe" --now "$now" --format json)
printf "%-11s peak RSS %5d MB  exit %d\n" json $((json_m / 1024)) "$json_x"
for f in text markdown junit sarif gitlab openmetrics; do
  read -r _ m x < <(measure "$gl" check "$log" --pipeline "$pipe" --now "$now" --format "$f")
  awk -v f="$f" -v m="$m" -v j="$json_m" -v x="$x" 'BEGIN { printf "%-11s peak RSS %5.0f MB  %.2fx json  exit %d (target <= 1.5x)\n", f, m/1024, m/j, x }'
done
# Action mode: check, the step log (text), annotations and the job summary;
# the action reads only files inside its workspace.
act="$work/action"; mkdir -p "$act"; : > "$act/output"; : > "$act/summary"
read -r _ m x < <(measure env GITHUB_WORKSPACE="$work" GITHUB_OUTPUT="$act/output" GITHUB_STEP_SUMMARY="$act/summary" INPUT_EVENTS="$log" INPUT_STAGES=1,2 INPUT_NOW="$now" "$gl" action)
awk -v m="$m" -v j="$json_m" -v x="$x" 'BEGIN { printf "%-11s peak RSS %5.0f MB  %.2fx json  exit %d (target <= 1.5x)\n", "action", m/1024, m/j, x }'
# The default text output (a bounded listing, issue 16) against json, in
# time and peak RSS: medians of $runs alternating runs (issue 18: <= 1.1x).
: > "$work/json.txt"; : > "$work/text.txt"
for i in $(seq "$runs"); do
  measure "$gl" check "$log" --pipeline "$pipe" --now "$now" --format json >> "$work/json.txt"
  measure "$gl" check "$log" --pipeline "$pipe" --now "$now" >> "$work/text.txt"
done
jt=$(cut -d' ' -f1 "$work/json.txt" | median); tt=$(cut -d' ' -f1 "$work/text.txt" | median)
jm=$(cut -d' ' -f2 "$work/json.txt" | median); tm=$(cut -d' ' -f2 "$work/text.txt" | median)
awk -v jt="$jt" -v tt="$tt" -v jm="$jm" -v tm="$tm" 'BEGIN { printf "text vs json, medians: %.2f s vs %.2f s (%.2fx), peak RSS %.0f MB vs %.0f MB (%.2fx) (target <= 1.1x)\n", tt, jt, tt/jt, tm/1024, jm/1024, tm/jm }'
fi

if want 11; then
echo
echo "== 11. decoding speed on the 1M log: check and validate vs the jsontext-per-line floor (bench/jsonfloor) and vs main at 09f2a20, $runs alternating runs"
base=${GREENLIGHT_BENCH_BASE:-09f2a20}
if [ ! -x "$work/greenlight-$base" ]; then
  rm -rf "$work/base-src"; mkdir -p "$work/base-src"
  git archive "$base" | tar -x -C "$work/base-src"
  go -C "$work/base-src" build -o "$work/greenlight-$base" ./cmd/greenlight
fi
go build -o "$work/jsonfloor" ./bench/jsonfloor
: > "$work/floor.txt"; : > "$work/json.txt"; : > "$work/base.txt"; : > "$work/validate.txt"
for i in $(seq "$runs"); do
  measure "$work/jsonfloor" "$log" >> "$work/floor.txt"
  measure "$gl" check "$log" --pipeline "$pipe" --now "$now" --format json >> "$work/json.txt"
  measure "$work/greenlight-$base" check "$log" --pipeline "$pipe" --now "$now" --format json >> "$work/base.txt"
  measure "$gl" validate "$log" --pipeline "$pipe" >> "$work/validate.txt"
done
fl=$(cut -d' ' -f1 "$work/floor.txt" | median); js=$(cut -d' ' -f1 "$work/json.txt" | median)
bs=$(cut -d' ' -f1 "$work/base.txt" | median); va=$(cut -d' ' -f1 "$work/validate.txt" | median)
awk -v f="$fl" -v j="$js" -v b="$bs" -v v="$va" -v base="$base" 'BEGIN {
  printf "jsontext per line (floor)   %.2f s\n", f
  printf "check --format json         %.2f s  %.2fx floor (target <= 1.6x)\n", j, j/f
  printf "check --format json @%s %.2f s  this tree is %.2fx faster (target >= 1.6x)\n", base, b, b/j
  printf "validate                    %.2f s  %.2fx floor (target <= 1.3x)\n", v, v/f }'
# Each run above must have succeeded: a failing run would look fast.
awk '$3 != 0 { bad = 1 } END { exit bad }' "$work/floor.txt" "$work/json.txt" "$work/base.txt" "$work/validate.txt" ||
  { echo "a run in section 11 exited non-zero: see $work/*.txt" >&2; exit 1; }
fi

if want 12; then
echo
echo "== 12. check --state: 1,000 events appended to the 1M log, resumed from the 1M log's checkpoint vs a full check, $runs alternating runs"
# The checkpoint names the log's path, so the log grows in place: a copy of
# the 1M log is checked with --state, then genlog.py's first 1,000 events are
# appended under run ids of their own, so that the grown log stays valid.
grown="$work/growing.jsonl"
state="$work/growing.state"
cp "$log" "$grown"; rm -f "$state"
# "hash" is bench/loghash: the log's SHA-256 on one core (SHA extensions
# where the CPU has them, which coreutils' sha256sum may not use), in 1 MiB
# reads, the reference of the "hash plus load" target; --state itself
# proves the prefix in SHA-256 pieces on several cores (docs/state.md).
go build -o "$work/loghash" ./bench/loghash
"$gl" check "$grown" --pipeline "$pipe" --now "$now" --state "$state" > /dev/null
cp "$state" "$state.orig"
# The same with --window 7d: the checkpoint keeps the window's state (the
# folded runs as 40-byte records, docs/state.md). The events appended are
# the same 1,000 moved to the day after the 1M log's last one: events older
# than the window would meet runs it folded (folded_run_event).
wgrown="$work/growing-7d.jsonl"
wstate="$work/growing-7d.state"
cp "$log" "$wgrown"; rm -f "$wstate"
"$gl" check "$wgrown" --pipeline "$pipe" --now "$now" --window 7d --state "$wstate" > /dev/null
cp "$wstate" "$wstate.orig"
python3 "$tools/genlog.py" "$work/1k.jsonl" --events 1000 --seed 2
sed 's/"run_id": "run-/"run_id": "tail-/' "$work/1k.jsonl" >> "$grown"
sed 's/"run_id": "run-/"run_id": "tail-/; s/"2026-01-01T0/"2026-07-31T1/' "$work/1k.jsonl" >> "$wgrown"
added=$(( $(wc -l < "$grown") - events ))
# The resumed outputs are a full check's, byte for byte.
for f in text json openmetrics; do
  cp "$state.orig" "$state"
  "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format "$f" > "$work/full.$f" || true
  "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format "$f" --state "$state" > "$work/resumed.$f" || true
  # (openmetrics reports the check's own duration, the one line that may differ)
  if ! cmp -s <(grep -v '^greenlight_check_duration_seconds' "$work/full.$f") <(grep -v '^greenlight_check_duration_seconds' "$work/resumed.$f"); then
    echo "check --state --format $f differs from a full check: see $work/full.$f and $work/resumed.$f" >&2; exit 1
  fi
done
cp "$wstate.orig" "$wstate"
"$gl" check "$wgrown" --pipeline "$pipe" --now "$now" --window 7d > "$work/full-7d.text" || true
"$gl" check "$wgrown" --pipeline "$pipe" --now "$now" --window 7d --state "$wstate" > "$work/resumed-7d.text" || true
cmp -s "$work/full-7d.text" "$work/resumed-7d.text" ||
  { echo "check --state --window 7d differs from a full check: see $work/full-7d.text and $work/resumed-7d.text" >&2; exit 1; }
# The setup above wrote hundreds of megabytes (the grown logs, the outputs
# compared); they are flushed before anything is timed, and so is each copy
# of the checkpoint a resumed check starts from: in a gate, the checkpoint
# was synced by the check that wrote it, and a resumed check's own fsync
# must not wait for the harness's writes (ext4 commits the data of every
# file in its journal transaction).
sync
: > "$work/full-text.txt"; : > "$work/state-text.txt"; : > "$work/full-om.txt"; : > "$work/state-om.txt"; : > "$work/sha.txt"
: > "$work/full-7d.txt"; : > "$work/state-7d.txt"; : > "$work/full-json.txt"; : > "$work/state-json.txt"
for i in $(seq "$runs"); do
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" >> "$work/full-text.txt"
  cp "$state.orig" "$state"; sync "$state"
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" --state "$state" >> "$work/state-text.txt"
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format openmetrics >> "$work/full-om.txt"
  cp "$state.orig" "$state"; sync "$state"
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format openmetrics --state "$state" >> "$work/state-om.txt"
  measure "$work/loghash" "$grown" >> "$work/sha.txt"
  # --format json lists every run: a resumed check decodes every run of the
  # checkpoint and writes the whole document, the floor of such a check.
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format json >> "$work/full-json.txt"
  cp "$state.orig" "$state"; sync "$state"
  measure "$gl" check "$grown" --pipeline "$pipe" --now "$now" --format json --state "$state" >> "$work/state-json.txt"
  measure "$gl" check "$wgrown" --pipeline "$pipe" --now "$now" --window 7d >> "$work/full-7d.txt"
  cp "$wstate.orig" "$wstate"; sync "$wstate"
  measure "$gl" check "$wgrown" --pipeline "$pipe" --now "$now" --window 7d --state "$wstate" >> "$work/state-7d.txt"
done
load=$(GREENLIGHT_BENCH_LOG="$log" go test ./checker -run XXX -bench CheckpointLoad -benchtime 3x | awk '/^BenchmarkCheckpointLoad/ { print $3 / 1e9 }')
wload=$(GREENLIGHT_BENCH_LOG="$log" GREENLIGHT_BENCH_WINDOW=7d go test ./checker -run XXX -bench CheckpointLoad -benchtime 3x | awk '/^BenchmarkCheckpointLoad/ { print $3 / 1e9 }')
ft=$(cut -d' ' -f1 "$work/full-text.txt" | median); st=$(cut -d' ' -f1 "$work/state-text.txt" | median)
fo=$(cut -d' ' -f1 "$work/full-om.txt" | median); so=$(cut -d' ' -f1 "$work/state-om.txt" | median)
sh=$(cut -d' ' -f1 "$work/sha.txt" | median)
sm=$(cut -d' ' -f2 "$work/state-text.txt" | sort -n | tail -1); fm=$(cut -d' ' -f2 "$work/full-text.txt" | sort -n | tail -1)
fw=$(cut -d' ' -f1 "$work/full-7d.txt" | median); sw=$(cut -d' ' -f1 "$work/state-7d.txt" | median)
fwm=$(cut -d' ' -f2 "$work/full-7d.txt" | sort -n | tail -1); swm=$(cut -d' ' -f2 "$work/state-7d.txt" | sort -n | tail -1)
awk -v ft="$ft" -v st="$st" -v fo="$fo" -v so="$so" -v sh="$sh" -v ld="$load" -v sm="$sm" -v fm="$fm" -v added="$added" -v size="$(stat -c %s "$state.orig")" 'BEGIN {
  printf "%d events appended; checkpoint %.1f MB\n", added, size/1e6
  printf "text (default)   full %.3f s  --state %.3f s  %.1fx faster (target >= 3x)  peak RSS %.0f / %.0f MB\n", ft, st, ft/st, fm/1024, sm/1024
  printf "openmetrics      full %.3f s  --state %.3f s  %.1fx faster\n", fo, so, fo/so
  printf "hash + load      hash (bench/loghash, Go crypto/sha256) %.3f s + load %.3f s = %.3f s; --state text %.2fx of it, openmetrics %.2fx (target <= 2x)\n", sh, ld, sh+ld, st/(sh+ld), so/(sh+ld) }'
fj=$(cut -d' ' -f1 "$work/full-json.txt" | median); sj=$(cut -d' ' -f1 "$work/state-json.txt" | median)
awk -v fj="$fj" -v sj="$sj" -v ft="$ft" 'BEGIN {
  printf "json (every run) full %.3f s  --state %.3f s  %.1fx faster; the document itself (full json less full text) %.3f s, so the resumed check is %.3f s besides it\n", fj, sj, fj/sj, fj-ft, sj-(fj-ft) }'
awk -v fw="$fw" -v sw="$sw" -v fwm="$fwm" -v swm="$swm" -v sh="$sh" -v ld="$wload" -v size="$(stat -c %s "$wstate.orig")" 'BEGIN {
  printf "--window 7d text full %.3f s  --state %.3f s  %.1fx faster  peak RSS %.0f / %.0f MB  checkpoint %.1f MB, load %.3f s (hash + load %.2fx)\n", fw, sw, fw/sw, fwm/1024, swm/1024, size/1e6, ld, sw/(sh+ld) }'
awk '$3 != 0 { bad = 1 } END { exit bad }' "$work/full-text.txt" "$work/state-text.txt" "$work/full-om.txt" "$work/state-om.txt" "$work/sha.txt" "$work/full-7d.txt" "$work/state-7d.txt" "$work/full-json.txt" "$work/state-json.txt" ||
  { echo "a run in section 12 exited non-zero: see $work/*.txt" >&2; exit 1; }
fi

if want 13; then
echo
echo "== 13. the 1M-event log gzip- and zstd-compressed vs plain (docs/contract.md: a log of several files, compressed or not), $runs alternating runs"
# gzip -6 and zstd -3 are the tools' defaults; the decompressed text is the
# same log, so the three checks must agree (same exit status).
[ -s "$log.gz" ] || gzip -6 -c "$log" > "$log.gz"
if command -v zstd > /dev/null; then [ -s "$log.zst" ] || zstd -q -3 -c "$log" > "$log.zst"; fi
kinds="plain gz"; [ -s "$log.zst" ] && kinds="$kinds zst"
for k in $kinds; do : > "$work/comp-$k.txt"; done
for i in $(seq "$runs"); do
  for k in $kinds; do
    f="$log"; [ "$k" = plain ] || f="$log.$k"
    measure "$gl" check "$f" --pipeline "$pipe" --now "$now" --format json >> "$work/comp-$k.txt"
  done
done
plain_t=$(cut -d' ' -f1 "$work/comp-plain.txt" | median)
for k in $kinds; do
  f="$log"; [ "$k" = plain ] || f="$log.$k"
  t=$(cut -d' ' -f1 "$work/comp-$k.txt" | median); m=$(cut -d' ' -f2 "$work/comp-$k.txt" | sort -n | tail -1); x=$(cut -d' ' -f3 "$work/comp-$k.txt" | sort -u | tr '\n' ' ')
  awk -v k="$k" -v t="$t" -v p="$plain_t" -v m="$m" -v s="$(stat -L -c %s "$f")" -v x="$x" 'BEGIN { printf "%-6s %6.1f MB on disk  median %.2f s  %.2fx plain  peak RSS %.0f MB  exit %s\n", k, s/1e6, t, t/p, m/1024, x }'
done
fi

# cpu CMD...: prints the CPU seconds (user + system) CMD took (GNU time's
# last line: a non-zero exit adds a line before it).
cpu() {
  /usr/bin/time -f "%U %S" -o "$work/time.txt" "$@" > /dev/null 2>"$work/stderr.txt" || true
  tail -n 1 "$work/time.txt" | awk '{ printf "%.3f\n", $1 + $2 }'
}

if want 14; then
echo
echo "== 14. 512 KiB of short lines the compiled check refuses vs a valid log of the same size (docs/contract.md: cost of refused lines), CPU seconds, median of $runs"
# Only the listed violations (--max-violations, default 1000) are worded by
# the JSON Schema validator; the rest are counted by the compiled check.
python3 - "$work" <<'PY'
import sys
work, size = sys.argv[1], 512 * 1024
head = '{"run_id":"r-1","stage":1,'
kinds = {
    "empty-object": '{}',
    "attempt-0": head + '"attempt":0,"status":"started","timestamp_utc":"2026-01-01T00:00:00Z"}',
    "unknown-status": head + '"attempt":1,"status":"begun","timestamp_utc":"2026-01-01T00:00:00Z"}',
    "missing-field": head + '"attempt":1,"timestamp_utc":"2026-01-01T00:00:00Z"}',
    "case-variant-key": head + '"attempt":1,"status":"started","Status":"failed","timestamp_utc":"2026-01-01T00:00:00Z"}',
}
for name, line in kinds.items():
    with open(f"{work}/short-{name}.jsonl", "w") as f:
        f.write((line + "\n") * (size // (len(line) + 1)))
with open(f"{work}/short-valid.jsonl", "w") as f:
    n, i = 0, 0
    while n < size:
        for stage, status in ((1, "started"), (1, "succeeded"), (2, "started"), (2, "succeeded")):
            l = '{"run_id":"r-%d","stage":%d,"attempt":1,"status":"%s","timestamp_utc":"2026-01-01T00:00:00Z"}\n' % (i, stage, status)
            f.write(l)
            n += len(l)
        i += 1
PY
kinds="valid empty-object attempt-0 unknown-status missing-field case-variant-key"
for k in $kinds; do : > "$work/short-$k.txt"; done
for i in $(seq "$runs"); do
  for k in $kinds; do cpu "$gl" check "$work/short-$k.jsonl" --pipeline "$pipe" --now "$now" --format json >> "$work/short-$k.txt"; done
done
valid_t=$(median < "$work/short-valid.txt")
for k in $kinds; do
  awk -v k="$k" -v t="$(median < "$work/short-$k.txt")" -v v="$valid_t" -v s="$(stat -c %s "$work/short-$k.jsonl")" -v l="$(wc -l < "$work/short-$k.jsonl")" \
    'BEGIN { printf "%-17s %7d bytes %6d lines  CPU %.3f s  %5.1fx valid (target <= 10x)\n", k, s, l, t, t / (v > 0 ? v : 0.001) }'
done
fi

if want 15; then
echo
echo "== 15. an OpenLineage log of 10,000 runs chained (run i's parent is run i-1) vs the same runs as siblings, same size (docs/openlineage.md), CPU seconds, median of $runs"
python3 bench/genol.py "$work/ol-chained.jsonl" --runs 10000 --chained
python3 bench/genol.py "$work/ol-siblings.jsonl" --runs 10000
: > "$work/ol-chained.txt"; : > "$work/ol-siblings.txt"
for i in $(seq "$runs"); do
  for k in chained siblings; do
    cpu "$gl" check --input-format openlineage "$work/ol-$k.jsonl" --now 2026-01-02T00:00:00Z --format json >> "$work/ol-$k.txt"
  done
done
awk -v c="$(median < "$work/ol-chained.txt")" -v s="$(median < "$work/ol-siblings.txt")" -v b="$(stat -c %s "$work/ol-chained.jsonl")" -v b2="$(stat -c %s "$work/ol-siblings.jsonl")" \
  'BEGIN { printf "chained %d bytes  CPU %.3f s   siblings %d bytes  CPU %.3f s   ratio %.2fx (target <= 10x)\n", b, c, b2, s, c / (s > 0 ? s : 0.001) }'
fi
