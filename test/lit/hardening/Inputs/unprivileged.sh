#!/bin/sh
# unprivileged.sh DIR CMD ARG...: runs CMD without root's right to write
# anywhere, so that file permissions apply. As root: DIR is given to the
# user nobody and CMD runs as nobody (setpriv, util-linux); otherwise CMD
# runs as is.
dir=$1
shift
if [ "$(id -u)" != 0 ]; then
  exec "$@"
fi
command -v setpriv >/dev/null 2>&1 || { echo "unprivileged.sh: setpriv not found" >&2; exit 125; }
chown -R 65534:65534 "$dir" || exit 125
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1" --version >/dev/null 2>&1 ||
  { echo "unprivileged.sh: user 65534 cannot run $1 (is its directory readable?)" >&2; exit 125; }
exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
