#!/usr/bin/env bash
# On the GPU machine, from a bundle made by prepare.sh: builds every program
# of every copy from all its sources, runs it, and prints one table row per
# program: program | original | this tool (same?) | OLD_TOOL (same?).
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
status=0
echo "| program | original | this tool | same | OLD_TOOL (an earlier build) | same |"
echo "|---|---|---|---|---|---|"
for dir in "$bundle"/original/*/; do
  name=$(basename "$dir")
  row="| $name"
  ref=""
  for kind in original current old; do
    d=$bundle/$kind/$name
    [[ -d $d ]] || { row+=" | - | -"; continue; }
    "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -o "$d/prog" "$d"/*.cu \
      >"$d/build.log" 2>&1 || { row+=" | build failed"; status=1; continue; }
    out=$(timeout 60 "$d/prog" 2>/dev/null | tr -d '\n')
    rc=$?
    [[ $rc -ne 0 ]] && out+=" (exit $rc)"
    if [[ $kind == original ]]; then ref=$out; row+=" | $out"; continue; fi
    same=no; [[ $out == "$ref" ]] && same=yes
    row+=" | $out | $same"
    [[ $kind == current && $same != yes ]] && status=1
  done
  echo "$row |"
done
exit $status
