#!/usr/bin/env bash
# run.sh [SECONDS]: builds the fuzzer if needed (build-fuzz/, clang-22 with
# libFuzzer and AddressSanitizer) and runs it for SECONDS (default 60) on the
# seed corpus (the lit inputs), with the dictionary cuda.dict. Prints the
# executions, the time, the crashes, timeouts and out-of-memory inputs;
# exit status 1 when it found a crash (a sanitizer report, an abort from a
# failed check in fuzz_engine.cpp, a signal), 2 when the build fails.
#
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (ninja -j, default
# 2), FUZZ_SEEDS=quick (six small seeds instead of all 38: each seed costs a
# few seconds before fuzzing starts, so use it for runs of a few minutes),
# FUZZ_CORPUS (the corpus directory, which grows; default
# FUZZ_BUILD/corpus), FUZZ_ARGS (more libFuzzer options). Crashing inputs
# are written to FUZZ_BUILD/artifacts/.
# Reproduce one with: FUZZ_BUILD/bin/fuzz_engine -detect_leaks=0 <file>
set -uo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds > 0)) ||
  { echo "run.sh: SECONDS must be a positive number" >&2; exit 2; }

if [[ ! -f $build/build.ninja ]]; then
  mkdir -p "$build"
  CC=clang-22 CXX=clang++-22 cmake -S "$root/test/fuzz" -B "$build" -G Ninja \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 2; }
fi
ninja -C "$build" -j "${FUZZ_JOBS:-2}" fuzz_engine >"$build/ninja.log" 2>&1 ||
  { tail -50 "$build/ninja.log" >&2; exit 2; }

rm -rf "$build/seeds"
"$root/test/fuzz/seed-corpus.sh" "$build/seeds" "${FUZZ_SEEDS:-all}" >/dev/null
corpus_dir=${FUZZ_CORPUS:-$build/corpus}
mkdir -p "$corpus_dir" "$build/artifacts"
count() { find "$build/artifacts" -type f -name "$1-*" | wc -l; }
c0=$(count crash) t0=$(count timeout) o0=$(count oom) s0=$(count slow-unit)
log=$build/fuzz.log
start=$SECONDS
# Fork mode (one job at a time): a crash, timeout or out-of-memory input is
# saved and the run goes on, so a long run reports all it finds.
# -timeout: one input (two runs, four to six parses under ASan) takes from
# under a second to ~30 s on a loaded machine for the heaviest seed (which
# includes <cuda/barrier>); libFuzzer also saves inputs over 10 s as
# slow-unit-*, which are not failures. -detect_leaks=0: LLVM keeps some
# allocations until exit on purpose.
"$build/bin/fuzz_engine" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 -detect_leaks=0 \
  -dict="$root/test/fuzz/cuda.dict" -artifact_prefix="$build/artifacts/" ${FUZZ_ARGS:-} \
  "$corpus_dir" "$build/seeds" >"$log" 2>&1
status=$?
elapsed=$((SECONDS - start))
crashes=$(($(count crash) - c0)) timeouts=$(($(count timeout) - t0)) ooms=$(($(count oom) - o0))
slow=$(($(count slow-unit) - s0))
last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
cov=$(grep -oE 'cov: [0-9]+' <<<"$last")
corpus=$(find "$corpus_dir" -type f | wc -l)
echo "fuzz: executions ${execs:-0}, time ${elapsed} s, crashes $crashes, timeouts $timeouts," \
     "out of memory $ooms, slow inputs $slow, ${cov:-cov: ?}, corpus $corpus inputs (log: $log)"
if ((crashes)); then
  find "$build/artifacts" -type f -name 'crash-*' -newer "$build/seeds" | sed 's/^/fuzz: crash: /'
  grep -E "^==[0-9]+==ERROR|fuzz_engine: FAILED|^SUMMARY" "$log" | sort | uniq -c | head -20
  exit 1
fi
((status == 0)) || { tail -20 "$log"; exit 1; }
exit 0
