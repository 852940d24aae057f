#!/usr/bin/env bash
# Makes the Debian 12 root filesystem the container image starts from (a tarball the
# Containerfile ADDs), with mmdebstrap from the Debian mirror that this machine's apt uses.
#   scripts/container/make-rootfs.sh OUT.tar
# What it holds: Debian's essential packages and apt (no perl: merged /usr is set up by
# mmdebstrap's hook, not by the usrmerge package), and a dpkg configuration, kept in the
# image, that leaves out manual pages, translations and documentation other than copyright
# files, for this and every package installed later (docs/design/042-container-image.md).
# Root only (mmdebstrap --mode=root); takes under a minute on a 2-core machine.
# SOURCES names the apt sources file to use (default: the host's Debian sources).
set -euo pipefail
out=${1:?usage: make-rootfs.sh OUT.tar}
sources=${SOURCES:-}
if [ -z "$sources" ]; then
  # The Debian mirror apt is configured with here (deb822 or one-line format); not the
  # third-party repositories that may sit beside it.
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    if [ -s "$f" ] && grep -qE '^[^#]*(URIs:|deb ).*/debian' "$f"; then sources=$f; break; fi
  done
fi
[ -n "$sources" ] || { echo "make-rootfs: no Debian apt sources found (set SOURCES=FILE)" >&2; exit 2; }
command -v mmdebstrap >/dev/null || { echo "make-rootfs: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; exit 2; }

exec mmdebstrap --quiet --mode=root --variant=apt --format=tar \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  bookworm "$out" "$sources"
