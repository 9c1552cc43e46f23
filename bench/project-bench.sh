#!/usr/bin/env bash
# Project-mode benchmark (issue 4). Generates a CUDA project of 24 TUs (2 with
# by-reference descriptors, 22 without), a clang-style and an nvcc-style
# compile database, and prints, from one run:
#   - a TU with nothing to rewrite, and a TU rewritten with verification,
#     against clang++-22 -fsyntax-only of both CUDA sides of the same file;
#   - the whole project at -j2 against run-clang-tidy-22 -j 2
#     -checks='-*,modernize-use-nullptr' over the same clang-style database;
#   - peak memory (max RSS) on the largest TU against clang's.
# Usage: bench/project-bench.sh [runs]   (best of runs, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tool=$root/build/bin/tma-modernize
runs=${1:-3}
cuda=${CUDA_PATH:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
proj=$tmp/proj
mkdir -p "$proj/src" "$proj/include"

# 22 TUs without descriptors: ordinary kernels and host code, with raw 0/NULL
# pointers for modernize-use-nullptr to find.
cat >"$proj/include/common.h" <<'H'
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e_)); } } while (0)
H
for i in $(seq -w 1 22); do
  cat >"$proj/src/plain$i.cu" <<C
#include "common.h"
namespace plain$i {
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = t < n ? in[t] : 0.0f;
  __syncthreads();
  for (int k = 128; k > 0; k /= 2) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
  if (t == 0) *out = s[0];
}
float run(int n) {
  std::vector<float> h(n, 1.0f);
  float *x = 0, *y = NULL, *out = 0;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  reduce<<<1, 256>>>(y, out, n);
  float r = 0;
  CHECK_CUDA(cudaMemcpy(&r, out, sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(x); cudaFree(y); cudaFree(out);
  return r;
}
} // namespace plain$i
C
done
# 2 TUs with descriptors passed by reference.
for i in 1 2; do
  sed -e "s/\bk\b/tma_k$i/g" -e "s/int main()/int run_tma$i()/" test/lit/Inputs/simple.cu >"$proj/src/tma$i.cu"
done
cp -r "$proj" "$tmp/pristine"

srcs=("$proj"/src/*.cu)
clang_flags=(-x cuda --cuda-gpu-arch=sm_90a --cuda-path="$cuda" -std=c++17 -Wno-unknown-cuda-version
             -isystem "$cuda/include/cccl" -I"$proj/include")
mkdir -p "$tmp/db-clang" "$tmp/db-nvcc"
python3 - "$proj" "$tmp" "$cuda" <<'PY'
import json, os, sys
proj, tmp, cuda = sys.argv[1:4]
srcs = sorted(os.path.join(proj, "src", f) for f in os.listdir(os.path.join(proj, "src")))
clang = [{"directory": proj, "file": s,
          "arguments": ["clang++-22", "-x", "cuda", "--cuda-gpu-arch=sm_90a", "--cuda-path=" + cuda,
                        "-std=c++17", "-Wno-unknown-cuda-version", "-isystem", cuda + "/include/cccl",
                        "-Iinclude", "-c", s, "-o", s + ".o"]} for s in srcs]
nvcc = [{"directory": proj, "file": s,
         "command": "/usr/local/cuda/bin/nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a "
                    "-Iinclude -O2 -lineinfo -x cu -c %s -o %s.o" % (s, s)} for s in srcs]
json.dump(clang, open(os.path.join(tmp, "db-clang", "compile_commands.json"), "w"), indent=1)
json.dump(nvcc, open(os.path.join(tmp, "db-nvcc", "compile_commands.json"), "w"), indent=1)
PY

restore() { rm -rf "$proj" && cp -r "$tmp/pristine" "$proj"; }
best() { # best wall time in ms of "$@" over $runs runs (sources restored before each)
  local b=999999 t0 t1 ms
  for ((i = 0; i < runs; i++)); do
    restore
    t0=$(date +%s%N)
    "$@" >/dev/null 2>"$tmp/log" || { echo "failed ($?): $*" >&2; tail -5 "$tmp/log" >&2; exit 1; }
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000)); ((ms < b)) && b=$ms
  done
  echo "$b"
}
maxrss() { # peak RSS in MiB of "$@"
  restore
  /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || true
  echo $(($(tail -1 "$tmp/rss") / 1024))
}
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
syntax_both() { # ms of both sides of syntax-only for one file
  local d h
  d=$(best clang++-22 "${clang_flags[@]}" --cuda-device-only -fsyntax-only "$1")
  h=$(best clang++-22 "${clang_flags[@]}" --cuda-host-only -fsyntax-only "$1")
  echo $((d + h))
}

plain=$proj/src/plain01.cu
tma=$proj/src/tma1.cu
p_clang=$(syntax_both "$plain")
p_tool=$(best "$tool" -p "$tmp/db-clang" --in-root="$proj" --dry-run "$plain")
p_tool_full=$(best "$tool" -p "$tmp/db-clang" --in-root="$proj" --dry-run --no-prefilter "$plain")
t_clang=$(syntax_both "$tma")
t_tool=$(best "$tool" -p "$tmp/db-clang" --in-root="$proj" --dry-run "$tma")
j_tidy=$(best run-clang-tidy-22 -j 2 -quiet -p "$tmp/db-clang" -checks='-*,modernize-use-nullptr' "${srcs[@]}")
j_tool=$(best "$tool" -p "$tmp/db-clang" -j2 --in-root="$proj" --dry-run "${srcs[@]}")
j_tool_nvcc=$(best "$tool" -p "$tmp/db-nvcc" -j2 --in-root="$proj" --dry-run "${srcs[@]}")
j_tool_full=$(best "$tool" -p "$tmp/db-clang" -j2 --in-root="$proj" --dry-run --no-prefilter "${srcs[@]}")
m_dev=$(maxrss clang++-22 "${clang_flags[@]}" --cuda-device-only -fsyntax-only "$tma")
m_host=$(maxrss clang++-22 "${clang_flags[@]}" --cuda-host-only -fsyntax-only "$tma")
m_clang=$((m_dev > m_host ? m_dev : m_host))
m_tool=$(maxrss "$tool" -p "$tmp/db-clang" --in-root="$proj" "$tma")
restore
"$tool" -p "$tmp/db-nvcc" -j2 --in-root="$proj" --dry-run "${srcs[@]}" 2>&1 >/dev/null | grep '^tma-modernize:' || true

echo "project: 24 TUs (2 with descriptors), best of $runs runs, $(nproc) cores, $(date -u +%F)"
echo "| measurement | tma-modernize | reference | ratio | target |"
echo "|---|---|---|---|---|"
echo "| TU with nothing to rewrite (pre-filter on) | $p_tool ms | clang++-22 -fsyntax-only both sides: $p_clang ms | $(ratio "$p_tool" "$p_clang") | <= 1.25 |"
echo "| same TU, --no-prefilter (full analysis) | $p_tool_full ms | $p_clang ms | $(ratio "$p_tool_full" "$p_clang") | <= 1.25 |"
echo "| TU rewritten, verification on (--dry-run) | $t_tool ms | clang++-22 -fsyntax-only both sides: $t_clang ms | $(ratio "$t_tool" "$t_clang") | <= 2.5 |"
echo "| whole project -j2, clang database | $j_tool ms | run-clang-tidy-22 -j 2 modernize-use-nullptr: $j_tidy ms | $(ratio "$j_tool" "$j_tidy") | <= 0.5 |"
echo "| whole project -j2, nvcc database | $j_tool_nvcc ms | $j_tidy ms | $(ratio "$j_tool_nvcc" "$j_tidy") | <= 0.5 |"
echo "| whole project -j2, --no-prefilter | $j_tool_full ms | $j_tidy ms | $(ratio "$j_tool_full" "$j_tidy") | (none) |"
echo "| peak memory, rewritten TU (in place) | $m_tool MiB | clang++-22 -fsyntax-only, larger side: $m_clang MiB | $(ratio "$m_tool" "$m_clang") | <= 1.5 |"
