#!/usr/bin/env bash
# Real-header benchmark (issue 22): a TU that includes what real TMA kernels
# include (bench/real-headers/gemm_collection.cu: cuda/barrier, cuda/ptx,
# cuda_bf16.h, cuda_fp8.h, cooperative_groups, cub::BlockReduce, cuda/std)
# with several by-reference kernels, rewritten in place with verification,
# against clang++-22 -fsyntax-only of its device side then its host side.
# Paired runs: each round runs the reference and the tool back to back on a
# fresh copy; the figures are the best of the rounds for each of wall time,
# CPU time (user + system) and peak memory (max RSS; for clang the larger
# side). The same for plain_collection.cu (same headers, nothing to rewrite:
# the pre-filter skips it), and that file with --no-prefilter.
# Usage: bench/real-headers.sh [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tool=$root/build/bin/tma-modernize
rounds=${1:-5}
cuda=${CUDA_PATH:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-x cuda --cuda-gpu-arch=sm_90a --cuda-path="$cuda" -std=c++17 -Wno-unknown-cuda-version
       -isystem "$cuda/include/cccl" -fsyntax-only)

# measure OUT CMD...: appends "wall_s cpu_s rss_kib" of one run to OUT.
measure() {
  local out=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/log" ||
    { echo "failed: $*" >&2; tail -5 "$tmp/log" >&2; exit 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >>"$out"
}
# clang_pair OUT FILE: device then host side, as one figure (times added,
# memory the larger).
clang_pair() {
  : >"$tmp/pair"
  measure "$tmp/pair" clang++-22 "${flags[@]}" --cuda-device-only "$2"
  measure "$tmp/pair" clang++-22 "${flags[@]}" --cuda-host-only "$2"
  awk '{ w += $1; c += $2; if ($3 > m) m = $3 } END { printf "%.2f %.2f %d\n", w, c, m }' \
    "$tmp/pair" >>"$1"
}
# best FILE: the smallest of each column.
best() {
  awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } NR == 1 || $3 < m { m = $3 }
       END { printf "%.2f %.2f %d\n", w, c, m / 1024 }' "$1"
}
# bench NAME FILE TOOL-OPTIONS...: rounds of clang pair + tool on a fresh copy.
bench() {
  local name=$1 src=$2
  shift 2
  rm -f "$tmp/$name.clang" "$tmp/$name.tool"
  for ((r = 0; r < rounds; r++)); do
    mkdir -p "$tmp/w" && cp "$src" "$tmp/w/tu.cu"
    clang_pair "$tmp/$name.clang" "$tmp/w/tu.cu"
    measure "$tmp/$name.tool" "$tool" --no-database --in-root="$tmp/w" "$@" "$tmp/w/tu.cu"
  done
  read -r cw cc cm <<<"$(best "$tmp/$name.clang")"
  read -r tw tc tm <<<"$(best "$tmp/$name.tool")"
  printf '| %s | %.2f s / %.2f s (%.2fx) | %.2f s / %.2f s (%.2fx) | %d / %d MiB (%.2fx) |\n' \
    "$name" "$tw" "$cw" "$(echo "$tw / $cw" | bc -l)" "$tc" "$cc" "$(echo "$tc / $cc" | bc -l)" \
    "$tm" "$cm" "$(echo "$tm / $cm" | bc -l)"
}

gemm=bench/real-headers/gemm_collection.cu
plain=bench/real-headers/plain_collection.cu
mkdir -p "$tmp/w" && cp "$gemm" "$tmp/w/tu.cu"
"$tool" --no-database --in-root="$tmp/w" --dry-run "$tmp/w/tu.cu" 2>&1 >/dev/null | grep '^tma-modernize:'
echo "real headers: best of $rounds paired rounds, $(nproc) cores, $(date -u +%F), commit $(git rev-parse --short HEAD)"
echo "| run | wall: tool / clang both sides | CPU | peak memory |"
echo "|---|---|---|---|"
bench "gemm_collection.cu rewritten in place, verified" "$gemm"
bench "gemm_collection.cu --dry-run, verified" "$gemm" --dry-run
bench "gemm_collection.cu --dry-run, verified, --no-header-reuse" "$gemm" --dry-run --no-header-reuse
bench "gemm_collection.cu --no-verify --dry-run" "$gemm" --no-verify --dry-run
bench "plain_collection.cu (nothing to rewrite)" "$plain"
bench "plain_collection.cu --no-prefilter" "$plain" --no-prefilter
