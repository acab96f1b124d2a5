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

    it('stages the volatile directories holding persistent paths, before any overlay, and binds the paths back after', () => {
      expect(boundPaths(c)).toEqual(['/etc/kubernetes', '/etc/machine-id']);
      expect(calls('  if keep')).toEqual(["  if keep p0 '/etc/kubernetes'; then need=1; fi", "  if keep p1 '/etc/machine-id'; then need=1; fi"]);
      // Only /etc holds one: /usr is not staged. Private, so the overlay on /etc does not show there.
      expect(script).toContain(`if [ -n "$need" ]; then add '/etc' "$UPPER_FS/lower/v0" none rbind,rprivate,X-mount.mkdir; fi`);
      expect(script).not.toContain(`add '/usr' `);
      expect(calls('overlay')).toEqual(["overlay v0 '/etc'", "overlay v1 '/usr'"]);
      expect(calls('bind_back')).toEqual([
        `bind_back p0 '/etc/kubernetes' "$UPPER_FS/lower/v0"'/kubernetes'`,
        `bind_back p1 '/etc/machine-id' "$UPPER_FS/lower/v0"'/machine-id'`,
      ]);
      const last = (s: string) => script.lastIndexOf(s);
      const stageBatch = script.indexOf('  mount_batch "mounting the tmpfs or staging');
      const overlayBatch = script.indexOf('mount_batch "mounting the overlays');
      expect(last("add '/etc' ")).toBeLessThan(stageBatch);
      expect(stageBatch).toBeLessThan(script.indexOf('overlay v0 '));
      expect(last('overlay v1 ')).toBeLessThan(script.indexOf('bind_back p0 '));
      expect(last('bind_back p1 ')).toBeLessThan(overlayBatch);
      expect(overlayBatch).toBeLessThan(script.indexOf('umount -l "$UPPER_FS"'));
    });

    it('starts five commands at most, whatever the number of directories: mount, tar, tar, mount, umount', () => {
      const code = script.split('\n').filter((l) => !l.trimStart().startsWith('#') && !l.startsWith('for tool in '));
      // A command word outside double quotes (log and die messages may name commands).
      const runs = (cmd: string) => code.filter((l) => new RegExp(`(^|[\\s;&|(])${cmd}\\s`).test(l.replace(/"[^"]*"/g, '""')));
      // mount only in mount_batch (called once per step, two steps), umount once.
      expect(runs('mount')).toEqual(['  if [ -n "$BATCH" ]; then mount -a -T "$FSTAB" || die "$1"; fi']);
      expect(code.filter((l) => l.trimStart().startsWith('mount_batch '))).toHaveLength(2);
      // mkdir only for runs by hand (the state dir and the work directories' sources), each
      // behind a test of what the unit's RuntimeDirectory= already created.
      expect(runs('mkdir')).toEqual(['  (umask 077 && mkdir -p "$STATE_DIR")', '    (umask 077 && mkdir -p $MISSING)']);
      expect(script).toContain('  [ -d "$STATE_DIR/work/$1" ] || MISSING="$MISSING $STATE_DIR/work/$1"');
      // Upper and work directories: one tar pair copies the covered directories' own attributes
      // and the empty work directories' sources.
      expect(runs('tar')).toEqual([
        `  tar -C / --no-recursion --numeric-owner --transform 's,^,layers/,' -cf "$STATE_DIR/layers.tar" $DIRS ||`,
        '  tar -C "$UPPER_FS" --numeric-owner -xpf "$STATE_DIR/layers.tar" ||',
      ]);
      expect(script).toContain('  OVERLAYS="$OVERLAYS $2" DIRS="$DIRS ${2#/} ${STATE_DIR#/}/work/$1"');
      expect(runs('umount')).toEqual(['  umount -l "$UPPER_FS"']);
      expect(fileAt(c, '/etc/systemd/system/noderepair-overlay.service')).toContain(
        'RuntimeDirectory=noderepair-overlay noderepair-overlay/work noderepair-overlay/work/v0 noderepair-overlay/work/v1\nRuntimeDirectoryMode=0700\nRuntimeDirectoryPreserve=yes\n',
      );
    });

    it('mounts one overlay per directory with its own upper/work pair and the lower-changing features off', () => {
      expect(script).toContain('"lowerdir=$2,upperdir=$LAYERS$2,workdir=$LAYERS$STATE_DIR/work/$1,index=off,metacopy=off,redirect_dir=off"');
      expect(script).toContain('add noderepair-overlay "$2" overlay');
    });

    it('size-limits the tmpfs', () => {
      expect(script).toContain("TMPFS_SIZE='512M'");
      expect(script).toContain('add noderepair-overlay "$UPPER_FS" tmpfs "mode=0700,size=$TMPFS_SIZE,private,X-mount.mkdir"');
    });

    it('never puts upper layers on anything but its tmpfs', () => {
      expect(script).toContain('[ -n "$TMPFS_UP" ] || die "the tmpfs $UPPER_FS is not mounted; not overlaying"');
    });

    it('hides the upper layers with a lazy unmount and never removes them', () => {
      expect(script).toContain('umount -l "$UPPER_FS"');
      const code = script.split('\n').filter((l) => !l.trimStart().startsWith('#'));
      expect(code.filter((l) => /(^|[\s;&|(])rm\s/.test(l))).toEqual([]);
    });

    it('is idempotent by marker and by overlay check', () => {
      expect(script).toContain('if [ -e "$STATE_DIR/applied" ]; then');
      expect(script).toContain('if overlaid "$2"; then');
      expect(script).toContain('case " $rest " in *" - overlay noderepair-overlay "*) OURS="$OURS$mp " ;; esac');
    });

    it('logs to the journal: stderr under systemd (tagged by the unit), logger when run by hand', () => {
      expect(script).toContain('logger -t "$TAG"');
      expect(fileAt(c, '/etc/systemd/system/noderepair-overlay.service')).toContain('SyslogIdentifier=noderepair-overlay\n');
    });

    it('runs first while the system starts up: everything after local-fs.target waits for it', () => {
      expect(fileAt(c, '/etc/systemd/system/noderepair-overlay.service')).toContain('\nNice=-20\n');
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
