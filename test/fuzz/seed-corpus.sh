#!/usr/bin/env bash
# seed-corpus.sh DIR: fills DIR with the fuzzer's seed inputs, the lit test
# sources (patterns, refusals, hardening) and inputs, with their RUN/CHECK
# lines blanked as %prep does (the line numbers stay).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1
mkdir -p "$out"
n=0
for f in "$root"/test/lit/patterns/*.cu "$root"/test/lit/refusals/*.cu \
         "$root"/test/lit/hardening/*.cu "$root"/test/lit/hardening/Inputs/*.cu \
         "$root"/test/lit/Inputs/*.cu; do
  [[ -f $f ]] || continue
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  sed -E 's#// *(RUN|CHECK)[A-Za-z0-9-]*:.*#//#' "$f" >"$out/$name"
  n=$((n + 1))
done
echo "seed-corpus: $n seeds in $out"
