#!/usr/bin/env bash
# What the tests need beyond the build: Python for the integration harness (standard library
# only), Node.js with the npm packages in tests/js (the official phoenix client and the ws
# server, independent peers for our target and our client).
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v python3 >/dev/null || need+=(python3)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ! -d tests/js/node_modules/phoenix ] || [ ! -d tests/js/node_modules/ws ]; then
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
fi
