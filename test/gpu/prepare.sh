#!/usr/bin/env bash
# Prepares the run-after-rewrite bundle for the GPU machine (runs on a machine
# without a GPU; needs the built tool).
#
# For every examples/NN-name/ it makes
#   build/gpu/NN-name/original/    a copy of the example
#   build/gpu/NN-name/rewritten/   a copy rewritten in place by tma-modernize
#   build/gpu/NN-name/tool.log     what the tool printed (its exit status is in tool.rc)
#   build/gpu/NN-name/rewrite.diff diff -ru original rewritten
#   build/gpu/NN-name/decision     rewritten | refused | unchanged (from the diff)
#   build/gpu/NN-name/codes        the diagnostic codes the tool printed (tma-NNN ...)
# and copies test/gpu/run.sh to build/gpu/run.sh: the directory is self-contained.
# The tool may refuse an example or fail to parse it (exit 2): that is recorded,
# not an error; any other non-zero exit of the tool (a crash) makes this fail.
#
# Environment: TMA_MODERNIZE (tool binary, default build/bin/tma-modernize),
# GPU_BUNDLE (output directory, default build/gpu), TOOL_ARGS (extra compiler
# arguments given to the tool after '--'), TOOL_WAIT_S (how long to wait for a
# missing tool binary, default 120), JOBS (parallel tool runs, default nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=${TMA_MODERNIZE:-$root/build/bin/tma-modernize}
bundle=${GPU_BUNDLE:-$root/build/gpu}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
read -r -a tool_args <<<"${TOOL_ARGS:-}"

# The tool may be in the middle of a rebuild: give it a little time.
waited=0
until [[ -x $tool ]]; do
  if (( waited >= ${TOOL_WAIT_S:-120} )); then
    echo "prepare: no tool binary at $tool" >&2
    exit 1
  fi
  echo "prepare: waiting for $tool ..." >&2
  sleep 10
  waited=$((waited + 10))
done

examples=()
for dir in "$root"/examples/[0-9][0-9]-*/; do
  examples+=("$(basename "$dir")")
done
if (( ${#examples[@]} == 0 )); then
  echo "prepare: no examples under $root/examples" >&2
  exit 1
fi

rm -rf "$bundle"
mkdir -p "$bundle"

# Rewrites one example's copy and records what happened.
prepare_one() {
  local name=$1 work="$bundle/$1"
  mkdir -p "$work"
  cp -R "$root/examples/$name" "$work/original"
  cp -R "$root/examples/$name" "$work/rewritten"
  # The shared timing/checksum helper, at the same relative place (../common).
  cp -R "$root/examples/common" "$work/common"

  local sources=()
  local f
  for f in "$work/rewritten"/*.cu "$work/rewritten"/*.cpp; do
    [[ -e $f ]] && sources+=("$(basename "$f")")
  done

  # 126/127: the binary is being relinked right now; try again a little later.
  local rc
  for _ in 1 2 3 4; do
    rc=0
    (cd "$work/rewritten" && "$tool" "${sources[@]}" -- "${tool_args[@]}") \
      >"$work/tool.log" 2>&1 || rc=$?
    ((rc == 126 || rc == 127)) || break
    sleep 15
    rm -rf "$work/rewritten"
    cp -R "$root/examples/$name" "$work/rewritten"
  done
  echo "$rc" >"$work/tool.rc"

  # rewritten: some file differs; refused: none does and the tool refused a
  # descriptor; unchanged: none does otherwise (nothing to do, or the tool failed).
  local decision codes
  if ! (cd "$work" && diff -ru original rewritten >rewrite.diff); then
    decision=rewritten
  elif grep -Eq '(^|[^0-9])[1-9][0-9]* refused' "$work/tool.log"; then
    decision=refused
  else
    decision=unchanged
  fi
  echo "$decision" >"$work/decision"
  codes=$({ grep -oE 'tma-[0-9]{3}' "$work/tool.log" || true; } | sort -u | tr '\n' ' ' | sed 's/ $//')
  ((rc == 0)) || codes="${codes:+$codes, }tool exit $rc"
  echo "$codes" >"$work/codes"
  printf '%-26s %-10s %s\n' "$name" "$decision" "${codes:+[$codes]}"
}

for name in "${examples[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  prepare_one "$name" &
done
wait

# Exit 0 (done, refusals included) and 2 (a file that does not parse) are
# answers; anything else (a crash, a missing binary) is a failure.
status=0
for name in "${examples[@]}"; do
  rc=$(cat "$bundle/$name/tool.rc" 2>/dev/null || echo missing)
  if [[ $rc != 0 && $rc != 2 ]]; then
    echo "prepare: the tool failed on $name (exit $rc):" >&2
    tail -5 "$bundle/$name/tool.log" | sed 's/^/    /' >&2
    status=1
  fi
done

cp "$root/test/gpu/run.sh" "$bundle/run.sh"
chmod +x "$bundle/run.sh"
{
  echo "tma-modernize run-after-rewrite bundle"
  echo "made:   $(date -u '+%Y-%m-%d %H:%M:%S UTC') from $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "tool:   $("$tool" --version 2>/dev/null || echo "$tool")"
  echo "run on the GPU machine: bash run.sh   (results: \$OUT/gpu-results.md or ./gpu-results.md)"
} >"$bundle/BUNDLE.txt"
echo "prepare: ${#examples[@]} examples in $bundle"
exit $status
