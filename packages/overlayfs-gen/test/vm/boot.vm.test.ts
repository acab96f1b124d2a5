// Boots the generated output for real: a Debian systemd VM under qemu (TCG), the cloud-init
// snippet applied the way cloud-init applies it (write_files, then runcmd, after "kubeadm"),
// then reboots to prove volatile writes vanish and persistent ones stay, and hangs and kills
// a dummy service to prove the health monitor and the Restart=always drop-in bring it back.
// Prints the time the overlay step adds to boot as one JSON line for the benchmark record.
import { either } from 'fp-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudInit, decodeConfig, generate, type HealthMonitor } from '../../src/index.js';
import { applyCloudConfig, ensureImage, parseStartup, Vm } from '@noderepair/vm';
import { countDescendants } from './exec-trace.js';
import { DUMMY_FILES, DUMMY_LINKS } from './dummy-service.js';

const BOOT_TIMEOUT_MS = 10 * 60_000;
/** TCG on a shared machine: scheduling noise on top of every configured bound. */
const TCG_SLACK_S = 30;

const dummyMonitor = {
  name: 'dummy',
  unit: 'dummy.service',
  check: { type: 'exec', command: ['/usr/local/bin/dummy-alive'] },
  intervalSeconds: 2,
  timeoutSeconds: 5,
  failureThreshold: 2,
  bootGraceSeconds: 10,
  killGraceSeconds: 3,
  restartSec: 1,
  backoff: { initialSeconds: 5, maxSeconds: 20 },
  restartBudget: { maxRestarts: 5, windowSeconds: 600 },
} as const;

const config = decodeConfig({ tmpfsSize: '128M', healthMonitors: [dummyMonitor] });
if (either.isLeft(config)) throw new Error(JSON.stringify(config.left));
const monitor = config.right.healthMonitors[0] as HealthMonitor;


let vm: Vm;
let bootId: string;
const timings: Record<string, number> = {};

/** Userspace boot time in ms, once the boot has finished. */
async function userspaceBootMs(): Promise<number> {
  await vm.exec('systemctl is-system-running --wait', 300_000);
  return parseStartup(await vm.ok('systemd-analyze time')).userspaceMs;
}

async function mainPid(): Promise<number> {
  return Number((await vm.ok('systemctl show -p MainPID --value dummy.service')).trim());
}

