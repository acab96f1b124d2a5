# Sourced by build-rootfs.sh. unmount_under DIR: unmount every mount point below DIR, deepest
# first. debootstrap mounts /proc and /sys inside its target; a run that was killed (a CI
# timeout, a machine restart) leaves them mounted, and `rm -rf` then fails on the host's /proc
# files ("Operation not permitted"), which broke CI once.
unmount_under() {
  awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}
