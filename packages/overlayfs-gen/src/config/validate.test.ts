import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { decodeConfig, parseConfig } from './load.js';
import type { ConfigError } from './errors.js';
import { DEFAULT_PERSISTENT, DEFAULT_VOLATILE } from './defaults.js';

function errorsOf(raw: unknown): readonly ConfigError[] {
  const r = decodeConfig(raw);
  return either.isLeft(r) ? r.left : [];
}

const ok = { volatile: ['/etc'], persistent: ['/etc/kubernetes'] };

describe('path rules', () => {
  // [description, raw config, field, value, rule]
  const table: [string, unknown, string, string | undefined, string][] = [
    ['relative path', { volatile: ['etc'] }, 'volatile[0]', 'etc', 'absolute'],
    ['empty path', { volatile: [''] }, 'volatile[0]', '', 'non-empty'],
    ['/ itself', { volatile: ['/'] }, 'volatile[0]', '/', 'forbidden'],
    ['/proc', { volatile: ['/proc'] }, 'volatile[0]', '/proc', 'forbidden'],
    ['below /sys', { persistent: ['/sys/fs/cgroup'] }, 'persistent[0]', '/sys/fs/cgroup', 'forbidden'],
    ['/dev', { volatile: ['/dev'] }, 'volatile[0]', '/dev', 'forbidden'],
    ['/run', { volatile: ['/run'] }, 'volatile[0]', '/run', 'forbidden'],
    ['/boot', { volatile: ['/boot'] }, 'volatile[0]', '/boot', 'forbidden'],
    ['..', { volatile: ['/etc/../usr'] }, 'volatile[0]', '/etc/../usr', 'no-dotdot'],
    ['trailing slash', { volatile: ['/etc/'] }, 'volatile[0]', '/etc/', 'normalised'],
    ['double slash', { volatile: ['//etc'] }, 'volatile[0]', '//etc', 'normalised'],
    ['dot component', { volatile: ['/etc/./x'] }, 'volatile[0]', '/etc/./x', 'normalised'],
    ['command substitution', { volatile: ['/etc/$(reboot)'] }, 'volatile[0]', '/etc/$(reboot)', 'safe-characters'],
    ['backtick', { persistent: ['/etc/`id`'] }, 'persistent[0]', '/etc/`id`', 'safe-characters'],
    ['single quote', { volatile: ["/etc/a'b"] }, 'volatile[0]', "/etc/a'b", 'safe-characters'],
    ['space', { volatile: ['/my dir'] }, 'volatile[0]', '/my dir', 'safe-characters'],
    ['newline', { volatile: ['/etc\nx'] }, 'volatile[0]', '/etc\nx', 'safe-characters'],
    ['comma (overlay option separator)', { volatile: ['/a,b'] }, 'volatile[0]', '/a,b', 'safe-characters'],
    ['colon (lowerdir separator)', { volatile: ['/a:b'] }, 'volatile[0]', '/a:b', 'safe-characters'],
    ['percent (systemd specifier)', { volatile: ['/a%n'] }, 'volatile[0]', '/a%n', 'safe-characters'],
    ['too long', { volatile: [`/${'a'.repeat(1100)}`] }, 'volatile[0]', `/${'a'.repeat(1100)}`, 'too-long'],
    ['duplicate volatile', { volatile: ['/etc', '/etc'] }, 'volatile[1]', '/etc', 'duplicate'],
    ['volatile also persistent', { volatile: ['/etc'], persistent: ['/etc'] }, 'persistent[0]', '/etc', 'duplicate'],
    ['volatile inside persistent', { volatile: ['/var/lib/x'], persistent: ['/var/lib'] }, 'volatile[0]', '/var/lib/x', 'volatile-inside-persistent'],
    ['volatile inside volatile', { volatile: ['/usr', '/usr/local'], persistent: [] }, 'volatile[1]', '/usr/local', 'volatile-inside-volatile'],
    ['persistent inside persistent', { persistent: ['/etc/kubernetes', '/etc/kubernetes/pki'] }, 'persistent[1]', '/etc/kubernetes/pki', 'persistent-inside-persistent'],
    ['no volatile dirs', { volatile: [] }, 'volatile', undefined, 'non-empty'],
    ['state dir outside /run', { stateDir: '/var/tmp/x' }, 'stateDir', '/var/tmp/x', 'state-dir-under-run'],
    ['state dir /run itself', { stateDir: '/run' }, 'stateDir', '/run', 'state-dir-under-run'],
    ['tmpfs size with injection', { tmpfsSize: '1G,exec' }, 'tmpfsSize', '1G,exec', 'tmpfs-size'],
    ['tmpfs size over 100%', { tmpfsSize: '101%' }, 'tmpfsSize', '101%', 'tmpfs-size'],
    ['runtime unit not a service', { containerRuntime: { unit: 'containerd' } }, 'containerRuntime.unit', 'containerd', 'unit-name'],
    ['runtime unit injection', { containerRuntime: { unit: 'c.service; reboot' } }, 'containerRuntime.unit', 'c.service; reboot', 'unit-name'],
    ['runtime endpoint not a URL', { containerRuntime: { endpoint: '/run/containerd.sock' } }, 'containerRuntime.endpoint', '/run/containerd.sock', 'endpoint'],
    ['runtime endpoint relative socket', { containerRuntime: { endpoint: 'unix://run/c.sock' } }, 'containerRuntime.endpoint', 'unix://run/c.sock', 'endpoint-absolute'],
  ];
  it.each(table)('%s', (_d, raw, field, value, rule) => {
    const errors = errorsOf({ ...ok, ...(raw as object) });
    expect(errors).toContainEqual(expect.objectContaining({ field, rule, ...(value === undefined ? {} : { value }) }));
  });

  it('accepts the defaults', () => {
    const r = parseConfig('');
    expect(either.isRight(r)).toBe(true);
    if (either.isRight(r)) {
      expect(r.right.volatile).toEqual(DEFAULT_VOLATILE);
      expect(r.right.persistent).toEqual(DEFAULT_PERSISTENT);
      expect(r.right.healthMonitors.map((m) => m.name)).toEqual(['kubelet', 'container-runtime']);
    }
  });

  it('does not treat a string prefix as containment', () => {
    // /etc-extra is not inside /etc; /usr/local2 is not inside /usr/local.
    expect(errorsOf({ volatile: ['/etc', '/etc-extra'], persistent: ['/etc-extra2'] })).toEqual([]);
  });

  it('reports every problem, not only the first', () => {
    const errors = errorsOf({ volatile: ['etc', '/proc', '/a b'], tmpfsSize: 'lots' });
    expect(errors.map((e) => e.rule)).toEqual(['absolute', 'forbidden', 'safe-characters', 'tmpfs-size']);
  });
});

