#!/usr/bin/env bash
# What the tests need beyond the build: Python for the integration harness (standard library
# only) and wrk as a peer in benchmarks. npm packages are added by the issues that need them.
set -euo pipefail
command -v python3 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null; }
