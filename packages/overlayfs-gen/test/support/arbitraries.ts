// fast-check arbitraries for configs: valid ones (every rule satisfied by construction) and
// invalid ones (a valid config with exactly one rule broken, often by an injection attempt).
import fc from 'fast-check';

const FORBIDDEN_TOP = new Set(['proc', 'sys', 'dev', 'run', 'boot', 'var']);

export const component = fc
  .stringMatching(/^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,10}$/)
  .filter((c) => c !== '.' && c !== '..');

const topComponent = component.filter((c) => !FORBIDDEN_TOP.has(c));

const tmpfsSize = fc.oneof(
  fc.integer({ min: 1, max: 4096 }).map((n) => `${n}M`),
  fc.integer({ min: 1, max: 64 }).map((n) => `${n}G`),
  fc.integer({ min: 1, max: 100 }).map((n) => `${n}%`),
  fc.integer({ min: 1, max: 1_000_000 }).map(String),
);

const safeArg = fc.stringMatching(/^[A-Za-z0-9 ._@%+=:,/~^#!?*&;|<>(){}[\]-]{0,20}$/);

const check = fc.oneof(
  fc
    .tuple(fc.constantFrom('http', 'https'), fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,12}$/), fc.option(fc.integer({ min: 1, max: 65535 })), fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { maxLength: 3 }))
    .map(([scheme, host, port, path]) => ({
      type: 'http' as const,
      url: `${scheme}://${host}${port === null ? '' : `:${port}`}/${path.join('/')}`,
    })),
  fc.array(component, { minLength: 1, maxLength: 4 }).map((p) => ({ type: 'crictl' as const, endpoint: `unix:///${p.join('/')}` })),
  fc.tuple(fc.array(component, { minLength: 1, maxLength: 3 }), fc.array(safeArg, { maxLength: 4 })).map(([p, args]) => ({
    type: 'exec' as const,
    command: [`/${p.join('/')}`, ...args],
  })),
);

const monitorName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const unitName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,15}$/).filter((s) => !s.endsWith('@')).map((s) => `${s}.service`);

const monitor = fc.record(
  {
    name: monitorName,
    unit: unitName,
    check,
    intervalSeconds: fc.integer({ min: 1, max: 3600 }),
    timeoutSeconds: fc.integer({ min: 1, max: 600 }),
    failureThreshold: fc.integer({ min: 1, max: 100 }),
    bootGraceSeconds: fc.integer({ min: 0, max: 86400 }),
    killGraceSeconds: fc.integer({ min: 1, max: 600 }),
    restartBudget: fc.record({ maxRestarts: fc.integer({ min: 0, max: 1000 }), windowSeconds: fc.integer({ min: 60, max: 604800 }) }, { requiredKeys: [] }),
    backoff: fc.integer({ min: 0, max: 86400 }).chain((a) => fc.integer({ min: a, max: 86400 }).map((b) => ({ initialSeconds: a, maxSeconds: b }))),
    restartSec: fc.integer({ min: 0, max: 3600 }),
  },
  { requiredKeys: ['name', 'unit', 'check'] },
);

/** A raw config object that satisfies every rule. */
export const validRawConfig = fc
  .tuple(
    fc.uniqueArray(topComponent, { minLength: 1, maxLength: 4, selector: (c) => c.toLowerCase() }),
    fc.array(fc.tuple(fc.nat(), component), { maxLength: 5 }),
    fc.uniqueArray(component, { maxLength: 3 }),
    fc.option(tmpfsSize, { nil: undefined }),
    fc.option(component.map((c) => `/run/${c}`), { nil: undefined }),
    fc.option(fc.uniqueArray(monitor, { maxLength: 3, selector: (m) => m.name }), { nil: undefined }),
  )
  .map(([tops, inside, outside, size, stateDir, monitors]) => {
    const volatile = tops.map((t) => `/${t}`);
    // One level below a volatile dir, deduplicated: never nested, never equal to a volatile dir.
    const persistentInside = [...new Set(inside.map(([i, c]) => `${volatile[i % volatile.length]}/${c}`))];
    const persistent = [...persistentInside, ...outside.map((c) => `/var/${c}`)];
    // Units must be distinct too (one monitor per service).
    const seenUnits = new Set<string>();
    const healthMonitors = monitors?.filter((m) => !seenUnits.has(m.unit) && (seenUnits.add(m.unit), true));
    return {
      volatile,
      persistent,
      ...(size === undefined ? {} : { tmpfsSize: size }),
      ...(stateDir === undefined ? {} : { stateDir }),
      ...(healthMonitors === undefined ? {} : { healthMonitors }),
    };
  });