describe('defaults and warnings (issue 47)', () => {
  const warningsOf = (raw: unknown): readonly string[] | undefined => {
    const r = decodeConfig(raw);
    if (either.isLeft(r)) throw new Error(`unexpected errors: ${JSON.stringify(r.left)}`);
    return r.right.warnings;
  };

  it('an error about an entry of the default persistent list says it came from the defaults', () => {
    const errors = errorsOf({ volatile: ['/etc', '/var/lib/kubelet'] });
    expect(errors).toEqual([
      {
        field: 'persistent[2]',
        value: '/var/lib/kubelet',
        rule: 'duplicate',
        message:
          'is listed twice (first as volatile[1]); this entry is from the default persistent list, used because the config sets no persistent: set persistent explicitly',
      },
    ]);
    // A persistent list the user wrote gets no such note.
    expect(errorsOf({ volatile: ['/etc'], persistent: ['/etc'] })[0]?.message).toBe('is listed twice (first as volatile[0])');
  });

  it('warns that an overlaid /var/lib/kubelet loses the kubelet state at every boot', () => {
    const warning =
      'volatile[1] "/var/lib/kubelet": overlays /var/lib/kubelet, so the kubelet\'s state (kubeadm\'s config.yaml, kubeadm-flags.env, pki) is lost at every boot; add /var/lib/kubelet to persistent unless that is what you want [rule: kubelet-state-volatile]';
    expect(warningsOf({ volatile: ['/etc', '/var/lib/kubelet'], persistent: [] })).toEqual([warning]);
    expect(warningsOf({ volatile: ['/var'], persistent: ['/var/log'] })?.[0]).toMatch(/^volatile\[0\] "\/var": overlays \/var\/lib\/kubelet/);
    expect(warningsOf({ volatile: ['/var'], persistent: ['/var/lib/kubelet'] })).toBeUndefined();
  });

  it('warns that a persistent path under no volatile directory does nothing', () => {
    expect(warningsOf({ volatile: ['/etc'], persistent: ['/etc/kubernetes', '/srv/data'] })).toEqual([
      'persistent[1] "/srv/data": is under no volatile directory, so it is on disk anyway and this entry does nothing [rule: persistent-outside-volatile]',
    ]);
    // Entries of the default list are kept outside the volatile set on purpose (for a later volatile /var).
    expect(warningsOf({ volatile: ['/etc'], persistent: ['/etc/kubernetes', '/var/lib/kubelet', '/var/log'] })).toBeUndefined();
  });

  it('no warnings for the defaults (their entries outside the default volatile set are there for a volatile /var)', () => {
    expect(warningsOf({})).toBeUndefined();
    expect(warningsOf({ volatile: ['/etc', '/var'] })).toBeUndefined();
  });
});

