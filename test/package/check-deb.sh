#!/usr/bin/env bash
# Builds the Debian package of a build folder with `cpack -G DEB` and checks
# what it installs and what it depends on. Usage: check-deb.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log" >&2; exit 1; }
deb=$(ls "$out"/*.deb)
echo "package: $(basename "$deb")"
echo "== contents"
dpkg-deb -c "$deb" | awk '{print $NF}' | sort
echo "== control"
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends

# What must be there, and what must not.
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
depends=$(dpkg-deb -f "$deb" Depends)
status=0
for path in ./usr/bin/tma-modernize ./usr/lib/tma-modernize/TmaModernizeTidy.so \
            ./usr/share/doc/tma-modernize/README.md \
            ./usr/share/doc/tma-modernize/docs/user-guide.md; do
  grep -qxF "$path" <<<"$contents" || { echo "check-deb: missing $path" >&2; status=1; }
done
if grep -E 'tma-unit-tests|libtmaEngine|\.h$' <<<"$contents" >&2; then
  echo "check-deb: build-only files in the package" >&2
  status=1
fi
for dep in libclang-cpp22 libllvm22 libclang-common-22-dev; do
  grep -qE "(^|, )$dep( |,|$)" <<<"$depends" || { echo "check-deb: Depends lacks $dep" >&2; status=1; }
done
[[ $(dpkg-deb -f "$deb" Package) == tma-modernize ]] || { echo "check-deb: wrong package name" >&2; status=1; }
# The installed binary runs, and neither it nor the plugin looks for
# libraries in the build folder.
dpkg-deb -x "$deb" "$out/root"
"$out/root/usr/bin/tma-modernize" --version || { echo "check-deb: the binary does not run" >&2; status=1; }
for f in "$out/root/usr/bin/tma-modernize" "$out/root/usr/lib/tma-modernize/TmaModernizeTidy.so"; do
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -qF "$build"; then
    echo "check-deb: $f has the build folder in its run path" >&2
    status=1
  fi
done
[[ $status == 0 ]] && echo "check-deb: ok"
exit $status