export type ValidRaw = typeof validRawConfig extends fc.Arbitrary<infer T> ? T : never;

/** Strings that must never reach a shell or a unit file. */
export const injection = fc.constantFrom(
  '$(reboot)',
  '`reboot`',
  "a'b",
  'a"b',
  'a b',
  'a\nb',
  'a;reboot',
  'a\\b',
  'a,b',
  'a:b',
  '%n',
  '${HOME}',
  'a|b',
  'a&b',
  'a*',
  '\t',
  'a\u0000b',
  'é',
);

type Breaker = (c: ValidRaw) => Record<string, unknown>;

const breakers: fc.Arbitrary<Breaker>[] = [
  injection.map((s): Breaker => (c) => ({ ...c, volatile: [...c.volatile, `/${s}`] })),
  injection.map((s): Breaker => (c) => ({ ...c, persistent: [...c.persistent, `${c.volatile[0]}/x${s}`] })),
  fc.constantFrom('etc', 'relative/path', './etc', '~/x').map((p): Breaker => (c) => ({ ...c, volatile: [...c.volatile, p] })),
  fc.constantFrom('/', '/proc', '/sys/x', '/dev', '/run', '/run/x', '/boot', '/boot/efi').map((p): Breaker => (c) => ({ ...c, volatile: [...c.volatile, p] })),
  fc.constantFrom('/etc/../x', '/a/..', '//etc', '/etc/', '/etc/./x', '/etc//x').map((p): Breaker => (c) => ({ ...c, persistent: [...c.persistent, p] })),
  fc.constant<Breaker>((c) => ({ ...c, volatile: [...c.volatile, c.volatile[0] ?? '/etc'] })),
  fc.constant<Breaker>((c) => ({ ...c, persistent: [...c.persistent, c.volatile[0] ?? '/etc'] })),
  fc.constant<Breaker>((c) => ({ ...c, persistent: [...c.persistent, '/zz-p'], volatile: [...c.volatile, '/zz-p/inner'] })),
  fc.constant<Breaker>((c) => ({ ...c, volatile: [] })),
  injection.map((s): Breaker => (c) => ({ ...c, tmpfsSize: `1G${s}` })),
  fc.constantFrom('/tmp/state', '/run', `/run/a b`).map((p): Breaker => (c) => ({ ...c, stateDir: p })),
  injection.map((s): Breaker => (c) => ({ ...c, healthMonitors: [{ name: 'm', unit: `kubelet${s}.service`, check: { type: 'http', url: 'http://127.0.0.1/healthz' } }] })),
  injection.map((s): Breaker => (c) => ({ ...c, healthMonitors: [{ name: 'm', unit: 'k.service', check: { type: 'http', url: `http://127.0.0.1/${s}` } }] })),
  fc.constantFrom("a'b", 'a$b', 'a`b', 'a\\b', 'a\nb').map((s): Breaker => (c) => ({ ...c, healthMonitors: [{ name: 'm', unit: 'k.service', check: { type: 'exec', command: ['/bin/check', s] } }] })),
  injection.map((s): Breaker => (c) => ({ ...c, containerRuntime: { endpoint: `unix:///run/x${s}.sock` } })),
  fc.constant<Breaker>((c) => ({ ...c, healthMonitors: [{ name: 'm', unit: 'k.service', check: { type: 'http', url: 'http://x/' }, failureThreshold: 0 }] })),
  fc.constant<Breaker>((c) => ({ ...c, healthMonitors: [{ name: 'm', unit: 'k.service', check: { type: 'http', url: 'http://x/' }, intervalSeconds: 1.5 }] })),
  fc.constant<Breaker>((c) => ({ ...c, persistnet: ['/etc/x'] })),
  fc.constant<Breaker>((c) => ({ ...c, volatile: '/etc' })),
];

/** A config with one rule broken. */
export const invalidRawConfig = fc.tuple(validRawConfig, fc.oneof(...breakers)).map(([c, b]) => b(c));
