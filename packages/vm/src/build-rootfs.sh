#!/bin/sh
# Builds (once) a Debian systemd root file system for the VM test and caches it.
# Usage: build-rootfs.sh CACHE_DIR MIRROR SUITE
# Output: CACHE_DIR/rootfs/ plus CACHE_DIR/rootfs.stamp. Idempotent: an existing stamp that
# matches the arguments means nothing is done. Needs root (debootstrap).
set -eu
cache=$1 mirror=$2 suite=$3
stamp="$cache/rootfs.stamp"
# v2: images no longer write into this rootfs (each builds from a copy); a v1 rootfs may hold
# an earlier default image's files, so it is built again.
want="debootstrap minbase $suite $mirror v2"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
mkdir -p "$cache"
# Mounts a killed debootstrap left behind are unmounted first, and again when this run fails.
. "$(dirname "$0")/unmount-under.sh"
trap 'unmount_under "$cache/rootfs.tmp"' EXIT
unmount_under "$cache/rootfs.tmp"
rm -rf "$cache/rootfs.tmp"
# Kernel and initramfs come from the rootfs itself: the host kernel here is a microVM kernel
# without /boot. udev creates /dev/virtio-ports/* which the test agent talks through.
debootstrap --variant=minbase \
  --include=systemd,systemd-sysv,udev,dbus,kmod,procps,util-linux,linux-image-amd64,initramfs-tools \
  "$suite" "$cache/rootfs.tmp" "$mirror"
unmount_under "$cache/rootfs.tmp"
unmount_under "$cache/rootfs"
rm -rf "$cache/rootfs"
mv "$cache/rootfs.tmp" "$cache/rootfs"
printf '%s\n' "$want" > "$stamp"
