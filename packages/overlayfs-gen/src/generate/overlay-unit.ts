// The unit that runs the boot script inside local-fs.target. Why a oneshot service and not
// native .mount units: the persistent paths must be staged BEFORE their overlay covers them
// and the tmpfs must be lazily unmounted AFTER every overlay and bind is in place. Mount
// units order mounts but cannot express "bind this, then hide that"; a tmpfs .mount unit
// would also be unmounted (breaking nothing, but failing) at shutdown and stay visible.
import type { OverlayConfig } from '../config/index.js';
import { DISABLE_CMDLINE, GENERATED_BY, OVERLAY_SCRIPT } from './layout.js';

/** Nice value of the boot script and the commands it starts (the default is 0; -20 is first). */
const NICE = -20;

/** The state dir and the work directories' sources in it, relative to /run, parents first. */
function runtimeDirectories(config: OverlayConfig): string[] {
  const state = config.stateDir.slice('/run/'.length);
  return [state, `${state}/work`, ...config.volatile.map((_, i) => `${state}/work/v${i}`)];
}

/**
 * The systemd unit that runs the boot script early in boot (before local-fs.target); skipped when
 * the kernel command line has `noderepair.overlay=off`.
 */
export function overlayUnit(config: OverlayConfig): string {
  return [
    `# ${GENERATED_BY}`,
    '[Unit]',
    'Description=noderepair: tmpfs overlays on volatile directories',
    'Documentation=https://github.com/noderepair/noderepair/tree/main/packages/overlayfs-gen',
    // Early boot: no sysinit.target/basic.target dependencies, or we would run far too late.
    'DefaultDependencies=no',
    // The root file system is writable (remount-fs), the journal can take our log lines, and
    // every mount holding a volatile or persistent path is mounted (RequiresMountsFor).
    'After=systemd-remount-fs.service systemd-journald.socket local-fs-pre.target',
    // Before anything that reads or writes the overlaid directories during boot.
    'Before=local-fs.target systemd-journal-flush.service systemd-random-seed.service systemd-tmpfiles-setup.service systemd-machine-id-commit.service umount.target',
    'Conflicts=umount.target',
    `RequiresMountsFor=${[...config.volatile, ...config.persistent].join(' ')}`,
    `ConditionKernelCommandLine=!${DISABLE_CMDLINE}`,
    '',
    '[Service]',
    'Type=oneshot',
    'RemainAfterExit=yes',
    `ExecStart=${OVERLAY_SCRIPT}`,
    // systemd creates the state dir (below /run, validated) without starting a process, and
    // keeps it when the unit stops: its markers are what make a restart in the same boot a no-op.
    // Also one empty directory per overlay: the boot script's tar pair copies them as the work
    // directories, so no mkdir process is needed (see boot-script.ts).
    `RuntimeDirectory=${runtimeDirectories(config).join(' ')}`,
    'RuntimeDirectoryMode=0700',
    'RuntimeDirectoryPreserve=yes',
    // The script logs to stderr under systemd: tag it like logger would.
    'SyslogIdentifier=noderepair-overlay',
    // local-fs.target, and so nearly every unit of the boot, waits for this one, while PID 1,
    // udevd, modprobe@ and the like run beside it. Measured in the VM test (one emulated CPU):
    // the unit used ~0.4 s of CPU but took 1.6-2.7 s; at nice -20 it took 0.6-0.85 s and the boot
    // was no longer. Nice, not a cgroup CPU weight: a weight turns the cpu controller on for
    // every service in system.slice for good (it stays on while this unit is active), changing
    // how kubelet and containerd share the CPU; a nice value leaves with the script's processes.
    // The script is short and loops over nothing unbounded: it cannot starve the boot.
    `Nice=${NICE}`,
    '',
    '[Install]',
    'WantedBy=local-fs.target',
    '',
  ].join('\n');
}

/**
 * When /etc/machine-id is bound back from the disk it is a mount point, and
 * systemd-machine-id-commit.service (meant for a transient tmpfs machine-id) would try to
 * commit it, refuse because the mount is not a tmpfs, and fail the boot. The id is already on
 * the disk, so skip the commit whenever the overlay has been applied.
 */
export function machineIdCommitDropIn(config: OverlayConfig): string {
  return [
    `# ${GENERATED_BY}`,
    '# /etc/machine-id is bound from the disk by noderepair-overlay.service: already committed.',
    '[Unit]',
    `ConditionPathExists=!${config.stateDir}/applied`,
    '',
  ].join('\n');
}
