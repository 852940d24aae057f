#!/usr/bin/env bash
# Prints a containers.conf for podman on hosts where its defaults cannot start a container:
#   export CONTAINERS_CONF=$(mktemp); scripts/container/podman-conf.sh > "$CONTAINERS_CONF"
# build-image.sh and tests/container use it unless CONTAINERS_CONF is already set. Seen on
# the Debian 12 VMs this project builds on (docs/design/042-container-image.md):
# - podman asks for 1048576 open files, but root there lacks CAP_SYS_RESOURCE and cannot
#   raise the hard limit (20000): "crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted".
#   Podman also lowers its own process limit to 32768 before starting the runtime, so the
#   container's may not be higher ("setrlimit `RLIMIT_NPROC`: Operation not permitted").
#   Both are set to what this host allows (never more than podman's defaults).
# - cgroup v1 controllers beside a cgroup2 hierarchy ("hybrid"): crun refuses them ("cgroups
#   in hybrid mode not supported, drop all controllers from cgroupv2"); runc copes.
set -euo pipefail
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
nproc=$(ulimit -Hu)
{ [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
echo "[containers]"
echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
  command -v runc >/dev/null || { echo "podman-conf: cgroups are hybrid here; crun refuses them: apt-get install runc" >&2; exit 2; }
  echo "[engine]"
  echo "runtime = \"runc\""
fi
