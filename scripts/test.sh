#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing, builds two trees, then runs
#   1. unit and integration tests under AddressSanitizer + UBSan (build-sanitize/, clang):
#      every suite but those labelled `release`,
#   2. every libFuzzer target for a bounded time (built in the same tree),
#   3. on the release build (build/, gcc) what only an optimised, unsanitized binary can
#      judge (ctest label `release`: the timing and memory suites), the package test and the
#      container image test (root only: mmdebstrap and podman, ~2 minutes; `ctest -LE
#      container` leaves it out); its ctest summary is the last thing printed. Each suite runs
#      once (docs/design/023-ci-build-time.md).
# FUZZ_SECONDS (default 15) bounds each fuzzer (JOBS run at once); SKIP_ASAN=1 / SKIP_FUZZ=1
# skip those stages, and with SKIP_ASAN=1 the release stage runs every suite, unit tests too.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-15}

./scripts/setup.sh
./scripts/setup-test-deps.sh

started=$(date +%s)
step() { printf '\n== %s (at %ss) ==\n' "$*" "$(( $(date +%s) - started ))" >&2; }

step "release build"
unit_tests_in_release=OFF
[ "${SKIP_ASAN:-0}" = 1 ] && unit_tests_in_release=ON
TARGETS=all ./scripts/build.sh -DSTAMPEDE_UNIT_TESTS=$unit_tests_in_release

# One clang tree for the sanitizers and the fuzzers: the code under test is built once, with
# ASan + UBSan and libFuzzer's coverage instrumentation, at -O1 (asserts on): at -O0 the
# fuzzers ran 5-15 times fewer inputs. The unit tests' own files stay at -O0
# (docs/design/023-ci-build-time.md). Both trees are unity builds (same document).
if [ ! -f build-sanitize/build.ninja ]; then
  CXX=clang++-14 cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DSTAMPEDE_WERROR=ON -DSTAMPEDE_SANITIZE=ON -DSTAMPEDE_FUZZ=ON -DSTAMPEDE_UNITY_BUILD=ON >/dev/null
fi

if [ "${SKIP_ASAN:-0}" != 1 ]; then
  step "sanitizer and fuzzer build (clang, ASan + UBSan)"
  cmake --build build-sanitize -j"$JOBS"
  step "tests under ASan + UBSan (all but the release-only suites)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$JOBS" -LE release
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  step "fuzzers (${FUZZ_SECONDS}s each)"
  cmake --build build-sanitize -j"$JOBS" --target fuzzers
  JOBS=$JOBS ./scripts/fuzz.sh build-sanitize "$FUZZ_SECONDS"
fi

if [ "${SKIP_ASAN:-0}" = 1 ]; then
  step "every test (release build)"
  ctest --test-dir build --output-on-failure -j"$JOBS"
else
  step "timing, memory, package and container tests (release build)"
  ctest --test-dir build --output-on-failure -j"$JOBS" -L 'release|package|container'
fi
