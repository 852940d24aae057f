#!/usr/bin/env bash
# Runs every fuzz target in BUILD_DIR for SECONDS each, starting from its seed corpus, JOBS
# (default: the number of cores) at a time: each libFuzzer process is single-threaded.
# Crashes fail the script; the reproducer is left in fuzz/corpus-run/<name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-sanitize}
SECONDS_EACH=${2:-30}
JOBS=${JOBS:-$(nproc)}

fuzz_one() {
  local bin=$1 name work
  name=$(basename "$bin")
  name=${name#fuzz_}
  work=fuzz/corpus-run/$name
  mkdir -p "$work"
  local seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  if "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=0 -artifact_prefix="$work/" \
       "$work" "${seeds[@]}" >"$work/log.txt" 2>&1; then
    echo "fuzz $name: ${SECONDS_EACH}s, no crash" >&2
  else
    echo "fuzz $name FAILED; see $work/log.txt" >&2
    tail -40 "$work/log.txt" >&2
    return 1
  fi
}

status=0
running=0
for bin in "$BUILD_DIR"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$bin" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
