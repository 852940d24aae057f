#!/usr/bin/env bash
# Prints the Debian packages the ELF binaries given need at run time, as one dependency
# line for `apt-get satisfy` (versions and alternatives included): dpkg-shlibdeps reads the
# shared libraries they link, as CPack's .deb does (cmake/Install.cmake). Needs dpkg-dev.
#   scripts/container/runtime-depends.sh build/stampede
set -euo pipefail
(($#)) || { echo "usage: runtime-depends.sh BINARY..." >&2; exit 2; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps wants to run in a source package: an empty debian/control is enough.
mkdir "$work/debian"
: > "$work/debian/control"
(cd "$work" && dpkg-shlibdeps -O "${bins[@]}" > out 2> err) || { cat "$work/err" >&2; exit 1; }
# Its one warning here says the binaries are not in a package's build folder: true and harmless.
grep -v 'binaries to analyze should already be installed' "$work/err" >&2 || true
sed -n 's/^shlibs:Depends=//p' "$work/out" | grep . || { echo "runtime-depends: no dependencies found" >&2; exit 1; }
