#!/usr/bin/env bash
# The semantic fuzzer's programs for the GPU (issue 40): prepare.sh BUNDLE
# [TOOL] [SEED] [PROGRAMS]. Generates PROGRAMS programs (default 200) of
# SEED (default 1) with test/gen/semantic/semantic.py, packed 25 to a
# translation unit, and writes each pack as written (original/) and as the
# tool leaves it (rewritten/), each with the model's prediction of what it
# prints (*.expected); run.sh builds and runs them there. A disagreement
# of the tool with the model, listed or not, is printed and still bundled:
# the GPU run checks the model on both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$1
tool=${2:-$here/../../../build/bin/tma-modernize}
rm -rf "$bundle"
python3 "$here/../../gen/semantic/semantic.py" --tool "$tool" --seed "${3:-1}" \
  --programs "${4:-200}" --known "$here/../../gen/semantic/known-failures.txt" \
  --known "$here/../../gen/semantic/over-careful.txt" \
  --emit "$bundle" | tail -1 || true
[[ -d $bundle/original ]] || { echo "prepare: no packs written" >&2; exit 1; }
cp "$here/run.sh" "$bundle/run.sh"
echo "prepare: $(ls "$bundle"/original/*.cu | wc -l) packs in $bundle; run $bundle/run.sh on the GPU machine"
