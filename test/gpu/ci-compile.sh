#!/usr/bin/env bash
# CI check of the GPU examples on a machine without a GPU: runs prepare.sh,
# then compiles and links (does not run) the original and the rewritten copy of
# every example with nvcc for sm_90a, builds the CMake example through CMake as
# well when cmake is available, and checks that every example whose name says
# "refused" is left byte-identical by the tool.
#
# Environment: NVCC (default /usr/local/cuda/bin/nvcc, else nvcc on PATH),
# CI_CMAKE=0 to skip the CMake builds, JOBS (parallel builds, default nproc);
# prepare.sh's variables (TMA_MODERNIZE, GPU_BUNDLE, ...) pass through.
# Exit status: 0 when all compiled and the refused examples are unchanged.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bundle=${GPU_BUNDLE:-$root/build/gpu}
export GPU_BUNDLE=$bundle
cibuild=${GPU_CI_BUILD:-$root/build/gpu-ci}  # outside the bundle, which travels to the GPU
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[[ -x $nvcc ]] || nvcc=$(command -v nvcc || true)
if [[ -z $nvcc ]]; then
  echo "gpu-compile: no nvcc (set NVCC)" >&2
  exit 1
fi
flags=(-std=c++17 "-gencode=arch=compute_90a,code=sm_90a")
start=$SECONDS

"$root/test/gpu/prepare.sh" || { echo "gpu-compile: prepare.sh failed" >&2; exit 1; }
rm -rf "$cibuild"

examples=()
for dir in "$bundle"/[0-9][0-9]-*/; do
  examples+=("$(basename "$dir")")
done

# compile NAME VARIANT: nvcc on the example's sources (and CMake if it has a
# CMakeLists.txt); outputs go to build/gpu-ci/NAME/VARIANT.
compile() {
  local src=$bundle/$1/$2 dst=$cibuild/$1/$2
  rm -rf "$dst"
  mkdir -p "$dst"
  local sources=()
  local f
  for f in "$src"/*.cu "$src"/*.cpp; do [[ -e $f ]] && sources+=("$f"); done
  "$nvcc" "${flags[@]}" -I"$src" -o "$dst/prog" "${sources[@]}" -lcuda >"$dst/build.log" 2>&1 ||
    return 1
  if [[ -f $src/CMakeLists.txt && ${CI_CMAKE:-1} != 0 ]] && command -v cmake >/dev/null; then
    { cmake -S "$src" -B "$dst/cmake" -DCMAKE_CUDA_COMPILER="$nvcc" &&
        cmake --build "$dst/cmake"; } >>"$dst/build.log" 2>&1 || return 1
  fi
  return 0
}

for name in "${examples[@]}"; do
  for variant in original rewritten; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
    ( compile "$name" "$variant"; echo $? >"$cibuild/$name/$variant.rc" ) &
  done
done
wait

failed=0
both=0
for name in "${examples[@]}"; do
  ok=1
  for variant in original rewritten; do
    if [[ $(cat "$cibuild/$name/$variant.rc") != 0 ]]; then
      ok=0
      echo "gpu-compile: FAILED $name/$variant:" >&2
      tail -20 "$cibuild/$name/$variant/build.log" | sed 's/^/    /' >&2
    fi
  done
  if (( ok )); then both=$((both + 1)); else failed=1; fi
done

# The refused examples: every file of the rewritten copy must equal the original.
unchanged=yes
refused=0
for name in "${examples[@]}"; do
  [[ $name == *refused* ]] || continue
  refused=$((refused + 1))
  orig=$bundle/$name/original
  rewr=$bundle/$name/rewritten
  if [[ $(cd "$orig" && find . -type f | sort) != $(cd "$rewr" && find . -type f | sort) ]]; then
    echo "gpu-compile: $name: the rewritten copy has different files" >&2
    unchanged=no
    continue
  fi
  while IFS= read -r f; do
    if ! cmp -s "$orig/$f" "$rewr/$f"; then
      echo "gpu-compile: $name: ${f#./} was changed by the tool, which must refuse it:" >&2
      diff -u "$orig/${f#./}" "$rewr/${f#./}" | head -40 | sed 's/^/    /' >&2
      unchanged=no
    fi
  done < <(cd "$orig" && find . -type f | sort)
done
(( refused > 0 )) || unchanged="no (no refused example found)"

echo "gpu-compile: took $((SECONDS - start)) s (tool and nvcc, $jobs jobs)"
echo "gpu-compile: ${#examples[@]} examples, $both compiled before+after, refused-example unchanged: $unchanged"
[[ $failed == 0 && $both == "${#examples[@]}" && $unchanged == yes ]]
