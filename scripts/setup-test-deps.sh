#!/usr/bin/env bash
# What the tests need beyond the build: Python for the integration harness (standard library
# only), Node.js with the npm packages in tests/js (the official phoenix client and the ws
# server, independent peers for our target and our client; the graphql-ws,
# subscriptions-transport-ws and socket.io servers and the eventsource client, peers of the
# streaming clients; playwright-core, which drives
# Debian's Chromium through the HTML report and the dashboard; Ajv, which checks results
# files against schema/results.schema.json), Chromium itself with a font, so that
# screenshots show text, the official Prometheus Python client, whose parser reads
# what --prometheus serves (for Debian's /usr/bin/python3), Debian's Prometheus node
# exporter, which the server-metrics sampler scrapes in its tests, and the container tools.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v python3 >/dev/null || need+=(python3)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
# clang for the sanitizer and fuzzer tree (scripts/test.sh), wrk for the benches' closed-loop
# reference: the test command's, not the first build's (the README's first command is quick).
command -v clang++-14 >/dev/null || need+=(clang-14)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "install ok installed" || need+=(libclang-rt-14-dev)
command -v wrk >/dev/null || need+=(wrk)
# Debian's Elixir (mix and ExUnit) for integrations/elixir; it needs no Hex.
command -v mix >/dev/null || need+=(elixir)
# luac5.1 compiles the type definitions (types/) and templates as a syntax check. Not Debian's
# `luajit` package: it conflicts with OpenResty's libluajit2-5.1-dev, which we build with, and
# installing it removes that.
command -v luac5.1 >/dev/null || need+=(lua5.1)
# openssl makes the certificates of the TLS test servers (tests/integration/test_http2.py);
# curl (built with nghttp2) cross-checks the target's HTTP/2.
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
# CPack's .deb (tests/package): `file` finds the binaries whose libraries dpkg-shlibdeps reads.
command -v file >/dev/null || need+=(file)
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
# The openssl command makes a throwaway certificate for the SSE client's TLS test.
command -v openssl >/dev/null || need+=(openssl)
# ss (iproute2) counts the connections bench/hundred-thousand holds (tests/integration/
# test_mpi_hold_scale.py), and ip makes the namespaces of the benches and the netns tests.
command -v ss >/dev/null || need+=(iproute2)
command -v ip >/dev/null || need+=(iproute2)
# The container image test (tests/container): mmdebstrap makes the Debian root filesystem,
# rootful podman builds and runs the image (runc: crun refuses hybrid cgroup hierarchies),
# ssh-keygen makes the key an MPI operator would mount, PyYAML reads the MPIJob example.
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
command -v ssh-keygen >/dev/null || need+=(openssh-client)
dpkg-query -W -f='${Status}' python3-yaml 2>/dev/null | grep -q "install ok installed" || need+=(python3-yaml)
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg-query -W -f='${Status}' fonts-dejavu-core 2>/dev/null | grep -q "install ok installed" || need+=(fonts-dejavu-core)
dpkg-query -W -f='${Status}' python3-prometheus-client 2>/dev/null | grep -q "install ok installed" || need+=(python3-prometheus-client)
# A real Prometheus exporter (client_golang) for the server-metrics sampler's tests, started
# on a loopback port by the test itself (its Debian service is not needed).
[ -x /usr/bin/prometheus-node-exporter ] || need+=(prometheus-node-exporter)
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Again whenever the lock file changed since the last install.
if [ ! -f tests/js/node_modules/.package-lock.json ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
fi
