#!/usr/bin/env bash
# Installs what tma-modernize needs on Debian bookworm (only what is missing),
# then configures and builds it in build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang-22 libclang-22-dev llvm-22-dev llvm-22-tools clang-tidy-22 clang-tools-22
          libgtest-dev ninja-build cmake patch libfuzzer-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

CUDA_ROOT="${CUDA_PATH:-/usr/local/cuda}"
if [ ! -f "$CUDA_ROOT/include/cuda.h" ]; then
  echo "setup: error: the CUDA 13 toolkit is expected at $CUDA_ROOT (include/cuda.h not found)." >&2
  echo "setup: install it there, or set CUDA_PATH to its root." >&2
  exit 1
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
ninja -C build