/** Poll until the dummy service runs under a new main PID; returns seconds waited. */
async function waitForNewPid(old: number, limitS: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const pid = await mainPid();
    const active = (await vm.exec('systemctl is-active dummy.service')).out.trim();
    if (pid > 0 && pid !== old && active === 'active') return (Date.now() - start) / 1000;
    if ((Date.now() - start) / 1000 > limitS) {
      const log = await vm.exec('journalctl -b --no-pager -u dummy.service -u noderepair-health-dummy.service | tail -40');
      throw new Error(`dummy.service not restarted within ${limitS}s (pid ${pid}, ${active})\n${log.out}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  const image = ensureImage({ files: DUMMY_FILES, links: DUMMY_LINKS });
  vm = new Vm(image);
  await vm.start();
  bootId = await vm.waitForBoot(undefined, BOOT_TIMEOUT_MS);
  timings.userspaceMsWithoutOverlay = await userspaceBootMs();

  // What kubeadm leaves behind before postKubeadmCommands / runcmd run.
  await vm.ok('mkdir -p /etc/kubernetes && echo "kubeadm output" > /etc/kubernetes/kubelet.conf');

  // Apply the cloud-init snippet as cloud-init does: write_files, then runcmd in order.
  const rendered = cloudInit(generate(config.right));
  if (either.isLeft(rendered)) throw new Error(rendered.left);
  await applyCloudConfig(vm, rendered.right);

  bootId = await vm.reboot(bootId, BOOT_TIMEOUT_MS);
  timings.userspaceMsWithOverlay = await userspaceBootMs();
}, 20 * 60_000);

afterAll(async () => {
  await vm?.stop();
  // One JSON line for the benchmark record. process.stdout, not console: vitest's JSON
  // reporter swallows console output.
  if (timings.overlayUnitMs !== undefined) {
    process.stdout.write(`${JSON.stringify({ benchmark: 'overlayfs-gen/vm', ...timings })}\n`);
  }
});

describe('generated overlay and health monitor in a booted VM', () => {
  it('the overlay unit ran at boot and mounted our overlays', async () => {
    expect((await vm.exec('systemctl is-active noderepair-overlay.service')).out.trim()).toBe('active');
    for (const dir of ['/etc', '/usr', '/home', '/opt', '/root', '/srv']) {
      expect((await vm.ok(`findmnt -rn -o SOURCE,FSTYPE -M ${dir} | tail -n 1`)).trim()).toBe('noderepair-overlay overlay');
    }
    // Each overlay's root shows the covered directory's own mode and owner (its upper directory
    // is a copy of it): /root stays 0700, not the 0755 of a plain mkdir.
    expect((await vm.ok('stat -c "%a %U:%G" /root /etc')).trim().split('\n')).toEqual(['700 root:root', '755 root:root']);
    // The upper layers are hidden: nothing mounted at the tmpfs mount point any more.
    expect((await vm.exec('mountpoint -q /run/noderepair-overlay/tmpfs')).rc).not.toBe(0);
    expect((await vm.ok('journalctl -b --no-pager -t noderepair-overlay')).trim()).toContain('volatile directories overlaid with tmpfs');
    // Nothing else broke: e.g. systemd-machine-id-commit must not trip over the bound machine-id.
    expect((await vm.ok('systemctl --failed --no-legend --plain')).trim()).toBe('');
    // systemctl show prints properties in its own order: read them by name.
    const props = Object.fromEntries(
      (await vm.ok('systemctl show -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic -p CPUUsageNSec noderepair-overlay.service'))
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), Number(l.slice(l.indexOf('=') + 1))]),
    ) as Record<string, number>;
    const [exit, enter] = [props['InactiveExitTimestampMonotonic'] ?? 0, props['ActiveEnterTimestampMonotonic'] ?? 0];
    expect(enter).toBeGreaterThan(exit);
    timings.overlayUnitMs = Math.round((enter - exit) / 1000);
    // The CPU the unit's cgroup used (script and every command it started): its own work, apart
    // from the time it waited for a CPU that the units started beside it were using.
    const cpuNs = props['CPUUsageNSec'] ?? Number.NaN;
    expect(cpuNs).toBeGreaterThan(0);
    timings.overlayCpuMs = Math.round(cpuNs / 1e6);
    // The step as a share of the userspace boot it ran in (the target is under 5 %).
    timings.overlaySharePct = Math.round((1000 * timings.overlayUnitMs) / (timings.userspaceMsWithOverlay ?? Number.NaN)) / 10;
  });

  it('the overlay script runs first (nice -20) and leaves the cgroup controllers as they were', async () => {
    // systemd parsed the setting (a misspelt one shows the default, 0).
    expect((await vm.ok('systemctl show -p Nice --value noderepair-overlay.service')).trim()).toBe('-20');
    // No CPU weight: the cpu controller stays off in system.slice, as on this image without us,
    // so kubelet and containerd keep sharing the CPU the way the node's owner set up.
    expect((await vm.ok('cat /sys/fs/cgroup/system.slice/cgroup.subtree_control')).trim().split(' ')).not.toContain('cpu');
  });

  it('the kernel trace shows the processes the overlay script started at boot', async () => {
    const pid = Number((await vm.ok('systemctl show -p ExecMainPID --value noderepair-overlay.service')).trim());
    expect(pid).toBeGreaterThan(1);
    await vm.ok('mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing');
    const counts = countDescendants(await vm.ok('grep -E "sched_process_(fork|exec):" /sys/kernel/tracing/trace'), pid);
    // The script's own start is in the buffer, so none of its children was overwritten.
    expect(counts.rootSeen).toBe(true);
    // At least the tmpfs mount and an overlay mount are external commands: a count of 0 would
    // mean the trace missed them.
    expect(counts.execs).toBeGreaterThanOrEqual(2);
    timings.overlayExecs = counts.execs;
    timings.overlayForks = counts.forks;
    // Each command with the ms after the unit forked the script: where the unit's time goes.
    const at = counts.commands.map((c, i) => `${c}@${counts.execAtMs[i] ?? Number.NaN}ms`);
    process.stdout.write(`overlay script execs: script@${counts.rootExecAtMs}ms ${at.join(' ')}\n`);
  });

  it('volatile writes vanish at reboot; persistent ones are kept', async () => {
    await vm.ok(
      [
        'echo volatile > /etc/noderepair-volatile',
        'echo volatile > /usr/local/noderepair-volatile',
        'echo changed > /etc/hostname',
        'echo persistent > /etc/kubernetes/noderepair-persistent',
        'echo persistent > /var/log/noderepair-persistent',
        'sync',
      ].join(' && '),
    );
    const machineId = (await vm.ok('cat /etc/machine-id')).trim();
    bootId = await vm.reboot(bootId, BOOT_TIMEOUT_MS);
    expect((await vm.exec('test -e /etc/noderepair-volatile')).rc).not.toBe(0);
    expect((await vm.exec('test -e /usr/local/noderepair-volatile')).rc).not.toBe(0);
    expect((await vm.ok('cat /etc/hostname')).trim()).toBe('noderepair-vm');
    expect((await vm.ok('cat /etc/kubernetes/noderepair-persistent')).trim()).toBe('persistent');
    expect((await vm.ok('cat /etc/kubernetes/kubelet.conf')).trim()).toBe('kubeadm output');
    expect((await vm.ok('cat /var/log/noderepair-persistent')).trim()).toBe('persistent');
    expect((await vm.ok('cat /etc/machine-id')).trim()).toBe(machineId);
  });

  it('the watched service gets Restart=always from the drop-in and comes back after SIGKILL', async () => {
    expect((await vm.ok('systemctl show -p Restart --value dummy.service')).trim()).toBe('always');
    const pid = await mainPid();
    expect(pid).toBeGreaterThan(0);
    await vm.ok(`kill -KILL ${pid}`);
    const waited = await waitForNewPid(pid, monitor.restartSec + TCG_SLACK_S);
    timings.killRestartS = waited;
  });

  it('the health monitor kills a hung (SIGSTOPped) service and it restarts within the configured bounds', async () => {
    // Let the monitor's boot grace pass so it is checking.
    await vm.ok(`while [ "$(cut -d. -f1 /proc/uptime)" -lt ${monitor.bootGraceSeconds + 2} ]; do sleep 1; done`, 120_000);
    const pid = await mainPid();
    await vm.ok(`kill -STOP ${pid}`);
    // Heartbeat staleness (4 s + 1 s tick), then `threshold` failed checks, then SIGTERM is
    // ignored by the stopped process for killGrace seconds, SIGKILL, RestartSec.
    const bound = 5 + monitor.failureThreshold * (monitor.intervalSeconds + monitor.timeoutSeconds) + monitor.killGraceSeconds + monitor.restartSec;
    const waited = await waitForNewPid(pid, bound + TCG_SLACK_S);
    timings.hangRestartS = waited;
    const log = await vm.ok('journalctl -b --no-pager -t noderepair-health-dummy');
    expect(log).toContain('dummy.service health check failed (2/2)');
    expect(log).toContain(`killing main process ${pid} of dummy.service (SIGTERM)`);
    expect(log).toContain(`main process ${pid} of dummy.service still running after 3s; sending SIGKILL`);
    timings.hangBoundS = bound;
  });
});
