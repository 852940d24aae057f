#!/usr/bin/env bash
# scripts/screenshot-dashboard.sh [demo|recorded] [OUT.png]: takes the docs' pictures of the
# live dashboard, mid-run, in a real headless Chromium (Debian's, driven by playwright-core:
# tests/js/target_dashboard_check.js, which also checks what the page shows), once its
# charts hold SHOWN seconds (default 14).
#
#   demo      the README's (docs/images/dashboard-server.png): `stampede demo`; from the
#             load's throughput chart down through the first two rows of the Server section
#             (the built-in target's own /metrics), so both are seen on one time axis.
#   recorded  the recording guide's (docs/images/dashboard-recorded.png): the session of
#             tests/vectors/har/lv-1.x.har (recorded in Chromium on the built-in target's
#             LiveView pages) made a scenario by `stampede convert`, run with --dashboard
#             against `stampede target` and its /metrics; the page's top and its charts down
#             to live.join.
#
# Needs build/stampede (or STAMPEDE_BIN), tests/js/node_modules (npm ci in tests/js) and
# /usr/bin/chromium (scripts/setup-test-deps.sh installs both). The load takes the machine
# for 30 s: where others share it, run it under their lock:
#
#   flock /tmp/stampede-build.lock scripts/screenshot-dashboard.sh demo
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-demo}
BIN=${STAMPEDE_BIN:-$ROOT/build/stampede}
SHOWN=${SHOWN:-14}
[[ -x $BIN ]] || { echo "no stampede binary at $BIN (./scripts/build.sh, or set STAMPEDE_BIN)" >&2; exit 2; }
[[ -d $ROOT/tests/js/node_modules/playwright-core ]] || { echo "run npm ci in tests/js first" >&2; exit 2; }

WORK=$(mktemp -d)
PIDS=()
# The load first, then the target it runs against. SIGINT: a Ctrl-C, which also ends a
# dashboard that would stay up for a look at the results.
cleanup() {
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill -INT "${PIDS[i]}" 2>/dev/null || true
    wait "${PIDS[i]}" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

case $MODE in
  demo)
    OUT=${2:-$ROOT/docs/images/dashboard-server.png}
    CLIP=(--clip-from throughput --clip-to server:server.stampede_target_connections)
    "$BIN" demo --duration 30s --dashboard-listen 127.0.0.1:0 >/dev/null 2>"$WORK/log" &
    PIDS+=($!)
    ;;
  recorded)
    OUT=${2:-$ROOT/docs/images/dashboard-recorded.png}
    CLIP=(--clip-to latency:live.join)
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$BIN" target --listen "127.0.0.1:$PORT" --delay lognormal:8:0.5 >/dev/null 2>&1 &
    PIDS+=($!)
    # Without the recorded pauses (--think-time 0): VUs that all start together would
    # otherwise act in step, and pause in step, leaving seconds with nothing to chart.
    "$BIN" convert "$ROOT/tests/vectors/har/lv-1.x.har" --think-time 0 -o "$WORK/checkout.lua" >/dev/null
    BASE_URL="http://127.0.0.1:$PORT" "$BIN" run "$WORK/checkout.lua" --vus 10 --duration 30s \
      --dashboard-listen 127.0.0.1:0 --dashboard-linger 0s --server-metrics "http://127.0.0.1:$PORT/metrics" >/dev/null 2>"$WORK/log" &
    PIDS+=($!)
    ;;
  *)
    echo "usage: $0 [demo|recorded] [OUT.png]" >&2
    exit 2
    ;;
esac

URL=
for _ in $(seq 100); do
  URL=$(sed -n 's/^dashboard: \(http:[^ ]*\).*/\1/p' "$WORK/log" | head -1)
  [[ -n $URL ]] && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$WORK/log" >&2; exit 1; }
  sleep 0.1
done
[[ -n $URL ]] || { echo "no dashboard URL printed:" >&2; cat "$WORK/log" >&2; exit 1; }

mkdir -p "$(dirname "$OUT")"
(cd "$ROOT/tests/js" && node target_dashboard_check.js --url "$URL" --min-seconds "$SHOWN" --width 1280 \
  "${CLIP[@]}" --screenshot "$OUT")
echo "$OUT: $(stat -c %s "$OUT") bytes"
