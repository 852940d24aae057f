#!/usr/bin/env bash
# Installs what Stampede needs to build and test on Debian 12, from Debian's packages only.
# Idempotent and quiet when everything is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git python3
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libssl-dev zlib1g-dev libluajit2-5.1-dev libcli11-dev libfmt-dev libgtest-dev
  clang-14 libclang-rt-14-dev
  wrk procps
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
