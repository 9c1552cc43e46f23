#!/usr/bin/env bash
# The alias programs of issue 19 and the graph replays, for the GPU: each as
# written (original/), as this tool leaves it (current/: retargeted by the
# storage rule, rewritten, or refused), and, when OLD_TOOL names an earlier
# build (before the object proof, or before the graph rule), as that build
# rewrote it (old/: the wrong rewrites it made). Usage: prepare.sh BUNDLE [TOOL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$1
tool=${2:-$here/../../../build/bin/tma-modernize}
rm -rf "$bundle"
mkdir -p "$bundle"
for kind in original current old; do
  [[ $kind == old && -z ${OLD_TOOL:-} ]] && continue
  mkdir -p "$bundle/$kind"
  cp "$here"/*.cu "$here"/common.h "$bundle/$kind/"
  case $kind in
    current) use=$tool ;;
    old) use=$OLD_TOOL ;;
    *) continue ;;
  esac
  # Each program is a whole program of its own: one run each.
  for f in "$bundle/$kind"/via-*.cu; do
    (cd "$bundle/$kind" && "$use" --no-database "./$(basename "$f")" >>tool.log 2>&1 || true)
  done
done
cp "$here/run.sh" "$bundle/run.sh"
