#!/usr/bin/env bash
# Sets everything up, then runs tma-modernize on an example and shows the diff
# it would apply (nothing is written).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
example=examples/01-tiled-copy/main.cu
[ -f "$example" ] || example=test/lit/Inputs/simple.cu
echo
echo "== build/bin/tma-modernize --dry-run $example"
build/bin/tma-modernize --dry-run "$example"
