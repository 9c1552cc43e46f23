#!/usr/bin/env bash
# scripts/test.sh: sets everything up, then runs every test (lit + FileCheck,
# GoogleTest, and the nvcc compile check of the examples before and after
# the rewrite) through ctest, the same on an ASan+UBSan build, and a short
# fuzzing run, ending with the runners' summary lines and each stage's time.
#
# scripts/test.sh --quick [LIT_PATH ...]: the check for every change (about
# 5 minutes after a build): builds, runs the unit tests, the lit tests of
# LIT_PATHs (test/lit/patterns/X.cu, build/test/lit/refusals, ...; default:
# those a change touches, see quick_lit_paths) and the generated matrices'
# covering samples.
#
# TMA_FULL_MATRIX=1 runs every generated matrix whole (docs/performance.md).
set -uo pipefail
cd "$(dirname "$0")/.."
LIT=/usr/lib/llvm-22/bin/lit

# Each stage's wall time, printed at the end so that CI's log shows where
# the time went (ctest's entries are read from its own per-test times).
stage_names=() stage_secs=()
timed() {
  local name=$1 start=$SECONDS status
  shift
  "$@"
  status=$?
  stage_names+=("$name") stage_secs+=($((SECONDS - start)))
  return $status
}
print_stage_times() {
  echo
  echo "== stage times (minutes)"
  local i
  for i in "${!stage_names[@]}"; do
    awk -v n="${stage_names[$i]}" -v s="${stage_secs[$i]}" 'BEGIN { printf "%-28s %6.1f\n", n, s / 60 }'
  done
  # ctest: "1/6 Test #1: lit ......   Passed  812.34 sec", "asan: " before
  # the sanitizer build's.
  sed -nE 's/^(asan): +[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\1 \2 \3/p;
           s/^[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/plain \1 \2/p' "$log" |
    awk '{ printf "  ctest (%s) %-20s %6.1f\n", $1, $2, $3 / 60 }'
  awk -v s="$SECONDS" 'BEGIN { printf "%-28s %6.1f\n", "total", s / 60 }'
}

# The lit paths a change touches: the files changed in the work tree (or,
# when it is clean, by the last commit). A lit test or its Inputs runs its
# own directory's test or folder; a generator runs generated/; the engine,
# the front ends or anything else run the pattern and refusal tests, which
# exercise every analysis.
quick_lit_paths() {
  local changed f dir
  changed=$( { git diff --name-only HEAD; git ls-files --others --exclude-standard; } 2>/dev/null)
  [ -n "$changed" ] || changed=$(git diff --name-only HEAD~1 HEAD 2>/dev/null)
  {
    while IFS= read -r f; do
      case "$f" in
        test/lit/*/Inputs/*) dir=${f#test/lit/}; echo "build/test/lit/${dir%%/*}" ;;
        test/lit/*/*.cu | test/lit/*/*.test) [ -e "$f" ] && echo "build/${f}" ;;
        test/lit/*) echo build/test/lit/patterns ;;
        test/gen/*) ;;
        docs/* | *.md | scripts/* | .ci/* | test/snapshot/* | test/gpu/* | bench/* | examples/*) ;;
        "") ;;
        *) echo build/test/lit/patterns; echo build/test/lit/refusals ;;
      esac
    done <<<"$changed"
  } | sort -u
}

if [ "${1:-}" = --quick ]; then
  shift
  timed setup ./scripts/setup.sh || exit 1
  status=0
  timed "unit tests" build/bin/tma-unit-tests --gtest_brief=1 || status=1
  paths=("$@")
  ((${#paths[@]})) || mapfile -t paths < <(quick_lit_paths)
  # A path under test/lit/ runs from the build folder's copy of the suite;
  # the matrices' samples always run (without nvcc: --param quick=1).
  for i in "${!paths[@]}"; do
    case "${paths[$i]}" in test/lit/*) paths[$i]="build/${paths[$i]}" ;; esac
  done
  # Sorted, a folder comes before what it holds: keep only the first.
  mapfile -t paths < <(printf '%s\n' "${paths[@]}" build/test/lit/generated | sort -u |
    awk '{ for (i = 1; i <= n; i++) if (index($0, kept[i] "/") == 1) next; kept[++n] = $0; print }')
  echo "quick: lit ${paths[*]}"
  timed "lit (${#paths[@]} paths)" "$LIT" -sv --param quick=1 "${paths[@]}" || status=1
  log=/dev/null
  print_stage_times
  exit $status
fi

timed setup ./scripts/setup.sh || exit 1
log=build/test.log
# The behaviour snapshot runs on the sanitizer build (below), unless that is
# skipped.
plain_skip=(-E snapshot)
[ "${TMA_SKIP_SANITIZERS:-0}" != 1 ] || plain_skip=()
timed "ctest (plain build)" ctest --test-dir build --output-on-failure -V "${plain_skip[@]}" >"$log" 2>&1
status=$?
# The GoogleTest suite and the lit tests that reach code of their own (the
# generated matrices and most project tests stay in the plain run:
# test/lit/lit.cfg.py; TMA_SANITIZE_ALL=1 runs every one) on an
# AddressSanitizer + UndefinedBehaviorSanitizer build (TMA_SANITIZE=ON). The sharded re-run of
# the project tests stays in the plain run: it repeats the same engine code
# (the sanitizer run still runs the plan-step and facts-cache tests); so do
# the examples' nvcc compile and the package (cpack of the instrumented
# binary checks nothing the plain build's package does not). The behaviour
# snapshot runs here and not in the plain run: its one pass over every lit
# input and every example checks the outputs and, under the sanitizers, the
# tool's memory on each of them (the lit run leaves out the pattern and
# refusal tests, which it covers).
# It is built with clang-22 and also makes the libFuzzer target (TMA_FUZZ),
# so that the fuzzing run below needs no build of its own.
sanitizer_build() {
  # A build-asan/ configured with another compiler is made afresh.
  if [ -f build-asan/CMakeCache.txt ] &&
     ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-22$' build-asan/CMakeCache.txt; then
    rm -rf build-asan
  fi
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMA_SANITIZE=ON -DTMA_FUZZ=ON \
    -DCMAKE_CXX_COMPILER=clang++-22 -DBUILD_TESTING=ON >/dev/null &&
    ninja -C build-asan >/dev/null
}
if [ "${TMA_SKIP_SANITIZERS:-0}" != 1 ]; then
  timed "build (asan and fuzzer)" sanitizer_build || status=1
  timed "ctest (asan build)" ctest --test-dir build-asan --output-on-failure -V -E "gpu-compile|project-sharded|package" >build/test-asan.log 2>&1 ||
    status=1
  sed -i 's/^/asan: /' build/test-asan.log
  cat build/test-asan.log >>"$log"
fi
# A short libFuzzer run of the engine (test/fuzz/), from the sanitizer build
# (or, when that is skipped, the fuzzer's own build, build-fuzz/); a crash
# fails the run. docs/reliability.md has a longer run.
if [ "${TMA_SKIP_FUZZ:-0}" != 1 ]; then
  fuzz_build=$PWD/build-asan
  [ "${TMA_SKIP_SANITIZERS:-0}" != 1 ] || fuzz_build=$PWD/build-fuzz
  FUZZ_BUILD=$fuzz_build FUZZ_SEEDS=quick timed "fuzz (90 s)" ./test/fuzz/run.sh "${TMA_FUZZ_SECONDS:-90}" \
    >build/test-fuzz.log 2>&1 || status=1
  sed -i 's/^/fuzz: /' build/test-fuzz.log
  cat build/test-fuzz.log >>"$log"
fi
grep -E "^(asan: )?[0-9]+: (FAIL|UNRESOLVED|XPASS)|FAILED|Failed Tests" "$log" | head -50
echo
echo "== summary"
grep -hE "^(asan: )?[0-9]+: (Total Discovered Tests|  Passed|  Failed|  Unsupported)|\[  PASSED  \]|\[  FAILED  \]|gpu-compile:" "$log" | sed -E 's/^(asan: )?[0-9]+: /\1/'
grep -E "tests passed|tests failed" "$log"
grep -E "^fuzz: " "$log" | tail -4
print_stage_times
exit $status
