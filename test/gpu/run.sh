#!/usr/bin/env bash
# Run-after-rewrite on the GPU. Runs from the bundle made by test/gpu/prepare.sh
# (build/gpu/, where this script is copied to run.sh) on a machine with an
# sm_90 GPU, nvcc and the driver; needs only bash, awk, sed, diff and cmp.
#
# For every example it builds the original and the rewritten copy with
#   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a ... -lcuda
# (the CMake example through CMake when cmake is there, else nvcc on its
# sources), runs both, compares their checksum lines exactly, runs --time and
# --graph for both, and writes a markdown table to $OUT/gpu-results.md (or
# ./gpu-results.md without $OUT) and every log to gpu-run.log beside it.
#
# Environment: NVCC (compiler; default nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# RUN_TIMEOUT_S (per program run, default 300), JOBS (parallel builds).
# Exit status: 0 when everything built and ran and every example gives the same
# output before and after the rewrite; 1 otherwise (the table is written anyway).
set -uo pipefail

bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${OUT:-$PWD}
mkdir -p "$out_dir"
results=$out_dir/gpu-results.md
runlog=$out_dir/gpu-run.log
work=$(mktemp -d "${TMPDIR:-/tmp}/tma-gpu.XXXXXX")
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
run_timeout=${RUN_TIMEOUT_S:-300}
: >"$runlog"

nvcc=${NVCC:-$(command -v nvcc || true)}
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "run.sh: no nvcc (set NVCC)" | tee -a "$runlog" >&2
  exit 1
fi
flags=(-std=c++17 -O2 "-gencode=arch=compute_90a,code=sm_90a")
timeout_cmd=()
command -v timeout >/dev/null && timeout_cmd=(timeout "$run_timeout")

examples=()
for dir in "$bundle"/[0-9][0-9]-*/; do
  [[ -d $dir/original && -d $dir/rewritten ]] && examples+=("$(basename "$dir")")
