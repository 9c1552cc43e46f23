#!/usr/bin/env bash
# On the GPU machine, from a bundle made by prepare.sh: builds every pack,
# original and rewritten, runs each with CUDA_MODULE_LOADING=EAGER (lazy
# loading would serialise work and hide a hazard), and compares every
# launch's printed checksum: the original's with the model's prediction
# (is the model right?), the rewrite's with the original's (is the rewrite
# right?). A pack that runs past 120 s (a held stream never released) is a
# failure. Prints one row per pack and a summary line; exit 1 on any
# difference or failure. Links -lcuda (the driver API's copies).
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
export CUDA_MODULE_LOADING=EAGER
status=0 launches=0 model_right=0 rewrite_same=0
echo "| pack | launches | model right on the original | rewrite same as the original |"
echo "|---|---|---|---|"
for src in "$bundle"/original/pack-*.cu; do
  name=$(basename "$src" .cu)
  for kind in original rewritten; do
    "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lcuda -o "$bundle/$kind/$name" \
      "$bundle/$kind/$name.cu" >"$bundle/$kind/$name.build.log" 2>&1 ||
      { echo "| $name | build of $kind failed | | |"; status=1; continue 2; }
    timeout 120 "$bundle/$kind/$name" >"$bundle/$kind/$name.out" 2>&1 || status=1
  done
  n=$(wc -l <"$bundle/original/$name.expected")
  right=$(paste -d' ' "$bundle/original/$name.expected" "$bundle/original/$name.out" |
          awk '$1 == $3 && $2 == $4' | wc -l)
  same=$(paste -d' ' "$bundle/original/$name.out" "$bundle/rewritten/$name.out" |
         awk '$1 == $3 && $2 == $4' | wc -l)
  echo "| $name | $n | $right | $same |"
  launches=$((launches + n)) model_right=$((model_right + right)) rewrite_same=$((rewrite_same + same))
  ((right == n && same == n)) || status=1
done
echo "semantic-gpu: $launches launches: the model right on $model_right, the rewrite the same on $rewrite_same"
exit $status
