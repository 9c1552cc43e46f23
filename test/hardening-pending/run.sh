#!/usr/bin/env bash
# Runs the pending hardening tests: each one reproduces a bug found by the
# hardening work and asserts the expected behaviour, so each FAILS until its
# bug is fixed. Once it passes, move it into test/lit/hardening/ (the tests
# already refer to that directory's Inputs/ through %S/Inputs).
#
#   test/hardening-pending/run.sh [BUILD_DIR] [lit options...]
#
# It builds a throw-away lit suite in a temporary directory from the
# configuration of BUILD_DIR (default build/) and runs lit on it.
# TMA_BIN=DIR runs the tma-modernize in DIR instead of BUILD_DIR/bin.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
shift || true
site=$build/test/lit/lit.site.cfg.py
[[ -f $site ]] || { echo "run.sh: no $site (configure the build first)" >&2; exit 2; }
suite=$(mktemp -d "${TMPDIR:-/tmp}/tma-pending.XXXXXX")
trap 'chmod -R u+w "$suite" 2>/dev/null; rm -rf "$suite"' EXIT
chmod 755 "$suite" # the unprivileged tests run as another user
cp "$root/test/lit/lit.cfg.py" "$suite/lit.cfg.py"
sed "s|lit_config.load_config(.*|lit_config.load_config(config, \"$suite/lit.cfg.py\")|" "$site" \
  >"$suite/lit.site.cfg.py"
# TMA_BIN: another directory holding tma-modernize (e.g. a copy that a
# rebuild cannot replace while the tests run).
if [[ -n ${TMA_BIN:-} ]]; then
  sed -i "s|^config.tma_bin = .*|config.tma_bin = \"$TMA_BIN\"|" "$suite/lit.site.cfg.py"
fi
ln -s "$root/test/lit/Inputs" "$suite/Inputs"
mkdir "$suite/hardening"
ln -s "$root/test/lit/hardening/Inputs" "$suite/hardening/Inputs"
shopt -s nullglob
pending=("$root"/test/hardening-pending/*.test)
if (( ${#pending[@]} == 0 )); then
  echo "run.sh: no pending tests: every bug found so far is fixed"
  exit 0
fi
cp "${pending[@]}" "$suite/hardening/"
/usr/lib/llvm-22/bin/lit "$@" "$suite/hardening"