done
if (( ${#examples[@]} == 0 )); then
  echo "run.sh: no examples in $bundle (run test/gpu/prepare.sh first)" | tee -a "$runlog" >&2
  exit 1
fi

# Appends a file to the combined log under a header.
log_file() {
  { echo "===== $1"; cat "$2" 2>/dev/null; echo; } >>"$runlog"
}

# build NAME VARIANT: builds $work/NAME/VARIANT/prog; records how in .../how.
build() {
  local src=$bundle/$1/$2 dst=$work/$1/$2
  mkdir -p "$dst"
  if [[ -f $src/CMakeLists.txt ]] && command -v cmake >/dev/null; then
    local target
    target=$(sed -n 's/^ *add_executable( *\([A-Za-z0-9_.-]*\).*/\1/p' "$src/CMakeLists.txt" | head -1)
    if cmake -S "$src" -B "$dst/cmake" -DCMAKE_CUDA_COMPILER="$nvcc" \
         -DCMAKE_BUILD_TYPE=Release >"$dst/build.log" 2>&1 &&
       cmake --build "$dst/cmake" -j 4 >>"$dst/build.log" 2>&1 &&
       cp "$dst/cmake/$target" "$dst/prog" 2>>"$dst/build.log"; then
      echo cmake >"$dst/how"
      return 0
    fi
    echo "--- cmake build failed; falling back to nvcc" >>"$dst/build.log"
  fi
  local sources=()
  local f
  for f in "$src"/*.cu "$src"/*.cpp; do [[ -e $f ]] && sources+=("$f"); done
  echo nvcc >"$dst/how"
  "$nvcc" "${flags[@]}" -I"$src" -o "$dst/prog" "${sources[@]}" -lcuda >>"$dst/build.log" 2>&1
}

echo "run.sh: building ${#examples[@]} examples x 2 with $nvcc" >&2
for name in "${examples[@]}"; do
  for variant in original rewritten; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
    ( build "$name" "$variant"; echo $? >"$work/$name/$variant/build.rc" ) &
  done
done
wait

# Runs are sequential: the timings must not overlap.
run_prog() {  # run_prog NAME VARIANT TAG ARGS...
  local dst=$work/$1/$2 tag=$3
  shift 3
  "${timeout_cmd[@]}" "$dst/prog" "$@" >"$dst/$tag.out" 2>&1
  echo $? >"$dst/$tag.rc"
}
for name in "${examples[@]}"; do
  for variant in original rewritten; do
    dst=$work/$name/$variant
    log_file "$name/$variant build ($(cat "$dst/how" 2>/dev/null), exit $(cat "$dst/build.rc"))" "$dst/build.log"
    [[ $(cat "$dst/build.rc") == 0 ]] || continue
    echo "run.sh: running $name/$variant" >&2
    run_prog "$name" "$variant" run
    run_prog "$name" "$variant" run10 --launches 10
    run_prog "$name" "$variant" time --time
    run_prog "$name" "$variant" graph --graph
    for tag in run run10 time graph; do
      log_file "$name/$variant --$tag (exit $(cat "$dst/$tag.rc"))" "$dst/$tag.out"
    done
  done
done

# Field extraction from the programs' output.
val() { sed -n "s/.*$2=\([0-9.]*\).*/\1/p" "$1" 2>/dev/null | head -1; }
outlines() { grep -E '^(checksum|check):' "$1" 2>/dev/null; }
cell() { [[ -n $1 ]] && echo "$1" || echo "—"; }
ran() { [[ $(cat "$1.rc" 2>/dev/null) == 0 ]]; }  # ran PREFIX: exit status 0

graph_cell() {  # graph_cell DIR -> "replay µs<TAB>memcpy node"
  local g=$1/graph
  if [[ ! -f $g.out ]]; then
    printf 'not run\t—'
  elif grep -q '^graph: capture failed' "$g.out"; then
    printf 'capture failed\tn/a (%s)' "$(sed -n 's/^graph: capture failed (\(.*\))/\1/p' "$g.out")"
  elif ! ran "$g"; then
    printf 'failed (exit %s)\tn/a: %s' "$(cat "$g.rc")" \
      "$(grep -m1 -v '^graph:' "$g.out" | sed 's/|/\\|/g' | cut -c1-100)"
  else
    local n
    n=$(val "$g.out" memcpy_nodes)
    printf '%s\t%s' "$(cell "$(val "$g.out" replay_us)")" "$([[ $n == 0 ]] && echo no || echo "yes ($n)")"
  fi
}

status=0
rows=()
for name in "${examples[@]}"; do
  o=$work/$name/original
  r=$work/$name/rewritten
  decision=$(cat "$bundle/$name/decision" 2>/dev/null)
  if [[ -z $decision ]]; then  # bundle made by hand: decide from the sources
    if diff -rq "$bundle/$name/original" "$bundle/$name/rewritten" >/dev/null; then
      decision=unchanged
    else
      decision=rewritten
    fi
  fi
  codes=$(cat "$bundle/$name/codes" 2>/dev/null)
  [[ -n $codes ]] && decision="$decision ($codes)"

  same=no
  if [[ $(cat "$o/build.rc") != 0 || $(cat "$r/build.rc") != 0 ]]; then
    same="build failed:"
    [[ $(cat "$o/build.rc") == 0 ]] || same+=" original"
    [[ $(cat "$r/build.rc") == 0 ]] || same+=" rewritten"
    status=1
  elif ! ran "$o/run" || ! ran "$r/run"; then
    same="run failed (exit $(cat "$o/run.rc") / $(cat "$r/run.rc"))"
    status=1
  elif [[ -n $(outlines "$o/run.out") && "$(outlines "$o/run.out")" == "$(outlines "$r/run.out")" &&
          "$(outlines "$o/run10.out")" == "$(outlines "$r/run10.out")" &&
          "$(outlines "$o/run.out")" == "$(outlines "$o/run10.out")" ]]; then
    same=yes
  else
    status=1
  fi
  check="$(cell "$(sed -n 's/^check: //p' "$o/run.out" 2>/dev/null)") / $(cell "$(sed -n 's/^check: //p' "$r/run.out" 2>/dev/null)")"
  sum="$(cell "$(sed -n 's/^checksum: //p' "$o/run.out" 2>/dev/null)") / $(cell "$(sed -n 's/^checksum: //p' "$r/run.out" 2>/dev/null)")"
  og=$(graph_cell "$o")
  rg=$(graph_cell "$r")
  rows+=("| $name | $decision | $same | $check | $sum | $(cell "$(val "$o/time.out" launch_us)") | $(cell "$(val "$r/time.out" launch_us)") | $(cell "$(val "$o/time.out" floor_us)") | ${og%%$'\t'*} | ${rg%%$'\t'*} | ${og#*$'\t'} | ${rg#*$'\t'} |")
done

{
  echo "# tma-modernize: run after rewrite"
  echo
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown) (name, driver)"
  echo "- nvcc: $("$nvcc" --version | tail -1)"
  echo "- cmake: $(cmake --version 2>/dev/null | head -1 || echo 'not found (nvcc used for CMake projects)')"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  sed -n 's/^\(made\|tool\): */- bundle \1: /p' "$bundle/BUNDLE.txt" 2>/dev/null
  echo "- flags: ${flags[*]} ... -lcuda; --time: mean of 2000 launches after 100 warm-up (CUDA events); --graph: one iteration captured, mean of 2000 replays"
  echo
  echo "| Example | Tool decision | Same output | Check orig / rewr | Checksum orig / rewr | µs/launch original | µs/launch rewritten | µs/launch floor (empty kernel) | Graph µs/replay original | Graph µs/replay rewritten | Memcpy node in graph original | Memcpy node in graph rewritten |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Same output: the checksum and check lines agree exactly between original and rewritten, for one launch and for --launches 10."
  echo
  echo "## Tool output"
  for name in "${examples[@]}"; do
    echo
    echo "### $name (tool exit $(cat "$bundle/$name/tool.rc" 2>/dev/null || echo '?'))"
    echo
    echo '```'
    cat "$bundle/$name/tool.log" 2>/dev/null
    echo '```'
  done
  failures=()
  for name in "${examples[@]}"; do
    for variant in original rewritten; do
      d=$work/$name/$variant
      if [[ $(cat "$d/build.rc") != 0 ]]; then
        failures+=("$name/$variant build" "$(tail -15 "$d/build.log")")
        continue
      fi
      for tag in run run10 time graph; do
        ran "$d/$tag" || status=1
        ran "$d/$tag" || failures+=("$name/$variant --$tag (exit $(cat "$d/$tag.rc"))" "$(tail -15 "$d/$tag.out")")
      done
    done
  done
  if (( ${#failures[@]} > 0 )); then
    echo
    echo "## Failures"
    for ((i = 0; i < ${#failures[@]}; i += 2)); do
      echo
      echo "### ${failures[i]}"
      echo
      echo '```'
      echo "${failures[i + 1]}"
      echo '```'
    done
  fi
} >"$results"

echo "run.sh: wrote $results and $runlog" >&2
rm -rf "$work"
exit $status
