#!/usr/bin/env bash
# Kill test: SIGKILL tma-modernize while it rewrites a multi-file project in
# place, and check that every file is then byte-identical to either its
# original or its fully rewritten form (in-place writes are atomic: a
# temporary file next to the original, fsync, rename). Then run
# 'tma-modernize --recover' and check that the project is whole again: every
# file original, or every file rewritten (the journal finishes or discards an
# interrupted run), with no temporary file and no journal left.
#
#   test/hardening/kill-test.sh [RUNS] [WORKDIR]
#
# RUNS (default 30) runs cycle through three kinds of interruption:
#   uniform  SIGKILL after a delay drawn uniformly in [0, T], T the tool's
#            normal run time on the project (measured first);
#   write    SIGKILL at a random moment of the write phase: a delay drawn in
#            [0, 1.2 W] after the tool creates its first temporary file
#            (seen through inotify), W the measured time from the first
#            temporary file to the last rename.
#            A uniform delay rarely lands in the write phase, which takes a
#            few tens of milliseconds out of seconds of analysis.
#   renames  the process ends itself abruptly (_exit, no clean-up: what a
#            SIGKILL leaves) after K of its 11 renames, K drawn in 1..10,
#            through the TMA_MODERNIZE_TEST_FAULT hook. The renames take
#            microseconds, so a timed kill almost never lands among them.
#
# The project is generated in WORKDIR (default: a new temporary directory,
# removed at the end unless something was corrupted): a unity build,
# all.cu including k1.cu ... k8.cu (each a kernel reading its descriptor
# through global memory, with the host code that copies and launches it), and
# k9.cu/k9.cuh, a kernel declared in a header, defined in k9.cu and launched
# from all.cu: one edit unit spread over three files. One run on all.cu
# rewrites all eleven files.
#
# Environment: TMA_MODERNIZE (default build/bin/tma-modernize),
# KILL_TEST_SEED (random seed; printed, so a run can be repeated).
# Prints the figures; exit status 1 when a file is corrupted or the setup
# fails, 0 otherwise.
set -uo pipefail

runs=${1:-30}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=${TMA_MODERNIZE:-$root/build/bin/tma-modernize}
seed=${KILL_TEST_SEED:-$(( $(date +%s) % 100000 ))}
if [[ -n ${2:-} ]]; then
  work=$2
  rm -rf "$work"
  mkdir -p "$work"
  own_work=0
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/tma-kill.XXXXXX")
  own_work=1
fi
[[ $runs =~ ^[0-9]+$ ]] || { echo "kill-test: RUNS must be a number, not '$runs'" >&2; exit 1; }
[[ -x $tool ]] || { echo "kill-test: no tool at $tool (set TMA_MODERNIZE)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "kill-test: python3 is needed" >&2; exit 1; }
work=$(cd "$work" && pwd -P)

# --- the project --------------------------------------------------------------
gen() {
  local dir=$1 i
  mkdir -p "$dir"
  for i in 1 2 3 4 5 6 7 8; do
    cat >"$dir/k$i.cu" <<EOF
// Part $i of a unity build: a kernel that reads its descriptor through
// global memory, and the host code that copies it there and launches it.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k$i(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[$i] = $i;
}

void launch$i(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k$i<<<1, 1>>>(d, out);
  cudaFree(d);
}
EOF
  done
  cat >"$dir/k9.cuh" <<'EOF'
// Declared here, defined in k9.cu, launched from all.cu.
#pragma once
#include <cuda.h>

__global__ void k9(const CUtensorMap *map, int *out);
EOF
  cat >"$dir/k9.cu" <<'EOF'
#pragma once
#include "k9.cuh"

__global__ void k9(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[9] = 9;
}
EOF
  {
    for i in 1 2 3 4 5 6 7 8 9; do echo "#include \"k$i.cu\""; done
    cat <<'EOF'

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, 16 * sizeof(int));
EOF
    for i in 1 2 3 4 5 6 7 8; do echo "  launch$i(h, out);"; done
    cat <<'EOF'
  CUtensorMap *d9;
  cudaMalloc(&d9, sizeof(CUtensorMap));
  cudaMemcpy(d9, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k9<<<1, 1>>>(d9, out);
  cudaFree(d9);
  return 0;
}
EOF
  } >"$dir/all.cu"
}
files=(all.cu k1.cu k2.cu k3.cu k4.cu k5.cu k6.cu k7.cu k8.cu k9.cu k9.cuh)
group=(all.cu k9.cu k9.cuh) # one edit unit over three files

