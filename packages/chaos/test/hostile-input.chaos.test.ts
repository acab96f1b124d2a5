// Fault 6: hostile input, fuzzed with fast-check at a fixed seed. Every boundary that reads
// user or cluster data gets valid objects with 1-3 fields replaced by hostile values (wrong
// types, NaN, huge numbers and strings, prototype keys, shell and YAML injection, absurd
// times) and random values: none may throw, and every rejection is a message naming what is
// wrong, never a stack trace, "[object Object]", or a credential.
// The "unknown-field inputs rejected" row (at the end): every real key at every nesting level
// of every user document, misspelt, must be rejected with its path, never silently accepted.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeOpenStackRemediation,
  decodeOpenStackRemediationTemplate,
  exampleRemediation,
  exampleRemediationTemplate,
} from '@noderepair/capo-remediation/api';
import { parseCloudsYaml, parseProviderID } from '@noderepair/openstack';
import {
  decideRepair,
  defaultRepairPolicy,
  resolveRepairPolicy,
  type HealthObservation,
} from '@noderepair/core/health';
import { decodeMachineHealthCheck } from '@noderepair/core/mhc';
import { decodeConfig, formatConfigError, generate, parseConfig } from '@noderepair/overlayfs-gen';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_MEASURED, record } from './support/chaos-file.js';
import { repoRoot } from '../src/controller-process.js';
// The trace parser and the flag parsers belong to the command lines, which the packages do not
// export (their bins are the interface), so they are imported from source.
import { parseRunArgs, parseTrace } from '../../core/src/cli/index.js';
import { parseCommand } from '../../overlayfs-gen/src/cli/args.js';
import { main as overlayfsGen, EXIT_WRITE_FAILED } from '../../overlayfs-gen/src/cli/main.js';
import { parseFlags } from '../../capo-remediation/src/controller/flags.js';

const SEED = 20261202;
const RUNS = Number(process.env['CHAOS_FUZZ_RUNS'] ?? 300);
const tried = new Map<string, number>();

