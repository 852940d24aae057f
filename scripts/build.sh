#!/usr/bin/env bash
# Configures and builds Stampede into build/ (Release with debug info, warnings are errors,
# a unity build: docs/design/023-ci-build-time.md; `-DSTAMPEDE_UNITY_BUILD=OFF` as an argument
# turns it off). Builds only the `stampede` binary unless TARGETS says otherwise (the README's
# first command needs nothing else; scripts/test.sh builds everything with TARGETS=all).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_WERROR=ON -DSTAMPEDE_UNITY_BUILD=ON \
    "$@" >/dev/null
fi
targets=()
for t in ${TARGETS:-stampede}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j"$JOBS" "${targets[@]}"
