#!/bin/sh
# journal-project.sh DIR INPUTS: a project in DIR/work whose one run rewrites
# four files: a kernel declared in include/kernels.cuh, defined in
# src/kernels.cu, launched from src/main.cu (one edit unit), and src/a.cu.
# DIR/orig holds the originals and DIR/want the fully rewritten files.
set -e
dir=$1 inputs=$2 tma=$3
rm -rf "$dir"
mkdir -p "$dir/work/include" "$dir/work/src"
cp "$inputs/project/kernels.cuh" "$dir/work/include/"
cp "$inputs/project/kernels.cu" "$inputs/project/main.cu" "$dir/work/src/"
cp "$inputs/simple.cu" "$dir/work/src/a.cu"
cp -r "$dir/work" "$dir/orig"
cp -r "$dir/work" "$dir/want"
cd "$dir/want" && "$tma" --no-database src/kernels.cu src/main.cu src/a.cu -- -Iinclude -DKERNEL_SCALE=2.0f 2>/dev/null
