#!/usr/bin/env bash
# Build a Debian 12 base image with podman, from Debian's own archive: for machines that
# reach Debian's package mirrors but no container registry.  The result can stand in for
# deploy/Dockerfile's default base (build with --build-arg BASE_IMAGE=<tag> --pull=never).
#
#   deploy/build-base.sh localhost/arbiter-base:bookworm
#
# It holds Debian's minimal system plus python3 and python3-venv; the Dockerfile adds the
# rest with apt.  Needs root, mmdebstrap and podman (apt-get install mmdebstrap podman).
# Settings (environment):
#   ARBITER_BASE_SUITE     Debian suite                         bookworm
#   ARBITER_BASE_PACKAGES  extra packages, comma-separated       python3,python3-venv
set -euo pipefail

say() { printf 'build-base: %s\n' "$*" >&2; }

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 IMAGE_TAG" >&2
    exit 2
fi
tag="$1"
suite="${ARBITER_BASE_SUITE:-bookworm}"
packages="${ARBITER_BASE_PACKAGES:-python3,python3-venv}"
for tool in mmdebstrap podman; do
    command -v "$tool" >/dev/null || { say "$tool is not installed (apt-get install $tool)"; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

started=$SECONDS
say "mmdebstrap --variant=minbase $suite (+ $packages)"
# shellcheck disable=SC2016  # "$1" is the hook's argument (the new root), not ours
# stdin from /dev/null: without a mirror argument mmdebstrap would read a sources.list from a
# non-terminal stdin (as under CI); with none it uses Debian's mirror plus updates and security.
mmdebstrap --quiet --variant=minbase --include="$packages" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    "$suite" "$work/rootfs.tar" </dev/null
say "podman import as $tag"
podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    --change "LABEL org.opencontainers.image.base.name=debian:$suite io.arbiter.base.built=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$work/rootfs.tar" "$tag" >/dev/null
say "built $tag in $((SECONDS - started)) s"
