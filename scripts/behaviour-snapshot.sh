#!/usr/bin/env bash
# The behaviour snapshot: the tool's --report JSON, --export-fixes YAML and
# dry-run diff for every lit input and every example, so that a refactor can
# be shown to change nothing (issue 13). Usage:
#
#   scripts/behaviour-snapshot.sh [TOOL] [OUTDIR]     record into OUTDIR
#   scripts/behaviour-snapshot.sh --check [TOOL]      compare with test/snapshot
#   scripts/behaviour-snapshot.sh --update [TOOL]     rewrite test/snapshot
#
# The inputs are copied to a scratch directory first; its path is written as
# @WORK@ in what is recorded, so records compare across machines and runs.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode=record
case "${1:-}" in --check) mode=check; shift ;; --update) mode=update; shift ;; esac
tool="$(realpath "${1:-$root/build/bin/tma-modernize}")"
expected="$root/test/snapshot"
case "$mode" in
  record) out="${2:-$root/build/snapshot}" ;;
  *) out="$(mktemp -d)/snapshot" ;;
esac
[ -x "$tool" ] || { echo "behaviour-snapshot: no tool at $tool" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$work" "$out"
cp -r "$root/test/lit" "$work/lit"
cp -r "$root/examples" "$work/examples"
cuda_args=(-x cuda --cuda-gpu-arch=sm_90a --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version
           -isystem /usr/local/cuda/include/cccl -std=c++17)

# One run: NAME, then the sources (relative to $work), then '--' and the
# compiler arguments.
snap() {
  local name="$1"; shift
  local base="$out/$name"
  mkdir -p "$(dirname "$base")"
  (cd "$work" && "$tool" --dry-run --no-database --report="$base.json" \
      --export-fixes="$base.yaml" "$@" >"$base.diff" 2>/dev/null)
  echo "exit $?" >>"$base.diff"
  # Sources whose fixes are empty write no YAML: record that, not a missing file.
  [ -f "$base.yaml" ] || echo "(no fixes file)" >"$base.yaml"
  sed -i "s#$work#@WORK@#g" "$base.json" "$base.yaml" "$base.diff"
}

# Every lit input that is a CUDA source (tests and their Inputs).
while IFS= read -r f; do
  rel="${f#$work/}"
  snap "${rel%.cu}" "$rel" -- "${cuda_args[@]}" -I"$(dirname "$f")"
done < <(find "$work/lit" -name '*.cu' | LC_ALL=C sort)

# Every example: all its sources in one run, as its README runs it.
for d in $(cd "$work/examples" && ls -d [0-9]*/ | LC_ALL=C sort); do
  d="${d%/}"
  srcs=()
  while IFS= read -r f; do srcs+=("examples/$d/$f"); done < \
    <(cd "$work/examples/$d" && ls *.cu *.cpp 2>/dev/null | LC_ALL=C sort)
  snap "examples/$d" "${srcs[@]}" -- "${cuda_args[@]}" -I"$work/examples/$d" -I"$work/examples"
done

count=$(find "$out" -name '*.json' | wc -l)
case "$mode" in
  record) echo "behaviour-snapshot: $count runs recorded in $out" ;;
  update)
    rm -rf "$expected"; mkdir -p "$(dirname "$expected")"; cp -r "$out" "$expected"
    echo "behaviour-snapshot: $count runs written to test/snapshot" ;;
  check)
    if diff -r "$expected" "$out" >"$out.diff"; then
      echo "behaviour-snapshot: $count runs identical to test/snapshot"
    else
      echo "behaviour-snapshot: differs from test/snapshot:"
      head -100 "$out.diff"
      exit 1
    fi ;;
esac
