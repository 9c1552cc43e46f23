#!/usr/bin/env bash
# Sets everything up, then runs every test (lit + FileCheck, GoogleTest, and
# the nvcc compile check of the examples before and after the rewrite)
# through ctest, the same on an ASan+UBSan build, and a short fuzzing run,
# ending with the runners' summary lines.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1
log=build/test.log
ctest --test-dir build --output-on-failure -V >"$log" 2>&1
status=$?
# The same lit and GoogleTest suites on an AddressSanitizer +
# UndefinedBehaviorSanitizer build (TMA_SANITIZE=ON). The sharded re-run of
# the project tests stays in the plain run: it repeats the same engine code
# (the sanitizer run still runs the plan-step and facts-cache tests).
if [ "${TMA_SKIP_SANITIZERS:-0}" != 1 ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMA_SANITIZE=ON \
    -DBUILD_TESTING=ON >/dev/null && ninja -C build-asan >/dev/null || status=1
  ctest --test-dir build-asan --output-on-failure -V -E "gpu-compile|snapshot|project-sharded" >build/test-asan.log 2>&1 ||
    status=1
  sed -i 's/^/asan: /' build/test-asan.log
  cat build/test-asan.log >>"$log"
fi
# A short libFuzzer run of the engine (test/fuzz/): its own clang-22 build
# with ASan; a crash fails the run. docs/reliability.md has a longer run.
if [ "${TMA_SKIP_FUZZ:-0}" != 1 ]; then
  FUZZ_SEEDS=quick ./test/fuzz/run.sh "${TMA_FUZZ_SECONDS:-90}" >build/test-fuzz.log 2>&1 || status=1
  sed -i 's/^/fuzz: /' build/test-fuzz.log
  cat build/test-fuzz.log >>"$log"
fi
grep -E "^(asan: )?[0-9]+: (FAIL|UNRESOLVED|XPASS)|FAILED|Failed Tests" "$log" | head -50
echo
echo "== summary"
grep -hE "^(asan: )?[0-9]+: (Total Discovered Tests|  Passed|  Failed|  Unsupported)|\[  PASSED  \]|\[  FAILED  \]|gpu-compile:" "$log" | sed -E 's/^(asan: )?[0-9]+: /\1/'
grep -E "tests passed|tests failed" "$log"
grep -E "^fuzz: " "$log" | tail -4
exit $status
