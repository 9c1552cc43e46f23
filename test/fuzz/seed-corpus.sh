#!/usr/bin/env bash
# seed-corpus.sh DIR [quick]: fills DIR with the fuzzer's seed inputs, the
# lit test sources (patterns, refusals, hardening) and inputs, with their
# RUN/CHECK lines blanked as %prep does (the line numbers stay). With quick,
# only six small ones that cover a rewrite, macros and four refusals (for a
# short CI run: each seed costs a few seconds before fuzzing starts).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1
mkdir -p "$out"
n=0
if [[ ${2:-} == quick ]]; then
  seeds=("$root"/test/lit/Inputs/simple.cu "$root"/test/lit/patterns/H9-macro-wrappers.cu
         "$root"/test/lit/refusals/R2-runtime-index.cu "$root"/test/lit/refusals/R7-macro.cu
         "$root"/test/lit/refusals/R9-conflict.cu "$root"/test/lit/refusals/R10-verify.cu)
else
  seeds=("$root"/test/lit/patterns/*.cu "$root"/test/lit/refusals/*.cu
         "$root"/test/lit/hardening/*.cu "$root"/test/lit/hardening/Inputs/*.cu
         "$root"/test/lit/Inputs/*.cu)
fi
for f in "${seeds[@]}"; do
  [[ -f $f ]] || continue
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  sed -E 's#// *(RUN|CHECK)[A-Za-z0-9-]*:.*#//#' "$f" >"$out/$name"
  n=$((n + 1))
done
echo "seed-corpus: $n seeds in $out"
