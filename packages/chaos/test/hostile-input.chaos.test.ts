// Fault 6: hostile input, fuzzed with fast-check at a fixed seed. Every boundary that reads
// user or cluster data gets valid objects with 1-3 fields replaced by hostile values (wrong
// types, NaN, huge numbers and strings, prototype keys, shell and YAML injection, absurd
// times) and random values: none may throw, and every rejection is a message naming what is
// wrong, never a stack trace, "[object Object]", or a credential.
import {
  decodeOpenStackRemediation,
  decodeOpenStackRemediationTemplate,
  exampleRemediation,
  exampleRemediationTemplate,
} from '@noderepair/capo-remediation';
import { parseCloudsYaml, parseProviderID } from '@noderepair/openstack';
import {
  decideRepair,
  decodeMachineHealthCheck,
  defaultRepairPolicy,
  resolveRepairPolicy,
  type HealthObservation,
} from '@noderepair/core';
import { decodeConfig, formatConfigError, generate, parseConfig } from '@noderepair/overlayfs-gen';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { record } from './support/chaos-file.js';

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
    doubleReboots: 0,
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
});