describe('health monitor rules', () => {
  const m = { name: 'kubelet', unit: 'kubelet.service', check: { type: 'http', url: 'http://127.0.0.1:10248/healthz' } };
  const table: [string, object, string, string][] = [
    ['bad name', { name: 'Kubelet_1' }, 'healthMonitors[0].name', 'monitor-name'],
    ['template unit', { unit: 'getty@.service' }, 'healthMonitors[0].unit', 'unit-name'],
    ['url with query', { check: { type: 'http', url: 'http://x/healthz?a=1' } }, 'healthMonitors[0].check.url', 'http-url'],
    ['url injection', { check: { type: 'http', url: "http://x/'$(reboot)'" } }, 'healthMonitors[0].check.url', 'http-url'],
    ['crictl endpoint', { check: { type: 'crictl', endpoint: 'containerd' } }, 'healthMonitors[0].check.endpoint', 'endpoint'],
    ['exec with no program', { check: { type: 'exec', command: [] } }, 'healthMonitors[0].check.command', 'non-empty'],
    ['exec relative program', { check: { type: 'exec', command: ['check'] } }, 'healthMonitors[0].check.command[0]', 'absolute'],
    ['exec quote in argument', { check: { type: 'exec', command: ['/bin/check', "a'b"] } }, 'healthMonitors[0].check.command[1]', 'safe-characters'],
    ['exec dollar in argument', { check: { type: 'exec', command: ['/bin/check', '$HOME'] } }, 'healthMonitors[0].check.command[1]', 'safe-characters'],
    ['zero threshold', { failureThreshold: 0 }, 'healthMonitors[0].failureThreshold', 'range'],
    ['interval too long', { intervalSeconds: 7200 }, 'healthMonitors[0].intervalSeconds', 'range'],
    ['backoff max below initial', { backoff: { initialSeconds: 60, maxSeconds: 10 } }, 'healthMonitors[0].backoff.maxSeconds', 'range'],
    ['budget window too short', { restartBudget: { windowSeconds: 10 } }, 'healthMonitors[0].restartBudget.windowSeconds', 'range'],
  ];
  it.each(table)('%s', (_d, override, field, rule) => {
    expect(errorsOf({ ...ok, healthMonitors: [{ ...m, ...override }] })).toContainEqual(expect.objectContaining({ field, rule }));
  });

  it('rejects two monitors with one name or one unit', () => {
    const errors = errorsOf({ ...ok, healthMonitors: [m, m] });
    expect(errors).toContainEqual(expect.objectContaining({ field: 'healthMonitors[1].name', rule: 'duplicate' }));
    expect(errors).toContainEqual(expect.objectContaining({ field: 'healthMonitors[1].unit', rule: 'duplicate' }));
  });

  it('applies monitorDefaults to built-in monitors and lets listed monitors override them', () => {
    const builtIn = decodeConfig({ monitorDefaults: { timeoutSeconds: 5, restartBudget: { maxRestarts: 7 } } });
    expect(either.isRight(builtIn) && builtIn.right.healthMonitors.map((x) => [x.timeoutSeconds, x.restartBudget])).toEqual([
      [5, { maxRestarts: 7, windowSeconds: 3600 }],
      [5, { maxRestarts: 7, windowSeconds: 3600 }],
    ]);
    const listed = decodeConfig({ monitorDefaults: { timeoutSeconds: 5 }, healthMonitors: [{ ...m, timeoutSeconds: 9 }] });
    expect(either.isRight(listed) && listed.right.healthMonitors[0]?.timeoutSeconds).toBe(9);
  });

  it('uses the container runtime settings for the built-in runtime monitor', () => {
    const r = decodeConfig({ containerRuntime: { unit: 'crio.service', endpoint: 'unix:///var/run/crio/crio.sock' } });
    expect(either.isRight(r) && r.right.healthMonitors[1]).toMatchObject({
      unit: 'crio.service',
      check: { type: 'crictl', endpoint: 'unix:///var/run/crio/crio.sock' },
      timeoutSeconds: 60,
    });
  });

  it('accepts an empty list: no monitors', () => {
    const r = decodeConfig({ healthMonitors: [] });
    expect(either.isRight(r) && r.right.healthMonitors).toEqual([]);
  });
});
