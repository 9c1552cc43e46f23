#!/usr/bin/env bash
# Writes the safe programs of the storage matrix (test/gen/storage_matrix.py),
# original and as this tool rewrites them, to a bundle for run.sh on the GPU.
#   test/gpu/storage/prepare.sh [BUNDLE]   (default build/storage-gpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
bundle=${1:-$root/build/storage-gpu}
tool=${TMA_MODERNIZE:-$root/build/bin/tma-modernize}
rm -rf "$bundle"
mkdir -p "$bundle"
# run.sh first: a cell the matrix fails still leaves the others' programs.
cp "$root/test/gpu/storage/run.sh" "$bundle/run.sh"
python3 "$root/test/gen/storage_matrix.py" --tool "$tool" --emit "$bundle/emitted" ${STORAGE_MATRIX_ARGS:-} | tail -3 || true
mv "$bundle/emitted/original" "$bundle/emitted/rewritten" "$bundle/"
rmdir "$bundle/emitted"
echo "bundle: $bundle ($(ls "$bundle/original" | wc -l) programs)"
