#!/usr/bin/env bash
# Times tma-modernize on one example TU against clang++-22 -fsyntax-only of
# both CUDA sides of the same file (best of N runs each), and prints ratios.
# Usage: bench/tu-time.sh [file.cu] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-examples/01-tiled-copy/main.cu}
runs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The example's directory, with examples/common beside it as in the tree.
mkdir -p "$tmp/ex" && cp -r "$(dirname "$src")/." "$tmp/ex/"
[ -d examples/common ] && cp -r examples/common "$tmp/common"
tu="$tmp/ex/tu.cu"
cp "$src" "$tu"
best() { # best wall time in ms of "$@" over $runs runs
  local b=999999 t0 t1 ms
  for ((i = 0; i < runs; i++)); do
    cp "$src" "$tu"
    t0=$(date +%s%N); "$@" >/dev/null 2>"$tmp/log" || { echo "failed: $*" >&2; cat "$tmp/log" >&2; exit 1; }
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000)); ((ms < b)) && b=$ms
  done
  echo "$b"
}
flags=(-x cuda --cuda-gpu-arch=sm_90a --cuda-path=/usr/local/cuda -std=c++17 -Wno-unknown-cuda-version -isystem /usr/local/cuda/include/cccl -fsyntax-only)
dev=$(best clang++-22 "${flags[@]}" --cuda-device-only "$tu")
host=$(best clang++-22 "${flags[@]}" --cuda-host-only "$tu")
both=$((dev + host))
analyse=$(best build/bin/tma-modernize --no-database --in-root="$tmp" --no-verify --dry-run "$tu")
verify=$(best build/bin/tma-modernize --no-database --in-root="$tmp" --dry-run "$tu")
inplace=$(best build/bin/tma-modernize --no-database --in-root="$tmp" "$tu")
cp "$src" "$tu"
build/bin/tma-modernize --no-database --in-root="$tmp" --dry-run "$tu" 2>&1 >/dev/null | tail -1
echo "file: $src (best of $runs, $(nproc) cores)"
echo "clang++-22 -fsyntax-only: device ${dev} ms + host ${host} ms = ${both} ms"
printf 'tma-modernize --no-verify --dry-run: %d ms (%.2fx the two syntax-only runs)\n' "$analyse" "$(echo "$analyse / $both" | bc -l)"
printf 'tma-modernize --dry-run (verify):    %d ms (%.2fx)\n' "$verify" "$(echo "$verify / $both" | bc -l)"
printf 'tma-modernize in place (verify):     %d ms (%.2fx)\n' "$inplace" "$(echo "$inplace / $both" | bc -l)"
