#!/usr/bin/env bash
# On the GPU machine, from a bundle made by prepare.sh: builds every pack,
# original and rewritten, runs each with CUDA_MODULE_LOADING=EAGER (lazy
# loading would serialise work and hide a hazard), and compares every
# launch's printed checksum with the model's prediction: on the original
# (is the model right?) and on the rewrite (is the model right about the
# rewrite: the same as the original where the oracle calls it correct, the
# passed value where it calls it wrong?). Also counts the launches whose
# rewrite prints what the original does. A pack that runs past 120 s (a
# held stream never released) is a failure. Prints one row per pack and a
# summary line; exit 1 on any wrong prediction or failure. Links -lcuda
# (the driver API's copies).
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
export CUDA_MODULE_LOADING=EAGER
status=0 launches=0 right_original=0 right_rewrite=0 same=0
# Lines of $1 and $2 that agree (`slot checksum` each).
agree() { paste -d' ' "$1" "$2" | awk '$1 == $3 && $2 == $4' | wc -l; }
echo "| pack | launches | model right on the original | model right on the rewrite | rewrite same as the original |"
echo "|---|---|---|---|---|"
# Builds run side by side (one nvcc per pack and kind); the programs run
# one at a time, so that no other process shares the GPU with a held stream.
build() {
  "$nvcc" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lcuda -o "$1/$2" \
    "$1/$2.cu" >"$1/$2.build.log" 2>&1 && touch "$1/$2.built"
}
parallel=${JOBS:-$(nproc)}
for src in "$bundle"/original/pack-*.cu; do
  name=$(basename "$src" .cu)
  for kind in original rewritten; do
    while (($(jobs -rp | wc -l) >= parallel)); do wait -n; done
    build "$bundle/$kind" "$name" &
  done
done
wait
for src in "$bundle"/original/pack-*.cu; do
  name=$(basename "$src" .cu)
  for kind in original rewritten; do
    [[ -e "$bundle/$kind/$name.built" ]] ||
      { echo "| $name | build of $kind failed | | | |"; status=1; continue 2; }
    timeout 120 "$bundle/$kind/$name" >"$bundle/$kind/$name.out" 2>&1 || status=1
  done
  n=$(wc -l <"$bundle/original/$name.expected")
  ro=$(agree "$bundle/original/$name.expected" "$bundle/original/$name.out")
  rr=$(agree "$bundle/rewritten/$name.expected" "$bundle/rewritten/$name.out")
  sm=$(agree "$bundle/original/$name.out" "$bundle/rewritten/$name.out")
  echo "| $name | $n | $ro | $rr | $sm |"
  launches=$((launches + n)) right_original=$((right_original + ro))
  right_rewrite=$((right_rewrite + rr)) same=$((same + sm))
  ((ro == n && rr == n)) || status=1
done
echo "semantic-gpu: $launches launches: the model right on $right_original originals and $right_rewrite rewrites; $same rewrites print what the original does"
exit $status
