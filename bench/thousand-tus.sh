#!/usr/bin/env bash
# Large-project benchmark (issue 22). Generates a CUDA project of N TUs
# (default 1000; 1 % of them with by-reference descriptors, the rest ordinary
# kernels and host code), 20 group headers each included by N/20 TUs, and a
# clang-style compile database, then prints the wall time of:
#   - a full run (-j2 --dry-run) against run-clang-tidy-22 -j 2 with the
#     tool's clang-tidy check (cuda-tma-by-value, build/lib/TmaModernizeTidy.so)
#     over the same database; TIDY_SAMPLE=M runs clang-tidy on M of the TUs
#     only and scales its time by N/M (said in the output);
#   - the same work as 4 --export-facts shards (-j2 each, one after the
#     other: the slowest shard is what 4 parallel jobs would take) plus the
#     --plan-from step;
#   - with --facts-cache: the first (cold) run, an unchanged re-run, and a
#     re-run after one group header (included by one descriptor TU) is edited.
# Usage: bench/thousand-tus.sh [tus]     (env TIDY_SAMPLE, default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tool=$root/build/bin/tma-modernize
plugin=$root/build/lib/TmaModernizeTidy.so
n=${1:-1000}
sample=${TIDY_SAMPLE:-$n}
cuda=${CUDA_PATH:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
proj=$tmp/proj

python3 - "$proj" "$n" "$cuda" "$root/test/lit/Inputs/simple.cu" <<'PY'
import json, os, sys
proj, n, cuda, simple = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(proj + "/src"); os.makedirs(proj + "/include")
groups = 20
for g in range(groups):
    open("%s/include/group%02d.h" % (proj, g), "w").write(
        "#pragma once\n#include <cuda_runtime.h>\nnamespace group%02d {\n"
        "__device__ inline float scale(float x) { return %d.0f * x; }\n}\n" % (g, g + 1))
plain = """#include "group%(g)02d.h"
namespace unit%(i)04d {
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = group%(g)02d::scale(a) * x[i] + y[i];
}
float run(int n) {
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  float r = 0;
  cudaMemcpy(&r, y, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x); cudaFree(y);
  return r;
}
} // namespace unit%(i)04d
"""
tma_body = open(simple).read()
# 1 % of the TUs hold a by-reference descriptor: one in each hundred, at a
# different place in each (so that --shard=k/4 spreads them).
def has_descriptor(i):
    return i % 100 == (i // 100) % 100 + 1
srcs = []
for i in range(n):
    g = i * groups // n
    path = "%s/src/unit%04d.cu" % (proj, i)
    if has_descriptor(i):
        text = ('#include "group%02d.h"\n' % g) + tma_body.replace(" k(", " tma_k%d(" % i) \
            .replace(" k<<<", " tma_k%d<<<" % i).replace("int main()", "int run_tma%d()" % i)
    else:
        text = plain % {"g": g, "i": i}
    open(path, "w").write(text)
    srcs.append(path)
db = [{"directory": proj, "file": s,
       "arguments": ["clang++-22", "-x", "cuda", "--cuda-gpu-arch=sm_90a", "--cuda-path=" + cuda,
                     "-std=c++17", "-Wno-unknown-cuda-version", "-isystem", cuda + "/include/cccl",
                     "-Iinclude", "-c", s, "-o", s + ".o"]} for s in srcs]
json.dump(db, open(proj + "/compile_commands.json", "w"), indent=1)
open(proj + "/sources.txt", "w").write("\n".join(srcs) + "\n")
PY
mapfile -t srcs <"$proj/sources.txt"

# wall SECONDS of "$@" (output to $tmp/log).
wall() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >"$tmp/out" 2>"$tmp/log" || { echo "failed ($?): ${*:0:6} ..." >&2; tail -5 "$tmp/log" >&2; exit 1; }
  t1=$(date +%s%N)
  printf '%.2f' "$(echo "($t1 - $t0) / 1000000000" | bc -l)"
}
run=("$tool" -p "$proj" --in-root="$proj" -j2 --dry-run)

full=$(wall "${run[@]}" "${srcs[@]}")
summary=$(grep '^tma-modernize:' "$tmp/log" | tail -1)
tidy_srcs=("${srcs[@]:0:$sample}")
tidy=$(wall run-clang-tidy-22 -j 2 -quiet -p "$proj" -load "$plugin" -checks='-*,cuda-tma-by-value' "${tidy_srcs[@]}")
tidy_scaled=$(printf '%.2f' "$(echo "$tidy * $n / $sample" | bc -l)")

shard_max=0 shard_sum=0
for k in 1 2 3 4; do
  t=$(wall "$tool" -p "$proj" --in-root="$proj" -j2 --export-facts="$tmp/facts" --shard=$k/4 "${srcs[@]}")
  shard_sum=$(echo "$shard_sum + $t" | bc)
  (($(echo "$t > $shard_max" | bc))) && shard_max=$t
done
plan=$(wall "${run[@]}" --plan-from="$tmp/facts" "${srcs[@]}")
cmp <("${run[@]}" "${srcs[@]}" 2>/dev/null) <("${run[@]}" --plan-from="$tmp/facts" "${srcs[@]}" 2>/dev/null) ||
  { echo "the plan step's diff differs from one run's" >&2; exit 1; }

cold=$(wall "${run[@]}" --facts-cache="$tmp/cache" "${srcs[@]}")
warm=$(wall "${run[@]}" --facts-cache="$tmp/cache" "${srcs[@]}")
warm_counts=$(grep 'facts cache:' "$tmp/log")
echo "// edited" >>"$proj/include/group00.h" # included by unit0000..0049, unit0001 has a descriptor
touched=$(wall "${run[@]}" --facts-cache="$tmp/cache" "${srcs[@]}")
touched_counts=$(grep 'facts cache:' "$tmp/log")

ratio() { echo "$1 / $2" | bc -l | xargs printf '%.3f'; }
echo "project: $n TUs ($((  (n + 99) / 100 )) with descriptors), 20 group headers, $(nproc) cores, $(date -u +%F), commit $(git rev-parse --short HEAD)"
echo "$summary"
echo "| run | wall | against the full run |"
echo "|---|---|---|"
echo "| full run, -j2 --dry-run | $full s | 1 |"
if [ "$sample" = "$n" ]; then
  echo "| run-clang-tidy-22 -j 2, cuda-tma-by-value | $tidy s | $(ratio "$tidy" "$full") (tool / clang-tidy: $(ratio "$full" "$tidy")) |"
else
  echo "| run-clang-tidy-22 -j 2, cuda-tma-by-value, $sample TUs x $n/$sample | $tidy_scaled s ($tidy s measured) | $(ratio "$tidy_scaled" "$full") (tool / clang-tidy: $(ratio "$full" "$tidy_scaled")) |"
fi
echo "| 4 --export-facts shards (-j2 each): slowest / sum | $shard_max s / $shard_sum s | $(ratio "$shard_max" "$full") / $(ratio "$shard_sum" "$full") |"
echo "| --plan-from step | $plan s | $(ratio "$plan" "$full") |"
echo "| --facts-cache, cold | $cold s | $(ratio "$cold" "$full") |"
echo "| --facts-cache, nothing changed ($warm_counts) | $warm s | $(ratio "$warm" "$full") |"
echo "| --facts-cache, one header edited ($touched_counts) | $touched s | $(ratio "$touched" "$full") |"
