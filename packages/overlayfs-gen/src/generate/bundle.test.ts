import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { decodeConfig, type OverlayConfig } from '../config/index.js';
import { generate } from './bundle.js';
import { boundPaths } from './boot-script.js';

function config(raw: unknown): OverlayConfig {
  const r = decodeConfig(raw);
  if (either.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
}

const fileAt = (c: OverlayConfig, path: string): string => {
  const f = generate(c).files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path}`);
  return f.content;
};

describe('generate', () => {
  const c = config({
    volatile: ['/etc', '/usr'],
    persistent: ['/etc/kubernetes', '/etc/machine-id', '/var/log'],
    tmpfsSize: '512M',
    healthMonitors: [
      { name: 'kubelet', unit: 'kubelet.service', check: { type: 'http', url: 'http://127.0.0.1:10248/healthz' }, failureThreshold: 4 },
      { name: 'runtime', unit: 'containerd.service', check: { type: 'crictl', endpoint: 'unix:///run/containerd/containerd.sock' } },
    ],
  });
  const bundle = generate(c);

  it('lists the files with their modes', () => {
    expect(bundle.files.map((f) => [f.path, f.mode.toString(8)])).toEqual([
      ['/usr/local/lib/noderepair/overlay-boot.sh', '755'],
      ['/etc/systemd/system/noderepair-overlay.service', '644'],
      ['/etc/systemd/system/systemd-machine-id-commit.service.d/50-noderepair-overlay.conf', '644'],
      ['/usr/local/lib/noderepair/health-monitor-kubelet.sh', '755'],
      ['/etc/systemd/system/noderepair-health-kubelet.service', '644'],
      ['/etc/systemd/system/kubelet.service.d/50-noderepair-restart.conf', '644'],
      ['/usr/local/lib/noderepair/health-monitor-runtime.sh', '755'],
      ['/etc/systemd/system/noderepair-health-runtime.service', '644'],
      ['/etc/systemd/system/containerd.service.d/50-noderepair-restart.conf', '644'],
    ]);
  });

  it('enables the overlay for the next boot and starts the monitors now', () => {
    expect(bundle.commands).toEqual([
      'systemctl daemon-reload',
      'systemctl enable noderepair-overlay.service',
      'systemctl enable --now noderepair-health-kubelet.service noderepair-health-runtime.service',
    ]);
  });

  it('is deterministic', () => {
    expect(generate(c)).toEqual(bundle);
  });

  describe('boot script', () => {
    const script = fileAt(c, '/usr/local/lib/noderepair/overlay-boot.sh');
    const calls = (fn: string) => script.split('\n').filter((l) => l.startsWith(`${fn} `));

    it('is POSIX sh with set -eu', () => {
      expect(script.startsWith('#!/bin/sh\n')).toBe(true);
      expect(script).toContain('\nset -eu\n');
    });

    it('stages only persistent paths inside a volatile directory, before any overlay, and binds them back after', () => {
      expect(boundPaths(c)).toEqual(['/etc/kubernetes', '/etc/machine-id']);
      expect(calls('stage')).toEqual(["stage p0 '/etc/kubernetes'", "stage p1 '/etc/machine-id'"]);
      expect(calls('overlay')).toEqual(["overlay v0 '/etc'", "overlay v1 '/usr'"]);
      expect(calls('bind_back')).toEqual(["bind_back p0 '/etc/kubernetes'", "bind_back p1 '/etc/machine-id'"]);
      const last = (s: string) => script.lastIndexOf(s);
      expect(last("stage p1 ")).toBeLessThan(script.indexOf("overlay v0 "));
      expect(last("overlay v1 ")).toBeLessThan(script.indexOf("bind_back p0 "));
      expect(last("bind_back p1 ")).toBeLessThan(script.indexOf('umount -l "$UPPER_FS"'));
    });

    it('mounts one overlay per directory with its own upper/work pair and the lower-changing features off', () => {
      expect(script).toContain('-o "lowerdir=$dir,upperdir=$upper,workdir=$work,index=off,metacopy=off,redirect_dir=off" "$dir"');
      expect(script).toContain('upper="$UPPER_FS/upper/$1" work="$UPPER_FS/work/$1"');
    });

    it('size-limits the tmpfs', () => {
      expect(script).toContain("TMPFS_SIZE='512M'");
      expect(script).toContain('mount --make-private -t tmpfs -o "mode=0700,size=$TMPFS_SIZE"');
    });

    it('hides the upper layers with a lazy unmount and never removes them', () => {
      expect(script).toContain('umount -l "$UPPER_FS"');
      const code = script.split('\n').filter((l) => !l.trimStart().startsWith('#'));
      expect(code.filter((l) => /(^|[\s;&|(])rm\s/.test(l))).toEqual([]);
    });

    it('is idempotent by marker and by overlay check', () => {
      expect(script).toContain('if [ -e "$STATE_DIR/applied" ]; then');
      expect(script).toContain('if mounted "$dir" noderepair-overlay; then');
    });

    it('logs to the journal: stderr under systemd (tagged by the unit), logger when run by hand', () => {
      expect(script).toContain('logger -t "$TAG"');
      expect(fileAt(c, '/etc/systemd/system/noderepair-overlay.service')).toContain('SyslogIdentifier=noderepair-overlay\n');
    });

    it('says which persistent paths need no binding', () => {
      expect(script).toContain('# Outside every volatile directory, so already persistent: /var/log');
    });
  });

  describe('overlay unit', () => {
    const unit = fileAt(c, '/etc/systemd/system/noderepair-overlay.service');
    it('runs early, inside local-fs.target, after the root is writable', () => {
      expect(unit).toContain('DefaultDependencies=no\n');
      expect(unit).toMatch(/^After=.*systemd-remount-fs\.service/m);
      expect(unit).toMatch(/^Before=local-fs\.target /m);
      expect(unit).toContain('WantedBy=local-fs.target');
      expect(unit).toContain('Type=oneshot\nRemainAfterExit=yes');
      expect(unit).toContain('RequiresMountsFor=/etc /usr /etc/kubernetes /etc/machine-id /var/log\n');
      expect(unit).toContain('ConditionKernelCommandLine=!noderepair.overlay=off');
    });
  });

  describe('health monitors', () => {
    const kubelet = fileAt(c, '/usr/local/lib/noderepair/health-monitor-kubelet.sh');
    const runtime = fileAt(c, '/usr/local/lib/noderepair/health-monitor-runtime.sh');

    it('bakes in the thresholds', () => {
      expect(kubelet).toContain('THRESHOLD=4\n');
      expect(kubelet).toContain('BOOT_GRACE=120\n');
      expect(kubelet).toContain('BUDGET_MAX=3\nBUDGET_WINDOW=3600\nBACKOFF_INITIAL=60\nBACKOFF_MAX=600\n');
    });

    it('checks the kubelet healthz with a timeout', () => {
      expect(kubelet).toContain(`timeout -k 5 "$TIMEOUT" curl -fsS -m "$TIMEOUT" -o /dev/null 'http://127.0.0.1:10248/healthz'`);
    });

    it('runs crictl with an explicit runtime endpoint', () => {
      expect(runtime).toContain(`crictl --runtime-endpoint 'unix:///run/containerd/containerd.sock' --timeout "\${TIMEOUT}s" pods`);
    });

    it('kills only the main process, SIGTERM then SIGKILL', () => {
      expect(runtime).toContain('systemctl kill --kill-who=main --signal=SIGTERM "$UNIT"');
      expect(runtime).toContain('systemctl kill --kill-who=main --signal=SIGKILL "$UNIT"');
      expect(runtime).not.toMatch(/systemctl kill (?!--kill-who=main)/);
    });

    it('installs a Restart=always drop-in for the watched unit', () => {
      const dropIn = fileAt(c, '/etc/systemd/system/containerd.service.d/50-noderepair-restart.conf');
      expect(dropIn).toContain('[Service]\nRestart=always\nRestartSec=5\n');
      expect(dropIn).toContain('StartLimitIntervalSec=0');
    });

    it('quotes exec check arguments', () => {
      const e = config({ healthMonitors: [{ name: 'x', unit: 'x.service', check: { type: 'exec', command: ['/usr/bin/check', 'a b;c', '--flag'] } }] });
      expect(fileAt(e, '/usr/local/lib/noderepair/health-monitor-x.sh')).toContain(`timeout -k 5 "$TIMEOUT" '/usr/bin/check' 'a b;c' '--flag'\n`);
    });
  });

  it('keeps systemd-machine-id-commit from failing on the bound machine-id', () => {
    expect(fileAt(c, '/etc/systemd/system/systemd-machine-id-commit.service.d/50-noderepair-overlay.conf')).toContain(
      'ConditionPathExists=!/run/noderepair-overlay/applied\n',
    );
    const noMachineId = generate(config({ volatile: ['/etc'], persistent: ['/etc/kubernetes'] }));
    expect(noMachineId.files.some((f) => f.path.includes('machine-id-commit'))).toBe(false);
  });

  it('generates no monitor files when monitoring is off', () => {
    const b = generate(config({ persistent: [], healthMonitors: [] }));
    expect(b.files.map((f) => f.path)).toEqual(['/usr/local/lib/noderepair/overlay-boot.sh', '/etc/systemd/system/noderepair-overlay.service']);
    expect(b.commands).toEqual(['systemctl daemon-reload', 'systemctl enable noderepair-overlay.service']);
  });
});
