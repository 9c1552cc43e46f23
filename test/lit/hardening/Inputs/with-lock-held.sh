#!/usr/bin/env bash
# with-lock-held.sh DIR [WHILE_WAITING] -- CMD...: runs CMD (in the
# background) while flock(1) holds DIR. The lock is held until CMD prints the
# tma-modernize "waiting" note (or ends); then the shell command
# WHILE_WAITING runs (if given) and the lock is released. So CMD waits
# however long its analysis takes. Ends with CMD's exit status; CMD's stderr
# is copied to stderr.
dir=$1
shift
meanwhile=
if [ "$1" != -- ]; then meanwhile=$1; shift; fi
shift
out=$(mktemp)
flock "$dir" sh -c "touch '$out.held'; while [ ! -e '$out.release' ]; do sleep 0.05; done" &
holder=$!
while [ ! -e "$out.held" ]; do sleep 0.05; done
"$@" 2>"$out" &
tool=$!
until grep -q "waiting for another tma-modernize run" "$out"; do
  kill -0 $tool 2>/dev/null || break
  sleep 0.05
done
[ -n "$meanwhile" ] && sh -c "$meanwhile"
touch "$out.release"
wait $tool
status=$?
wait $holder
cat "$out" >&2
rm -f "$out" "$out.held" "$out.release"
exit $status
