#!/bin/sh
# project-db.sh DIR TOOL: copies test/lit/Inputs/project (a kernel declared in
# include/kernels.cuh, defined in src/kernels.cu, which needs -I DIR/include
# and -DKERNEL_SCALE, and launched from src/main.cu) into DIR, with
# DIR/orig/ as a pristine copy and DIR/want/ as the result of an
# uninterrupted run with the right flags (given after --, no database).
set -e
dir=$1
inputs=$(dirname "$0")/../../Inputs/project
tool=$2
rm -rf "$dir"
mkdir -p "$dir/include" "$dir/src" "$dir/build"
cp "$inputs/kernels.cuh" "$dir/include/"
cp "$inputs/kernels.cu" "$inputs/main.cu" "$dir/src/"
mkdir -p "$dir/orig" && cp -r "$dir/include" "$dir/src" "$dir/orig/"
mkdir -p "$dir/want" && cp -r "$dir/include" "$dir/src" "$dir/want/"
(cd "$dir/want" && "$tool" --no-database src/kernels.cu src/main.cu -- -I"$dir/want/include" \
   -DKERNEL_SCALE=2.0f >/dev/null 2>&1)
# The project's three files must all change.
for f in include/kernels.cuh src/kernels.cu src/main.cu; do
  if cmp -s "$dir/orig/$f" "$dir/want/$f"; then
    echo "project-db.sh: $f is not rewritten" >&2
    exit 1
  fi
done
