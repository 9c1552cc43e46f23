#!/usr/bin/env bash
# Programs of several translation units, for the GPU: each directory here is
# one program, its sources given to the tool in one run (no database). The
# programs share test/gpu/aliases/common.h (fill, report). The
# bundle holds each as written (original/), as this tool leaves it
# (current/), and, when OLD_TOOL names an earlier build, as that build left
# it (old/). Usage: prepare.sh BUNDLE [TOOL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$1
tool=${2:-$here/../../../build/bin/tma-modernize}
rm -rf "$bundle"
for kind in original current old; do
  [[ $kind == old && -z ${OLD_TOOL:-} ]] && continue
  for dir in "$here"/*/; do
    name=$(basename "$dir")
    mkdir -p "$bundle/$kind/$name"
    cp "$dir"/* "$here/../aliases/common.h" "$bundle/$kind/$name/"
    case $kind in
      current) use=$tool ;;
      old) use=$OLD_TOOL ;;
      *) continue ;;
    esac
    (cd "$bundle/$kind/$name" && "$use" --no-database *.cu >tool.log 2>&1 || true)
  done
done
cp "$here/run.sh" "$bundle/run.sh"
