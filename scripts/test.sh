#!/usr/bin/env bash
# Sets everything up, then runs every test (lit + FileCheck, GoogleTest, and
# the nvcc compile check of the examples before and after the rewrite)
# through ctest, ending with the runners' summary lines.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1
log=build/test.log
ctest --test-dir build --output-on-failure -V >"$log" 2>&1
status=$?
grep -E "^[0-9]+: (FAIL|UNRESOLVED|XPASS)|FAILED|Failed Tests" "$log" | head -50
echo
echo "== summary"
grep -hE "^[0-9]+: (Total Discovered Tests|  Passed|  Failed|  Unsupported)|\[  PASSED  \]|\[  FAILED  \]|gpu-compile:" "$log" | sed -E 's/^[0-9]+: //'
grep -E "tests passed|tests failed" "$log"
exit $status
