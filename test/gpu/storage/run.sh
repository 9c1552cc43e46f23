#!/usr/bin/env bash
# On the GPU machine, from a bundle made by prepare.sh: builds the original
# and the rewritten copy of every program, runs both, and compares what they
# print on stdout (the checksum of the descriptor each launch read; the
# logged addresses go to stderr). One table row per program, then
#   storage-gpu: S/N programs identical
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
build() {
  "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -o "${1%.cu}" "$1" >"${1%.cu}.build.log" 2>&1
}
export -f build
export nvcc
ls "$bundle"/original/*.cu "$bundle"/rewritten/*.cu | xargs -P "${JOBS:-16}" -I{} bash -c 'build {}'
same=0 total=0 status=0
echo "| program | original | rewritten | same |"
echo "|---|---|---|---|"
for src in "$bundle"/original/*.cu; do
  name=$(basename "$src" .cu)
  total=$((total + 1))
  a=$("$bundle/original/$name" 2>/dev/null || echo "run failed")
  b=$("$bundle/rewritten/$name" 2>/dev/null || echo "run failed")
  ok=no
  if [[ $a == "$b" && $a != "run failed" && -n $a ]]; then ok=yes; same=$((same + 1)); else status=1; fi
  echo "| $name | $a | $b | $ok |"
done
echo "storage-gpu: $same/$total programs identical"
exit $status
