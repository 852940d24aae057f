#!/usr/bin/env bash
# Builds Stampede's container image with podman (deploy/container/Containerfile):
#   scripts/container/build-image.sh                     # compiles inside, from this tree
#   scripts/container/build-image.sh --prebuilt build    # reuses a built tree (what CI tests)
# Options:
#   --tag NAME          image name (default: localhost/stampede:VERSION)
#   --prebuilt DIR      install DIR's build (`cmake --install`) instead of compiling again
#   --rootfs FILE       a root filesystem tarball from make-rootfs.sh (default: make one)
#   --context DIR       where to lay out the build context (default: build-image/)
# Environment: PODMAN (default `podman`; e.g. "podman --root DIR --runroot DIR"),
# CONTAINERS_CONF (default: what scripts/container/podman-conf.sh prints for this host).
# Root only: mmdebstrap and rootful podman. Prints the phases' times on stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^project(stampede VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
tag=localhost/stampede:$version
prebuilt=""
rootfs=""
context=build-image
while (($#)); do
  case $1 in
    --tag) tag=$2; shift 2 ;;
    --prebuilt) prebuilt=$(realpath "$2"); shift 2 ;;
    --rootfs) rootfs=$(realpath "$2"); shift 2 ;;
    --context) context=$2; shift 2 ;;
    *) echo "build-image: unknown option $1" >&2; exit 2 ;;
  esac
done
context=$(realpath -m "$context")
read -r -a podman <<< "${PODMAN:-podman}"
started=$(date +%s)
phase() { printf 'build-image: %s (at %ss)\n' "$*" "$(( $(date +%s) - started ))" >&2; }

# The context is made anew each time; a folder this script did not make is not removed.
if [ -e "$context" ] && [ ! -e "$context/.build-image-context" ]; then
  echo "build-image: $context exists and is not a context this script made: give another --context" >&2; exit 2
fi
rm -rf "$context"
mkdir -p "$context/image" "$context/source" "$context/prebuilt"
: > "$context/.build-image-context"
if [ -z "${CONTAINERS_CONF:-}" ]; then
  scripts/container/podman-conf.sh > "$context/containers.conf"
  export CONTAINERS_CONF=$context/containers.conf
fi

if [ -n "$rootfs" ]; then
  ln "$rootfs" "$context/debian12.tar" 2>/dev/null || cp "$rootfs" "$context/debian12.tar"
else
  phase "making the Debian 12 root filesystem (mmdebstrap)"
  scripts/container/make-rootfs.sh "$context/debian12.tar"
fi
cp deploy/container/ssh_config deploy/container/sshd_config "$context/image/"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$prebuilt" ]; then
  phase "installing $prebuilt into the context"
  DESTDIR=$context/prebuilt cmake --install "$prebuilt" --prefix /usr/local --strip >/dev/null
  scripts/container/runtime-depends.sh "$context/prebuilt/usr/local/bin/stampede" > "$context/prebuilt/depends"
  from=prebuilt
else
  phase "copying the source tree into the context"
  # What git tracks (and new files not ignored), as the build stage compiles it; plus the
  # chart library the build embeds (web/node_modules/uplot, installed by scripts/setup.sh).
  # (A work tree's web/node_modules may be a symbolic link, which git does not ignore.)
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    if [ -e "$f" ] && [[ $f != web/node_modules* ]]; then printf '%s\0' "$f"; fi
  done | tar --null -T - -cf - | tar -xf - -C "$context/source"
  [ -f web/node_modules/uplot/dist/uPlot.iife.min.js ] || { echo "build-image: web/node_modules is missing: run scripts/setup.sh" >&2; exit 2; }
  mkdir -p "$context/source/web/node_modules"
  cp -rL web/node_modules/uplot "$context/source/web/node_modules/"
  from=build
fi

phase "podman build ($from) -> $tag"
# The host's network for RUN (apt-get reaches Debian's mirror as the host's apt does): no
# bridge or NAT rules are made.
"${podman[@]}" build --network host -f deploy/container/Containerfile \
  --build-arg STAMPEDE_FROM=$from --build-arg STAMPEDE_COMMIT="$commit" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$commit" \
  --label org.opencontainers.image.title=stampede \
  -t "$tag" "$context"
phase "done: $tag"