# --- the killer: starts the tool in DIR, kills it, prints what happened --------
cat >"$work/killer.py" <<'EOF'
# killer.py MODE SEED DIR DELAY_MS TOOL ARG...
#   MODE uniform: SIGKILL DELAY_MS * U(0,1) after the start
#   MODE write:   SIGKILL DELAY_MS * U(0,1) after the first temporary file
#   MODE measure: no kill
# Prints "killed|finished TOTAL_MS FIRST_TEMP_MS LAST_RENAME_MS" (times from
# the start; -1: not seen).
import ctypes, os, random, select, signal, struct, subprocess, sys, time

mode, seed, wdir, delay_ms = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
cmd = sys.argv[5:]
rng = random.Random(seed)
libc = ctypes.CDLL(None, use_errno=True)
IN_CREATE, IN_MOVED_TO = 0x100, 0x80
fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
if fd < 0 or libc.inotify_add_watch(fd, wdir.encode(), IN_CREATE | IN_MOVED_TO) < 0:
    sys.exit("killer: inotify failed: " + os.strerror(ctypes.get_errno()))
first_temp = last_rename = None

def drain():
    """Reads the pending events; notes the first temporary file and the last rename."""
    global first_temp, last_rename
    try:
        buf = os.read(fd, 65536)
    except BlockingIOError:
        return
    now = time.monotonic()
    i = 0
    while i < len(buf):
        _, mask, _, n = struct.unpack_from("iIII", buf, i)
        name = buf[i + 16:i + 16 + n].rstrip(b"\0")
        if mask & IN_CREATE and b".tma-" in name and first_temp is None:
            first_temp = now
        if mask & IN_MOVED_TO:
            last_rename = now
        i += 16 + n

start = time.monotonic()
devnull = open(os.devnull, "wb")
p = subprocess.Popen(cmd, cwd=wdir, stdout=devnull, stderr=devnull)
kill_at = start + delay_ms * rng.random() / 1000 if mode == "uniform" else None
killed = False
while p.poll() is None:
    timeout = 0.5 if kill_at is None else max(0.0, kill_at - time.monotonic())
    r, _, _ = select.select([fd], [], [], min(timeout, 0.5))
    if r:
        drain()
        if mode == "write" and kill_at is None and first_temp is not None:
            kill_at = first_temp + delay_ms * rng.random() / 1000
    if kill_at is not None and time.monotonic() >= kill_at:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed = True
        break
p.wait()
drain()
ms = lambda t: (t - start) * 1000 if t is not None else -1
print("%s %.1f %.1f %.1f" % ("killed" if killed and p.returncode == -signal.SIGKILL else "finished",
                             ms(time.monotonic()), ms(first_temp), ms(last_rename)))
EOF

# --- the originals, the fully rewritten form, T and W --------------------------
# Three uninterrupted runs; the median gives the normal run time T and the
# write phase's length W; the first gives the fully rewritten form.
gen "$work/orig"
ts=() ws=()
for m in 1 2 3; do
  rm -rf "$work/run" && cp -a "$work/orig" "$work/run"
  read -r what t w0 w1 < <(python3 "$work/killer.py" measure 0 "$work/run" 0 "$tool" --no-database all.cu)
  if [[ $what != finished || $w0 == -1* || $w1 == -1* ]]; then
    echo "kill-test: an uninterrupted run did not write the files:" >&2
    (cd "$work/run" && "$tool" --no-database all.cu) >&2
    exit 1
  fi
  ts+=("$t") ws+=("$(python3 -c "print(max(2.0, $w1 - $w0))")")
  if ((m == 1)); then
    rm -rf "$work/want" && mv "$work/run" "$work/want"
  elif ! diff -r "$work/want" "$work/run" >/dev/null; then
    echo "kill-test: two uninterrupted runs gave different files" >&2
    exit 1
  fi
done
for f in "${files[@]}"; do
  if cmp -s "$work/orig/$f" "$work/want/$f"; then
    echo "kill-test: $f is not rewritten by an uninterrupted run" >&2
    exit 1
  fi
done
if ! (cd "$work/want" && "$tool" --no-database --check all.cu >/dev/null 2>&1); then
  echo "kill-test: a second run on the rewritten project still has work to do" >&2
  exit 1
fi
T=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
W=$(printf '%s\n' "${ws[@]}" | sort -n | sed -n 2p)
echo "kill-test: seed $seed; tool run time T = ${T%.*} ms, write phase W = ${W%.*} ms (11 files)"

