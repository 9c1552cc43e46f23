#!/usr/bin/env bash
# On the GPU machine, from a bundle made by prepare.sh: builds and runs every
# program of every copy, prints one table row per program:
#   program | original | current (same?) | old (same?)
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
status=0
echo "| program | original | this tool | same | OLD_TOOL (an earlier build) | same |"
echo "|---|---|---|---|---|---|"
for src in "$bundle"/original/via-*.cu; do
  name=$(basename "$src" .cu)
  row="| $name"
  ref=""
  for kind in original current old; do
    [[ -d $bundle/$kind ]] || { row+=" | - | -"; continue; }
    "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -o "$bundle/$kind/$name" \
      "$bundle/$kind/$name.cu" >"$bundle/$kind/$name.build.log" 2>&1 || { row+=" | build failed"; status=1; continue; }
    out=$("$bundle/$kind/$name" 2>&1 | tr -d '\n')
    if [[ $kind == original ]]; then ref=$out; row+=" | $out"; continue; fi
    same=no; [[ $out == "$ref" ]] && same=yes
    row+=" | $out | $same"
    [[ $kind == current && $same != yes ]] && status=1
  done
  echo "$row |"
done
exit $status