/** `check` says whether the input was accepted or rejected (with a clear message). */
function run<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  check: (v: T) => 'accepted' | 'rejected',
): void {
  let n = 0;
  let rejected = 0;
  fc.assert(
    fc.property(arb, (v) => {
      n += 1;
      if (check(v) === 'rejected') rejected += 1;
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  tried.set(name, n);
  console.log(`fuzz ${name}: seed ${SEED}, ${n} inputs, ${rejected} rejected with a message`);
  // The fuzz reaches both sides: hostile inputs are rejected, and some survive decoding.
  expect(rejected, `${name}: rejections`).toBeGreaterThan(0);
  record({
    fault: 'hostile input (fast-check)',
    variant: name,
    injected: n,
    survived: n,
    // Input decoding: no provider to ask.
    doubleReboots: NOT_MEASURED,
    crashes: 0,
    fuzzInputs: n,
  });
}

// ---- hostile values and mutations --------------------------------------------------------

const PASSWORD = 'Sup3r-Secret-Pw-9x7Q';
const INJECTIONS = [
  '$(touch /tmp/PWNED)',
  '`PWNED`',
  '; PWNED',
  "' ; PWNED '",
  '" ; PWNED #',
  '\nExecStartPre=/bin/PWNED',
  '${PWNED}',
  '%PWNED',
  '|| PWNED',
  '/etc/../../PWNED',
  '/var/lib/PWNED\u0000',
  '{{PWNED}}',
  '*PWNED*',
  '!!js/function PWNED',
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true }),
  fc.constantFrom<unknown>(
    null,
    undefined,
    NaN,
    Infinity,
    -Infinity,
    -1,
    0,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
    -0,
    '',
    ' ',
    '\u0000',
    '__proto__',
    'constructor',
    '9999999999999999999999s',
    '-5m',
    '1e9h',
    'NaN%',
    '101%',
    'x'.repeat(70_000),
    [],
    {},
    { __proto__: { polluted: true } },
    JSON.parse('{"__proto__": {"polluted": true}}'),
    ...INJECTIONS,
  ),
  fc.string({ unit: 'binary' }),
  fc.double(),
  fc.integer(),
);

type Path = readonly (string | number)[];

function allPaths(v: unknown, prefix: Path = []): Path[] {
  if (v === null || typeof v !== 'object') return [prefix];
  const entries = Array.isArray(v)
    ? v.map((x, i) => [i, x] as const)
    : Object.entries(v as Record<string, unknown>);
  return [prefix, ...entries.flatMap(([k, x]) => allPaths(x, [...prefix, k]))];
}

function setPath(root: unknown, path: Path, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (remove) delete cur[last];
  else cur[last] = value;
  return copy;
}

/** The base object with 1-3 paths replaced by hostile values or removed. */
function mutationsOf(base: unknown): fc.Arbitrary<unknown> {
  const paths = allPaths(base);
  const one = fc.tuple(fc.constantFrom(...paths), hostileValue, fc.boolean());
  return fc
    .array(one, { minLength: 1, maxLength: 3 })
    .map((muts) => muts.reduce<unknown>((o, [p, v, rm]) => safeSet(o, p, v, rm), base));
}

function safeSet(o: unknown, p: Path, v: unknown, rm: boolean): unknown {
  try {
    return setPath(o, p, v, rm);
  } catch {
    return o; // an earlier mutation removed the parent
  }
}

function clearMessage(msg: unknown, context: string): void {
  expect(typeof msg, context).toBe('string');
  const s = msg as string;
  expect(s.trim().length, `${context}: empty message`).toBeGreaterThan(0);
  expect(s, context).not.toContain('[object Object]');
  expect(s, context).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack trace
  expect(s, context).not.toContain(PASSWORD);
}

const isPolluted = () => (({}) as Record<string, unknown>)['polluted'] !== undefined;

// ---- the boundaries ----------------------------------------------------------------------

describe('hostile input (fast-check, fixed seed)', () => {
  afterAll(() => {
    const total = [...tried.values()].reduce((a, b) => a + b, 0);
    console.log(`fuzz total: seed ${SEED}, ${total} inputs over ${tried.size} boundaries`);
  });

  it('OpenStackRemediation and template objects', () => {
    const osr = exampleRemediation();
    const osrt = exampleRemediationTemplate();
    run(
      'OpenStackRemediation(Template) objects',
      fc.oneof(mutationsOf(osr), mutationsOf(osrt), hostileValue),
      (v) => {
        let out: 'accepted' | 'rejected' = 'accepted';
        for (const decode of [decodeOpenStackRemediation, decodeOpenStackRemediationTemplate]) {
          const r = decode(v);
          if (E.isLeft(r)) {
            clearMessage(r.left, 'remediation');
            if (decode === decodeOpenStackRemediation) out = 'rejected';
          }
        }
        expect(isPolluted()).toBe(false);
        return out;
      },
    );
    // The unmutated examples are accepted: the fuzz is not just rejecting everything.
    expect(E.isRight(decodeOpenStackRemediation(osr))).toBe(true);
  });

  it('MachineHealthChecks (v1beta1 and v1beta2)', () => {
    const ref = {
      apiVersion: 'remediation.noderepair.dev/v1alpha1',
      kind: 'OpenStackRemediationTemplate',
      name: 'reboot',
    };
    const v1 = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachineHealthCheck',
      spec: {
        clusterName: 'prod',
        selector: { matchLabels: { pool: 'workers' } },
        unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '300s' }],
        maxUnhealthy: '40%',
        nodeStartupTimeout: '20m',
        remediationTemplate: ref,
      },
    };
    const v2 = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineHealthCheck',
      spec: {
        clusterName: 'prod',
        selector: { matchLabels: { pool: 'workers' } },
        checks: {
          nodeStartupTimeoutSeconds: 1200,
          unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }],
        },
        remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' }, templateRef: ref },
      },
    };
    expect(E.isRight(decodeMachineHealthCheck(v1))).toBe(true);
    expect(E.isRight(decodeMachineHealthCheck(v2))).toBe(true);
    run('MachineHealthChecks', fc.oneof(mutationsOf(v1), mutationsOf(v2), hostileValue), (v) => {
      const r = decodeMachineHealthCheck(v);
      if (E.isRight(r)) return 'accepted';
      clearMessage(r.left, 'mhc');
      return 'rejected';
    });
  });

  it('repair policies (object and YAML text)', () => {
    const policy = {
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '5m' }],
      ladder: [
        { action: 'SoftReboot', timeout: '10m', attempts: 1 },
        { action: 'Replace', timeout: '30m' },
      ],
      stormGuard: { maxUnhealthy: '40%', maxInFlight: 1, failureDomainLabel: 'zone' },
      drain: { enabled: true, timeout: '5m' },
      flap: { episodes: 3, window: '1h' },
    };
    expect(E.isRight(resolveRepairPolicy(policy))).toBe(true);
    run(
      'repair policies',
      fc.oneof(
        mutationsOf(policy),
        hostileValue,
        fc.string().map((s) => ({ yaml: s })),
      ),
      (v) => {
        let input = v;
        if (
          v &&
          typeof v === 'object' &&
          'yaml' in (v as object) &&
          Object.keys(v as object).length === 1
        ) {
          try {
            input = YAML.parse((v as { yaml: string }).yaml);
          } catch {
            return 'rejected'; // not YAML: `noderepair run` says so before the policy
          }
        }
        const r = resolveRepairPolicy(input);
        if (E.isLeft(r)) {
          clearMessage(r.left, 'policy');
          return 'rejected';
        }
        expect(r.right.ladder.length).toBeGreaterThan(0);
        expect(r.right.stormGuard.maxInFlight).toBeGreaterThanOrEqual(0);
        return 'accepted';
      },
    );
  });

  it('clouds.yaml (never echoing the password)', () => {
    const valid = {
      clouds: {
        openstack: {
          auth: {
            auth_url: 'https://keystone.example:5000/v3',
            username: 'capo',
            password: PASSWORD,
            user_domain_name: 'Default',
            project_name: 'capi',
            project_domain_name: 'Default',
          },
          auth_type: 'password',
          region_name: 'RegionOne',
          interface: 'public',
          identity_api_version: 3,
        },
      },
    };
    expect(E.isRight(parseCloudsYaml(YAML.stringify(valid), 'openstack'))).toBe(true);
    run(
      'clouds.yaml',
      fc.oneof(
        mutationsOf(valid).map((o) => {
          try {
            return YAML.stringify(o);
          } catch {
            return String(o);
          }
        }),
        fc.string({ unit: 'binary' }),
        fc.constantFrom(
          'clouds: *a',
          '&a [*a]',
          'clouds: !!binary aGVsbG8=',
          `clouds:\n  openstack:\n    auth:\n      password: ${PASSWORD}\n      auth_url: "javascript:alert(1)"`,
          `clouds:\n  openstack:\n    auth_type: password\n    auth:\n      password: ${PASSWORD}\n      auth_url: http://[::1`,
          'a: &x 1\nb: *x\n'.repeat(200),
        ),
      ),
      (text) => {
        let out: 'accepted' | 'rejected' = 'accepted';
        for (const name of ['openstack', '__proto__', 'constructor', '']) {
          const r = parseCloudsYaml(text, name);
          if (E.isLeft(r)) {
            clearMessage(r.left, 'clouds.yaml');
            if (name === 'openstack') out = 'rejected';
          } else expect(JSON.stringify(r.right)).not.toContain(PASSWORD);
        }
        return out;
      },
    );
  });

  it('providerIDs', () => {
    const uuid = '3f6c1a2b-9d8e-4f70-a1b2-c3d4e5f60718';
    expect(E.isRight(parseProviderID(`openstack:///${uuid}`))).toBe(true);
    run(
      'providerIDs',
      fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.constantFrom(...INJECTIONS).map((x) => `openstack:///${x}`),
        fc
          .tuple(
            fc.constantFrom(
              'openstack://',
              'openstack:',
              'OPENSTACK://',
              'aws://',
              '',
              'openstack:////',
            ),
            fc.oneof(fc.constant(''), fc.string(), fc.constantFrom('RegionOne', '..', '%2F')),
            fc.constantFrom('/', '//', ''),
            fc.oneof(fc.constant(uuid), fc.uuid(), fc.string(), fc.constant(uuid.toUpperCase())),
          )
          .map(([a, b, c, d]) => `${a}${b}${c}${d}`),
      ),
      (id) => {
        const r = parseProviderID(id);
        if (E.isLeft(r)) {
          clearMessage(r.left, 'providerID');
          return 'rejected';
        }
        expect(r.right.serverId).toMatch(/^[0-9a-f-]{36}$/i);
        return 'accepted';
      },
    );
  });

  it('node conditions with absurd times', () => {
    const absurdTime = fc.oneof(
      fc.constantFrom<unknown>(
        '0001-01-01T00:00:00Z',
        '9999-12-31T23:59:59Z',
        '+275760-09-13T00:00:00.000Z',
        '-271821-04-20T00:00:00.000Z',
        '1970-01-01T00:00:00Z',
        'yesterday',
        '',
        null,
        undefined,
        0,
        -1,
        1e20,
        NaN,
      ),
      fc
        .date({ noInvalidDate: false })
        .map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
      fc.string(),
    );
    const condition = fc.record({
      type: fc.constantFrom('Ready', 'MemoryPressure', 'DiskPressure', 'NetworkUnavailable', ''),
      status: fc.constantFrom('True', 'False', 'Unknown', 'true', '', 'Maybe'),
      reason: fc.oneof(
        fc.constantFrom('KubeletNotReady', 'NodeStatusUnknown', 'NodeStatusNeverUpdated'),
        fc.string(),
      ),
      message: fc.oneof(
        fc.constantFrom('container runtime is down', 'PLEG is not healthy'),
        fc.string(),
      ),
      lastTransitionTime: absurdTime,
      lastHeartbeatTime: absurdTime,
    });
    const node = fc.record({
      metadata: fc.record({
        name: fc.constantFrom('n1', ''),
        creationTimestamp: absurdTime,
        deletionTimestamp: fc.option(absurdTime, { nil: undefined }),
        annotations: fc.option(fc.dictionary(fc.string(), fc.string()), { nil: undefined }),
      }),
      spec: fc.record({ unschedulable: fc.option(fc.boolean(), { nil: undefined }) }),
      status: fc.record({ conditions: fc.array(condition, { maxLength: 4 }) }),
    });
    const now = fc.oneof(
      fc.integer({ min: 0, max: 4_102_444_800_000 }),
      fc.constantFrom(0, 8.64e15, -8.64e15, Number.MAX_SAFE_INTEGER),
    );
    run('node conditions with absurd times', fc.tuple(node, now), ([n, t]) => {
      const obs = { nodeName: 'n1', node: n } as unknown as HealthObservation;
      const d = decideRepair(obs, undefined, defaultRepairPolicy, t);
      expect(Array.isArray(d.actions)).toBe(true);
      if (d.requeueAfterMs !== undefined) {
        expect(Number.isFinite(d.requeueAfterMs)).toBe(true);
        expect(d.requeueAfterMs).toBeGreaterThanOrEqual(1);
      }
      // "rejected" here: the node is not judged healthy (no decision may come from NaN).
      return d.signal === 'healthy' ? 'accepted' : 'rejected';
    });
  });

  it('overlay configs with injection attempts', () => {
    const valid = {
      volatile: ['/etc', '/var/lib/kubelet'],
      persistent: ['/etc/kubernetes', '/var/lib/etcd'],
      tmpfsSize: '2G',
      stateDir: '/run/noderepair-overlay',
      containerRuntime: {
        unit: 'containerd.service',
        endpoint: 'unix:///run/containerd/containerd.sock',
      },
      healthMonitors: [
        {
          name: 'kubelet',
          unit: 'kubelet.service',
          check: { type: 'http', url: 'http://127.0.0.1:10248/healthz' },
        },
      ],
    };
    expect(E.isRight(decodeConfig(valid))).toBe(true);
    const injected = mutationsOf(valid).chain((o) =>
      fc
        .constantFrom(...INJECTIONS)
        .chain((inj) =>
          fc
            .constantFrom(...allPaths(valid).filter((p) => typeof p.at(-1) !== 'undefined'))
            .map((p) =>
              safeSet(
                o,
                p,
                typeof p.at(-1) === 'number' || p.at(-1) === 'stateDir' ? `/var/${inj}` : inj,
                false,
              ),
            ),
        ),
    );
    run(
      'overlay configs (injection)',
      fc.oneof(
        injected,
        mutationsOf(valid),
        hostileValue,
        fc.string().map((s) => ({ text: s })),
      ),
      (v) => {
        const r =
          v &&
          typeof v === 'object' &&
          'text' in (v as object) &&
          Object.keys(v as object).length === 1
            ? parseConfig((v as { text: string }).text)
            : decodeConfig(v);
        if (E.isLeft(r)) {
          expect(r.left.length).toBeGreaterThan(0);
          for (const e of r.left) {
            clearMessage(formatConfigError(e), 'overlay');
            expect(typeof e.field).toBe('string');
          }
          return 'rejected';
        }
        // Accepted: what reaches the boot script and unit files carries no injection.
        const files = generate(r.right).files;
        for (const f of files) expect(f.content, f.path).not.toContain('PWNED');
        return 'accepted';
      },
    );
  });

  // Output directories the file system refuses. Below /proc, Node's mkdir({ recursive: true })
  // looped for ever (100 % CPU, ~10 min); every one must be exit 3 with a message, on its own.
  it('overlayfs-gen --out paths the file system refuses: exit 3 at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-ofs-'));
    try {
      const config = join(dir, 'node.yaml');
      writeFileSync(config, '{}');
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      const outs = [
        '/proc/x',
        '/proc/self/x/y',
        '/proc/1/x',
        '/sys/x',
        '/dev/null/x',
        join(file, 'out'),
        `${dir}/a\u0000b`,
      ];
      for (const out of outs) {
        const err: string[] = [];
        const code = await Promise.race([
          overlayfsGen(['generate', '--config', config, '--out', out], {
            out: () => {},
            err: (l) => err.push(l),
          }),
          new Promise<string>((r) =>
            setTimeout(() => r('still running after 60 s'), 60_000).unref(),
          ),
        ]);
        expect(code, out).toBe(EXIT_WRITE_FAILED);
        const message = err.join('\n');
        expect(message, out).toContain(`overlayfs-gen: cannot write to ${out}:`);
        clearMessage(message, `overlayfs-gen --out ${JSON.stringify(out)}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- unknown fields: misspelt real keys at every nesting level --------------------------------

const UNKNOWN_FIELD = 'unknown-field inputs rejected';
/** Random misspellings per input on top of one for every key at every level (modest: no I/O). */
const TYPO_RUNS = Math.max(20, Math.round(RUNS / 5));

type Typo = 'drop' | 'swap' | 'double' | 'case' | 'insert' | 'snake';
const TYPOS: readonly Typo[] = ['drop', 'swap', 'double', 'case', 'insert', 'snake'];

/** A misspelling of `key`: one edit at position `n`, or camelCase <-> snake_case. */
function misspell(key: string, how: Typo, n: number, letter: string): string {
  const i = n % key.length;
  const c = key[i] as string;
  switch (how) {
    case 'drop':
      return key.slice(0, i) + key.slice(i + 1);
    case 'swap':
      return i + 1 < key.length
        ? key.slice(0, i) + key[i + 1] + c + key.slice(i + 2)
        : key + letter;
    case 'double':
      return key.slice(0, i) + c + key.slice(i);
    case 'case':
      return (
        key.slice(0, i) +
        (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) +
        key.slice(i + 1)
      );
    case 'insert':
      return key.slice(0, i) + letter + key.slice(i);
    case 'snake':
      return /[A-Z]/.test(key)
        ? key.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)
        : key.replace(/_([a-z])/g, (_, m: string) => m.toUpperCase()) +
            (key.includes('_') ? '' : 's');
  }
}

interface Level {
  readonly path: Path;
  readonly keys: readonly string[];
}

/** The closed object levels of a document; `open` paths (maps, opaque objects) are only passed through. */
function closedLevels(v: unknown, open: (p: Path) => boolean, path: Path = []): Level[] {
  if (v === null || typeof v !== 'object') return [];
  if (Array.isArray(v)) return v.flatMap((x, i) => closedLevels(x, open, [...path, i]));
  const o = v as Record<string, unknown>;
  const below = Object.keys(o).flatMap((k) => closedLevels(o[k], open, [...path, k]));
  return open(path) ? below : [{ path, keys: Object.keys(o) }, ...below];
}

interface Misspelt {
  readonly doc: unknown;
  /** The misspelt key's path, as the messages print it (`a.b[0].c`). */
  readonly at: string;
  readonly typo: string;
}

function renderPath(path: Path): string {
  return path.reduce<string>(
    (s, p) => (typeof p === 'number' ? `${s}[${p}]` : s === '' ? p : `${s}.${p}`),
    '',
  );
}

function rename(doc: unknown, path: Path, key: string, typo: string): unknown {
  const copy = structuredClone(doc);
  const o = path.reduce<unknown>(
    (x, k) => (x as Record<string | number, unknown>)[k],
    copy,
  ) as Record<string, unknown>;
  o[typo] = o[key];
  delete o[key];
  return copy;
}

/** Every key of every closed level once (as fast-check examples), then random misspellings. */
function misspellingsOf(base: unknown, open: (p: Path) => boolean) {
  const levels = closedLevels(base, open).filter((l) => l.keys.length > 0);
  const make = (
    l: Level,
    key: string,
    how: Typo,
    n: number,
    letter: string,
  ): Misspelt | undefined => {
    const typo = misspell(key, how, n, letter);
    if (typo === '' || l.keys.includes(typo)) return undefined;
    return { doc: rename(base, l.path, key, typo), at: renderPath([...l.path, typo]), typo };
  };
  const every = levels.flatMap((l) =>
    l.keys.flatMap((key, i) => {
      const m = make(l, key, TYPOS[i % TYPOS.length] as Typo, i + 1, 'x');
      return m === undefined ? [] : [[m] as [Misspelt]];
    }),
  );
  const random = fc
    .tuple(
      fc.constantFrom(...levels).chain((l) => fc.tuple(fc.constant(l), fc.constantFrom(...l.keys))),
      fc.constantFrom(...TYPOS),
      fc.nat(),
      fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    )
    .map(([[l, key], how, n, letter]) => make(l, key, how, n, letter))
    .filter((m): m is Misspelt => m !== undefined);
  return { every, random };
}

/**
 * Runs every misspelling through `decode` (Left: the message) and asserts it was rejected and
 * that the message names the misspelt key where it is (`named(m)`, by default `<path>: `).
 */
function rejectsMisspellings(
  variant: string,
  base: unknown,
  open: (p: Path) => boolean,
  decode: (doc: unknown) => string | undefined,
  named: (m: Misspelt) => string = (m) => `${m.at}: `,
): void {
  const { every, random } = misspellingsOf(base, open);
  expect(decode(base), `${variant}: the unmisspelt document is accepted`).toBeUndefined();
  let n = 0;
  let rejected = 0;
  fc.assert(
    fc.property(random, (m) => {
      n += 1;
      const msg = decode(m.doc);
      expect(msg, `${variant}: ${m.at} was silently accepted`).toBeDefined();
      clearMessage(msg, variant);
      expect(msg, variant).toContain(named(m));
      rejected += 1;
    }),
    { seed: SEED, numRuns: every.length + TYPO_RUNS, examples: every, endOnFailure: true },
  );
  console.log(
    `unknown fields ${variant}: ${n} misspellings (every key once: ${every.length}), ${rejected} rejected naming the key at its path`,
  );
  expect(n).toBe(every.length + TYPO_RUNS);
  record({
    fault: UNKNOWN_FIELD,
    variant,
    injected: n,
    survived: rejected,
    // Input decoding: no provider to ask.
    doubleReboots: NOT_MEASURED,
    crashes: 0,
    fuzzInputs: n,
    note: 'survived: rejected with a message naming the misspelt key at its path',
  });
}

const left = <A>(e: E.Either<string, A>): string | undefined => (E.isLeft(e) ? e.left : undefined);

describe('unknown-field inputs rejected (fast-check, fixed seed)', () => {
  it('repair policies: examples/traces/policy.yaml, every field', () => {
    const policy = YAML.parse(
      readFileSync(join(repoRoot, 'examples', 'traces', 'policy.yaml'), 'utf8'),
    ) as unknown;
    rejectsMisspellings(
      'repair policies',
      policy,
      () => false,
      (doc) => left(resolveRepairPolicy(doc)),
      (m) => `invalid repair policy: ${m.at}: `,
    );
  });

  it('simulator traces: a line with every field', () => {
    const line = {
      time: '2026-01-01T00:00:00Z',
      node: 'w1',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          message: 'container runtime is down',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          lastHeartbeatTime: '2026-01-01T00:00:00Z',
        },
      ],
      labels: { 'topology.kubernetes.io/zone': 'zone-a' },
      annotations: { 'noderepair.io/repair-now': '1' },
      taints: [
        {
          key: 'node.kubernetes.io/unreachable',
          value: '',
          effect: 'NoExecute',
          timeAdded: '2026-01-01T00:00:00Z',
        },
      ],
      unschedulable: false,
      createdAt: '2025-12-01T00:00:00Z',
      deleted: false,
      leaseRenewTime: '2026-01-01T00:00:00Z',
      results: {
        SoftReboot: 'Failed',
        HardReboot: 'Succeeded',
        Rebuild: 'Crash',
        Replace: 'Succeeded',
      },
    };
    rejectsMisspellings(
      'simulator traces',
      line,
      (p) => p[0] === 'labels' || p[0] === 'annotations',
      (doc) => left(parseTrace(JSON.stringify(doc))),
      (m) => `line 1: ${m.at}: `,
    );
  });

  it('OpenStackRemediation(Template) a person wrote', () => {
    const open = (p: Path) =>
      p[0] === 'metadata' || p.at(-1) === 'labels' || p.at(-1) === 'annotations';
    rejectsMisspellings(
      'OpenStackRemediation',
      exampleRemediation(),
      open,
      (d) => left(decodeOpenStackRemediation(d)),
      (m) => `object.${m.at}: `,
    );
    rejectsMisspellings(
      'OpenStackRemediationTemplate',
      exampleRemediationTemplate(),
      open,
      (d) => left(decodeOpenStackRemediationTemplate(d)),
      (m) => `object.${m.at}: `,
    );
  });

  it('clouds.yaml: the file, the cloud and its auth', () => {
    const clouds = {
      clouds: {
        openstack: {
          auth: {
            auth_url: 'https://keystone.example:5000/v3',
            username: 'capo',
            password: PASSWORD,
            user_domain_name: 'Default',
            project_name: 'capi',
            project_domain_name: 'Default',
          },
          auth_type: 'password',
          region_name: 'RegionOne',
          interface: 'public',
          identity_api_version: 3,
          verify: true,
          cacert: '/etc/openstack/ca.pem',
        },
      },
    };
    rejectsMisspellings(
      'clouds.yaml',
      clouds,
      (p) => p.length === 1, // `clouds` maps cloud names (a misspelt name is "not found")
      (doc) => left(parseCloudsYaml(YAML.stringify(doc), 'openstack')),
      // The file's own keys are named under clouds.yaml; a cloud's keys by their path.
      (m) => (m.at.includes('.') ? `${m.at}: ` : `clouds.yaml.${m.at}: `),
    );
  });

  it('overlay configs: every level, health checks included', () => {
    const config = {
      volatile: ['/etc', '/var/lib/kubelet'],
      persistent: ['/etc/kubernetes'],
      tmpfsSize: '2G',
      stateDir: '/run/noderepair-overlay',
      containerRuntime: {
        unit: 'containerd.service',
        endpoint: 'unix:///run/containerd/containerd.sock',
      },
      monitorDefaults: {
        intervalSeconds: 10,
        restartBudget: { maxRestarts: 3, windowSeconds: 600 },
        backoff: { initialSeconds: 5, maxSeconds: 60 },
      },
      healthMonitors: [
        {
          name: 'kubelet',
          unit: 'kubelet.service',
          check: { type: 'http', url: 'http://127.0.0.1:10248/healthz' },
          failureThreshold: 3,
        },
        {
          name: 'runtime',
          unit: 'containerd.service',
          check: { type: 'exec', command: ['/usr/bin/true'] },
        },
      ],
    };
    rejectsMisspellings(
      'overlay configs',
      config,
      () => false,
      (doc) => {
        const r = decodeConfig(doc);
        return E.isLeft(r) ? r.left.map(formatConfigError).join('\n') : undefined;
      },
    );
  });

  it('command-line flags: noderepair run, capo-remediation, overlayfs-gen', () => {
    /** The flags as a flat document: a misspelt key is the same flag spelt wrong on the command line. */
    const flags = (
      variant: string,
      args: readonly string[],
      parse: (a: string[]) => string | undefined,
    ) => {
      const nameOf = (a: string) => a.slice(2).split('=')[0] as string;
      const names = args.filter((a) => a.startsWith('--')).map(nameOf);
      rejectsMisspellings(
        variant,
        Object.fromEntries(names.map((n) => [n, true])),
        () => false,
        (doc) => {
          const keys = Object.keys(doc as object);
          const typo = keys.find((k) => !names.includes(k));
          return parse(
            args.map((a) =>
              a.startsWith('--') && !keys.includes(nameOf(a)) && typo !== undefined
                ? `--${typo}${a.slice(2 + nameOf(a).length)}`
                : a,
            ),
          );
        },
        (m) => `unknown flag --${m.typo}`,
      );
    };
    flags(
      'noderepair run flags',
      [
        '--policy=p.yaml',
        '--kubeconfig=k',
        '--dry-run',
        '--leader-elect',
        '--leader-election-namespace=ns',
        '--leader-election-id=id',
        '--metrics-bind-address=:8080',
        '--health-probe-bind-address=:8081',
        '--label-selector=a=b',
        '--provider=openstack',
        '--cloud=prod',
        '--provider-opt=region=RegionOne',
      ],
      (a) => left(parseRunArgs(a)),
    );
    flags(
      'capo-remediation flags',
      [
        '--kubeconfig=k',
        '--leader-elect',
        '--leader-election-id=id',
        '--leader-election-namespace=ns',
        '--metrics-bind-address=:8080',
        '--health-probe-bind-address=:8081',
        '--namespace=capi',
        '--concurrency=2',
        '--default-identity-secret=s',
        '--default-cloud-name=openstack',
        '--workload-cluster-access=auto',
      ],
      (a) => left(parseFlags(a, {})),
    );
    flags(
      'overlayfs-gen flags',
      ['generate', '--config=c', '--out=o', '--format=kubeadm-config', '--template-name=t'],
      (a) => {
        const r = parseCommand(a);
        return r.ok ? undefined : r.error;
      },
    );
  });
});
