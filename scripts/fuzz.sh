#!/usr/bin/env bash
# Runs every fuzz target in BUILD_DIR for SECONDS each, starting from its seed corpus.
# Crashes fail the script; the reproducer is left in fuzz/corpus-run/<name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-fuzz}
SECONDS_EACH=${2:-30}
status=0
for bin in "$BUILD_DIR"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  name=${name#fuzz_}
  work=fuzz/corpus-run/$name
  mkdir -p "$work"
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  echo "fuzz $name: ${SECONDS_EACH}s" >&2
  if ! "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=0 -artifact_prefix="$work/" \
       "$work" "${seeds[@]}" >"$work/log.txt" 2>&1; then
    echo "fuzz $name FAILED; see $work/log.txt" >&2
    tail -40 "$work/log.txt" >&2
    status=1
  fi
done
exit $status
