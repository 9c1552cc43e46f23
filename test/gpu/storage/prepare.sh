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
python3 "$root/test/gen/storage_matrix.py" --tool "$tool" --emit "$bundle" ${STORAGE_MATRIX_ARGS:-} | tail -2
cp "$root/test/gpu/storage/run.sh" "$bundle/run.sh"
echo "bundle: $bundle ($(ls "$bundle/original" | wc -l) programs)"
