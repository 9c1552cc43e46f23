#!/usr/bin/env bash
# The semantic fuzzer's programs for the GPU (issue 40): prepare.sh BUNDLE
# [TOOL] [SEED] [PROGRAMS]. Generates PROGRAMS programs (default 200) of
# SEED (default 1) with test/gen/semantic/semantic.py, packed 25 to a
# translation unit, and writes each pack as written (original/), as the tool
# leaves it (rewritten/) and the model's prediction of what the original
# prints (original/*.expected); run.sh builds and runs them there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$1
tool=${2:-$here/../../../build/bin/tma-modernize}
rm -rf "$bundle"
python3 "$here/../../gen/semantic/semantic.py" --tool "$tool" --seed "${3:-1}" \
  --programs "${4:-200}" --emit "$bundle"
cp "$here/run.sh" "$bundle/run.sh"