# --- the runs --------------------------------------------------------------------
killed=0 finished=0 checked=0 corrupted=0 mixed=0 split=0 temps=0
recovered=0 mixed_after=0 left_after=0
n_uniform=0 n_write=0 n_renames=0 k_uniform=0 k_write=0
for ((r = 1; r <= runs; r++)); do
  rm -rf "$work/run" && cp -a "$work/orig" "$work/run"
  fault=
  case $((r % 3)) in
    1) mode=uniform delay=$T; ((n_uniform++)) ;;
    2) mode=write delay=$(python3 -c "print(1.2 * $W)"); ((n_write++)) ;;
    0) mode=renames delay=0 fault=exit-after-renames:$(( (seed * 7 + r * 13) % 10 + 1 ))
       ((n_renames++)) ;;
  esac
  read -r what _ _ _ < <(env ${fault:+TMA_MODERNIZE_TEST_FAULT=$fault} \
    python3 "$work/killer.py" "${mode/renames/measure}" "$((seed * 1000 + r))" "$work/run" \
    "$delay" "$tool" --no-database all.cu)
  [[ $mode == renames ]] && what="stopped(${fault#*:})"
  if [[ $mode == renames ]]; then
    :
  elif [[ $what == killed ]]; then
    ((killed++))
    [[ $mode == uniform ]] && ((k_uniform++))
    [[ $mode == write ]] && ((k_write++))
  else
    ((finished++))
  fi
  n_orig=0 n_new=0 g_orig=0 g_new=0
  for f in "${files[@]}"; do
    ((checked++))
    if cmp -s "$work/run/$f" "$work/orig/$f"; then
      ((n_orig++))
      [[ " ${group[*]} " == *" $f "* ]] && ((g_orig++))
    elif cmp -s "$work/run/$f" "$work/want/$f"; then
      ((n_new++))
      [[ " ${group[*]} " == *" $f "* ]] && ((g_new++))
    else
      ((corrupted++))
      mkdir -p "$work/corrupted"
      cp "$work/run/$f" "$work/corrupted/run$r-$f"
      echo "kill-test: run $r ($mode): $f is neither the original nor the rewritten file" \
           "(kept as $work/corrupted/run$r-$f)" >&2
    fi
  done
  ((n_orig && n_new)) && ((mixed++))
  ((g_orig && g_new)) && ((split++))
  t=$(find "$work/run" -maxdepth 1 -name '.*.tma-*' | wc -l)
  ((temps += t))
  # The next run's recovery: the project must be whole again.
  rec=$(cd "$work/run" && "$tool" --recover 2>&1)
  rc=$?
  [[ -n $rec ]] && ((recovered++))
  a_orig=0 a_new=0
  for f in "${files[@]}"; do
    if cmp -s "$work/run/$f" "$work/orig/$f"; then
      ((a_orig++))
    elif cmp -s "$work/run/$f" "$work/want/$f"; then
      ((a_new++))
    else
      ((corrupted++))
      echo "kill-test: run $r ($mode): after --recover, $f is neither the original nor the" \
           "rewritten file" >&2
    fi
  done
  left=$(find "$work/run" -maxdepth 1 -name '.*tma-*' | wc -l)
  ((left_after += left))
  if ((a_orig && a_new)) || ((rc)); then
    ((mixed_after++))
    echo "kill-test: run $r ($mode): after --recover (status $rc): $a_new rewritten," \
         "$a_orig original: $rec" >&2
  fi
  echo "kill-test: run $r: $mode, $what; $n_new rewritten, $n_orig original${t:+, $t temporary}" \
       "${rec:+; recovery: ${rec%%$'\n'*}}" | sed 's/, 0 temporary//'
done
rm -rf "$work/run"

echo "kill-test: runs $runs ($n_uniform uniform delay, $n_write in the write phase," \
     "$n_renames stopped among the renames)," \
     "killed $killed ($k_uniform uniform, $k_write write phase), finished before the kill $finished"
echo "kill-test: files checked $checked, files corrupted $corrupted," \
     "runs with a mix of original and rewritten files $mixed," \
     "runs that split the three-file edit unit $split," \
     "temporary files left by a kill $temps"
echo "kill-test: after --recover: runs that needed it $recovered," \
     "runs still with a mix of original and rewritten files $mixed_after," \
     "temporary files or journals left $left_after"
if ((corrupted || mixed_after || left_after)); then
  echo "kill-test: FAILED: $corrupted corrupted files, $mixed_after runs not whole after" \
       "--recover, $left_after files left (see $work)" >&2
  own_work=0
  exit 1
fi
((own_work)) && rm -rf "$work"
echo "kill-test: PASSED"
exit 0
