#!/usr/bin/env bash
# with-lock-held.sh DIR SECONDS [WHILE_WAITING] -- CMD...: holds flock(1) on
# DIR for SECONDS while CMD runs (in the background). When CMD prints the
# tma-modernize "waiting" note, runs the shell command WHILE_WAITING (if
# given). Ends with CMD's exit status.
dir=$1 seconds=$2
shift 2
meanwhile=
if [ "$1" != -- ]; then meanwhile=$1; shift; fi
shift
out=$(mktemp)
flock "$dir" sh -c "touch '$out.held'; sleep $seconds" &
holder=$!
while [ ! -e "$out.held" ]; do sleep 0.05; done
"$@" 2>"$out" &
tool=$!
if [ -n "$meanwhile" ]; then
  until grep -q "waiting for another tma-modernize run" "$out"; do
    kill -0 $tool 2>/dev/null || break
    sleep 0.05
  done
  sh -c "$meanwhile"
fi
wait $tool
status=$?
wait $holder
cat "$out" >&2
rm -f "$out" "$out.held"
exit $status
