#!/usr/bin/env bash
# Descriptor-array benchmark (issue 21): launch plus kernel time of a kernel
# that reads N tensor maps (N = 4, 64, 192), with the maps by reference (a
# device array, copied before every launch as users write it, or copied once
# before all launches) against by value (the same source rewritten by
# tma-modernize into one __grid_constant__ TmaDescriptorArray<N>). Each CTA
# reads map blockIdx.x % N, so the difference is where the kernel reads the
# descriptors from (global memory or the parameter space) and what the
# launch carries.
#
#   bench/descriptor-arrays.sh prepare [DIR]  where the tool is: the sources, by-value ones rewritten
#   bench/descriptor-arrays.sh run [DIR]      on an sm_90 GPU: builds with nvcc, prints the table
#   bench/descriptor-arrays.sh [DIR]          both
# DIR defaults to build/arrays-bench; RUNS (default 3): best of RUNS per figure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=all
case ${1:-} in prepare|run) mode=$1; shift ;; esac
dir=${1:-$root/build/arrays-bench}
counts=(4 64 192)

prepare() {
  local tool=${TMA_MODERNIZE:-$root/build/bin/tma-modernize}
  rm -rf "$dir" && mkdir -p "$dir/examples/common"
  cp "$root/examples/common/bench.h" "$dir/examples/common/"
  cp "$0" "$dir/descriptor-arrays.sh"
  for n in "${counts[@]}"; do
    for v in by-reference by-value; do
      mkdir -p "$dir/n$n/$v"
      cp "$root/bench/descriptor-arrays/gather.cu" "$dir/n$n/$v/gather.cu"
    done
    (cd "$dir/n$n/by-value" && "$tool" --in-root="$dir" gather.cu -- -DMAPS="$n") \
      >"$dir/n$n/tool.log" 2>&1 || true
    grep -q "1 kernel rewritten" "$dir/n$n/tool.log" ||
      { echo "prepare: N=$n was not rewritten:" >&2; cat "$dir/n$n/tool.log" >&2; exit 1; }
  done
  echo "prepare: $dir"
}

# best_us CMD...: the smallest us_per_launch of RUNS runs (fails on a mismatch).
best_us() {
  local best=""
  for _ in $(seq "${RUNS:-3}"); do
    local line us
    line=$("$@")
    [[ $line == *check=OK* ]] || { echo "run: $* printed: $line" >&2; exit 1; }
    us=${line#*us_per_launch=}; us=${us%% *}
    if [[ -z $best ]] || awk -v a="$us" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$us; fi
  done
  echo "$best"
}

run() {
  local nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  echo "| N | params (bytes) | by reference, copy before each launch (µs) | by reference, copied once (µs) | by value (µs) |"
  echo "|---|---|---|---|---|"
  for n in "${counts[@]}"; do
    for v in by-reference by-value; do
      "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -DMAPS="$n" \
        -o "$dir/n$n/$v/gather" "$dir/n$n/$v/gather.cu" -lcuda
    done
    local each once value
    each=$(best_us "$dir/n$n/by-reference/gather")
    once=$(best_us "$dir/n$n/by-reference/gather" --copy-once)
    value=$(best_us "$dir/n$n/by-value/gather")
    echo "| $n | $((n * 128 + 8)) | $each | $once | $value |"
  done
}

case $mode in
  prepare) prepare ;;
  run) run ;;
  all) prepare && run ;;
esac
