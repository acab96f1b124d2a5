// `noderepair status` through runCli with an in-memory cluster: the table, --json, one NODE,
// and the usage errors (an unknown flag is named).
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from '../health/builders.js';
import type { NodeSnapshot } from '../health/node.js';
import { serializeRepairState, type RepairState } from '../health/state.js';
import { ForbiddenError } from '../kube/errors.js';
import { runCli } from './noderepair.js';
import { parseStatusArgs, statusCommand, type StatusSource } from './status.js';

const S = 1000;
const NOW = Date.parse('2026-12-05T12:00:00Z');
const policyYaml = [
  'unhealthyConditions:',
  '  - { type: Ready, status: "False", timeout: 10s }',
  'stormGuard: { maxUnhealthy: 1, recheckInterval: 30s }',
].join('\n');

function node(name: string, down: boolean, annotations: Record<string, string> = {}) {
  return buildNode({
    name,
    ready: down ? 'networkNotReady' : 'ready',
    since: NOW - 100 * S,
    heartbeat: NOW - S,
    annotations,
  });
}

async function run(args: string[], nodes: NodeSnapshot[]) {
  const out: string[] = [];
  const err: string[] = [];
  const reads: string[] = [];
  const code = await statusCommand(args, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => {
      reads.push(p);
      return p === 'policy.yaml'
        ? Promise.resolve(policyYaml)
        : Promise.reject(new Error('ENOENT'));
    },
    now: () => NOW,
    read: (): Promise<StatusSource> =>
      Promise.resolve({ nodes, leaseRenewTimes: new Map(), warnings: [] }),
  });
  return { code, out, err, reads };
}

const fleet = [
  node('a-ok', false),
  node('b-down', true),
  node('c-down', true),
  node('d-paused', true, { 'cluster.x-k8s.io/paused': 'true' }),
];

describe('noderepair status', () => {
  it('prints a kubectl-style table with the held nodes and their counts', async () => {
    const r = await run(['--policy', 'policy.yaml'], fleet);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.reads).toEqual(['policy.yaml']);
    expect(r.out[0]).toMatch(/^NAME\s+PHASE\s+CAUSE\s+STEP\s+NEXT\s+REASON$/);
    expect(r.out).toHaveLength(5);
    // Columns line up: each header starts where its cells start.
    const col = (h: string) => r.out[0]!.indexOf(h);
    const down = r.out.find((l) => l.startsWith('b-down'))!;
    expect(down.slice(col('PHASE')).startsWith('Unhealthy')).toBe(true);
    expect(down.slice(col('CAUSE')).startsWith('RuntimeNetworkNotReady')).toBe(true);
    expect(down.slice(col('STEP')).startsWith('-')).toBe(true);
    expect(down.slice(col('NEXT')).startsWith('30s')).toBe(true);
    expect(down.slice(col('REASON'))).toBe('held: storm guard: 2 of 3 nodes unhealthy (limit 1)');
    const paused = r.out.find((l) => l.startsWith('d-paused'))!;
    expect(paused).toContain('held: not judged: node has the cluster.x-k8s.io/paused annotation');
    const ok = r.out.find((l) => l.startsWith('a-ok'))!;
    expect(ok.slice(col('PHASE')).startsWith('Healthy')).toBe(true);
  });

  it('--json gives one document with the storm counts and RFC 3339 times', async () => {
    const r = await run(['--json', '--policy', 'policy.yaml'], fleet);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    const doc = JSON.parse(r.out[0]!) as {
      at: string;
      storm: unknown;
      nodes: { name: string; nextAt?: string; hold?: { kind: string; unhealthy?: number } }[];
    };
    expect(doc.at).toBe('2026-12-05T12:00:00.000Z');
    expect(doc.storm).toEqual({ total: 3, unhealthy: 2, inFlight: 0, limit: 1, tripped: true });
    expect(doc.nodes.map((n) => n.name)).toEqual(['a-ok', 'b-down', 'c-down', 'd-paused']);
    const b = doc.nodes[1]!;
    expect(b.hold).toMatchObject({ kind: 'storm', unhealthy: 2, total: 3, limit: 1 });
    expect(b.nextAt).toBe('2026-12-05T12:00:30.000Z');
    expect(doc.nodes[3]!.hold?.kind).toBe('paused');
  });

  it('NODE reports one node, still judged against the whole fleet', async () => {
    const r = await run(['c-down', '--policy', 'policy.yaml'], fleet);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(2);
    expect(r.out[1]).toMatch(/^c-down\s+Unhealthy\s.*held: storm guard: 2 of 3/);
    const missing = await run(['nope'], fleet);
    expect(missing.code).toBe(1);
    expect(missing.err).toEqual(['noderepair status: node "nope" not found']);
  });

  it('NODE prints the history below its line; --json includes it with RFC 3339 times', async () => {
    const T = Date.parse('2026-12-05T09:00:00Z');
    const state: RepairState = {
      v: 1,
      phase: 'Healthy',
      since: T + 60 * 60 * S,
      episodes: [],
      lastRemediation: { id: 'e-hist/2', endedAt: T + 60 * 60 * S, step: 1, result: 'Succeeded' },
      history: [
        {
          id: 'e-hist/1',
          cause: { kind: 'PLEGUnhealthy', message: 'PLEG is not healthy' },
          startedAt: T,
          endedAt: T + 40 * 60 * S,
          outcome: 'Failed',
          steps: [
            { action: 'SoftReboot', attempts: 1, result: 'TimedOut' },
            { action: 'HardReboot', attempts: 2, result: 'Failed' },
          ],
        },
        {
          id: 'e-hist/2',
          cause: { kind: 'ContainerRuntimeDown', message: 'container runtime is down' },
          startedAt: T + 50 * 60 * S,
          endedAt: T + 60 * 60 * S + 5 * S,
          outcome: 'Succeeded',
          steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
        },
      ],
    };
    const nodes = [
      ...fleet,
      node('e-hist', false, { 'noderepair.io/repair-state': serializeRepairState(state) }),
    ];
    const r = await run(['e-hist', '--policy', 'policy.yaml'], nodes);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.out[1]).toMatch(/^e-hist\s+Healthy\s/);
    expect(r.out.slice(2)).toEqual([
      '',
      'HISTORY (last 5 repairs, oldest first)',
      'ID         CAUSE                  STARTED                    DURATION   STEPS                                          OUTCOME',
      'e-hist/1   PLEGUnhealthy          2026-12-05T09:00:00.000Z   40m        SoftReboot 1x TimedOut, HardReboot 2x Failed   Failed',
      'e-hist/2   ContainerRuntimeDown   2026-12-05T09:50:00.000Z   10m5s      SoftReboot 1x Succeeded                        Succeeded',
    ]);
    // The fleet listing stays one line per node.
    const all = await run(['--policy', 'policy.yaml'], nodes);
    expect(all.out).toHaveLength(6);

    const j = await run(['e-hist', '--json', '--policy', 'policy.yaml'], nodes);
    const doc = JSON.parse(j.out[0]!) as { nodes: { history?: unknown[] }[] };
    expect(doc.nodes[0]!.history).toEqual([
      {
        id: 'e-hist/1',
        cause: { kind: 'PLEGUnhealthy', message: 'PLEG is not healthy' },
        startedAt: '2026-12-05T09:00:00.000Z',
        endedAt: '2026-12-05T09:40:00.000Z',
        durationMs: 40 * 60 * S,
        outcome: 'Failed',
        steps: [
          { action: 'SoftReboot', attempts: 1, result: 'TimedOut' },
          { action: 'HardReboot', attempts: 2, result: 'Failed' },
        ],
      },
      {
        id: 'e-hist/2',
        cause: { kind: 'ContainerRuntimeDown', message: 'container runtime is down' },
        startedAt: '2026-12-05T09:50:00.000Z',
        endedAt: '2026-12-05T10:00:05.000Z',
        durationMs: 10 * 60 * S + 5 * S,
        outcome: 'Succeeded',
        steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
      },
    ]);
    // A node without history has none in --json, and no history table.
    const plain = await run(['a-ok', '--policy', 'policy.yaml'], nodes);
    expect(plain.out).toHaveLength(2);
  });

  // Issue 42: a control-plane node is left alone by default, and status NODE says so.
  it('NODE on the control plane says why it is left alone, held or healthy', async () => {
    const cp = (name: string, down: boolean) =>
      buildNode({
        name,
        ready: down ? 'networkNotReady' : 'ready',
        since: NOW - 100 * S,
        heartbeat: NOW - S,
        labels: { 'node-role.kubernetes.io/control-plane': '' },
      });
    const nodes = [cp('cp-down', true), cp('cp-ok', false), node('w-ok', false)];
    const r = await run(['cp-down', '--policy', 'policy.yaml'], nodes);
    expect(r.code).toBe(0);
    expect(r.out[1]).toMatch(
      /^cp-down\s+Unhealthy\s.*held: ControlPlane: a control-plane node \(label node-role.kubernetes.io\/control-plane\) is left alone: the policy's controlPlane.repair is false$/,
    );
    expect(r.out[2]).toBe(
      "control plane (label node-role.kubernetes.io/control-plane): left alone, noderepair starts no repair on it (the policy's controlPlane.repair is false)",
    );
    const ok = await run(['cp-ok', '--policy', 'policy.yaml'], nodes);
    expect(ok.out[1]).toMatch(/^cp-ok\s+Healthy\s/);
    expect(ok.out[2]).toContain(
      'control plane (label node-role.kubernetes.io/control-plane): left alone',
    );
    // A worker gets no such line.
    expect((await run(['w-ok', '--policy', 'policy.yaml'], nodes)).out).toHaveLength(2);
  });

  it('without --policy it judges with the defaults and reads no file', async () => {
    const r = await run([], [node('a-ok', false)]);
    expect(r.code).toBe(0);
    expect(r.reads).toEqual([]);
    expect(r.out[1]).toMatch(/^a-ok\s+Healthy\s+Healthy\s+-\s+-\s+/);
  });

  it('unknown flags, extra NODEs and bad policies are errors that name them', async () => {
    const bad = await run(['--jsn'], fleet);
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/^noderepair status: unknown flag --jsn \(did you mean --json\?\)/);
    expect(either.isLeft(parseStatusArgs(['a', 'b']))).toBe(true);
    expect(parseStatusArgs(['a', 'b'])).toEqual(
      either.left('expected at most one NODE, got "a" "b"'),
    );
    const unreadable = await run(['--policy', 'missing.yaml'], fleet);
    expect(unreadable.code).toBe(1);
    expect(unreadable.err[0]).toMatch(/^noderepair status: cannot read missing.yaml/);
  });

  it('a Forbidden list says "missing permission"; lease warnings go to stderr', async () => {
    const io = (read: () => Promise<StatusSource>) => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        out,
        err,
        io: {
          stdout: (l: string) => out.push(l),
          stderr: (l: string) => err.push(l),
          readFile: () => Promise.reject(new Error('no files')),
          now: () => NOW,
          read,
        },
      };
    };
    const forbidden = io(() =>
      Promise.reject(
        new ForbiddenError({
          kind: 'Status',
          code: 403,
          reason: 'Forbidden',
          message: 'nodes is forbidden: User "u" cannot list resource "nodes"',
        }),
      ),
    );
    expect(await statusCommand([], forbidden.io)).toBe(1);
    expect(forbidden.err).toEqual([
      'noderepair status: cannot read the cluster: missing permission: nodes is forbidden: User "u" cannot list resource "nodes"',
    ]);
    const warned = io(() =>
      Promise.resolve({
        nodes: [node('a-ok', false)],
        leaseRenewTimes: new Map(),
        warnings: ['cannot list Leases in kube-node-lease: missing permission: x'],
      }),
    );
    expect(await statusCommand([], warned.io)).toBe(0);
    expect(warned.err).toEqual([
      'noderepair status: warning: cannot list Leases in kube-node-lease: missing permission: x',
    ]);
    expect(warned.out).toHaveLength(2);
  });

  it('is wired into runCli and listed in its usage', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['status', '--bogus'], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      readFile: () => Promise.reject(new Error('no files')),
    });
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^noderepair status: unknown flag --bogus/);
    const help: string[] = [];
    await runCli(['--help'], {
      stdout: (l) => help.push(l),
      stderr: () => undefined,
      readFile: () => Promise.reject(new Error('no files')),
    });
    expect(help.join('\n')).toContain('usage: noderepair status [NODE]');
  });
});

describe('noderepair status: the install’s disruption-lease holder', () => {
  const lease = (node: string, holder: string) => ({
    metadata: { name: `node-${node}`, namespace: 'medik8s-leases' },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 3600,
      renewTime: new Date(NOW - 60 * S).toISOString(),
    },
  });
  async function runWithLeases(args: string[], holder: string) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await statusCommand(args, {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      readFile: () => Promise.resolve(policyYaml),
      now: () => NOW,
      read: (): Promise<StatusSource> =>
        Promise.resolve({
          nodes: [node('b-down', true)],
          leaseRenewTimes: new Map(),
          warnings: [],
          actors: { leases: new Map([['node-b-down', lease('b-down', holder)]]), forbidden: [] },
        }),
    });
    return { code, out, err };
  }

  it('names the holder; another install’s live lease is a hold, this install’s is not', async () => {
    const a = 'noderepair/team-a/noderepair-autorepair';
    const theirs = await runWithLeases(
      ['--policy', 'policy.yaml', '--leader-election-namespace', 'team-b'],
      a,
    );
    expect(theirs.err).toEqual([]);
    expect(theirs.out[1]).toMatch(
      /^b-down\s.*held: .*held by noderepair\/team-a\/noderepair-autorepair/,
    );
    expect(theirs.out).toContain(
      `disruption lease medik8s-leases/node-b-down: held by ${a} (not this install (noderepair/team-b/noderepair-autorepair))`,
    );
    const ours = await runWithLeases(
      ['--policy', 'policy.yaml', '--leader-election-namespace', 'team-a'],
      a,
    );
    expect(ours.out[1]).not.toMatch(/held by noderepair/);
    expect(ours.out).toContain(
      `disruption lease medik8s-leases/node-b-down: held by ${a} (this install)`,
    );
    const json = await runWithLeases(
      ['--json', '--policy', 'policy.yaml', '--disruption-lease-holder', 'site/x'],
      a,
    );
    expect((JSON.parse(json.out[0]!) as { leaseHolder?: string }).leaseHolder).toBe('site/x');
  });
});

describe('noderepair status: marks of other actors it cannot read', () => {
  it('a garbled kured lock is a warning and holds the node that wants a repair (Unreadable)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await statusCommand(['--policy', 'policy.yaml'], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      readFile: () => Promise.resolve(policyYaml),
      now: () => NOW,
      read: (): Promise<StatusSource> =>
        Promise.resolve({
          nodes: [node('b-down', true)],
          leaseRenewTimes: new Map(),
          warnings: [],
          actors: {
            kuredDaemonSetAnnotations: { 'weave.works/kured-node-lock': '{nodeID: b-down' },
            leases: new Map(),
            forbidden: [],
          },
        }),
    });
    expect(code).toBe(0);
    const problem =
      'kured lock weave.works/kured-node-lock on daemonset kube-system/kured unreadable: not JSON';
    expect(err).toEqual([
      `noderepair status: warning: ${problem} (the controller holds every node that wants a repair until this is fixed)`,
    ]);
    expect(out[1]).toMatch(/^b-down\s.*held: .*kured lock .* unreadable: not JSON/);
  });
});

describe('noderepair status: the latch names its Lease and how to reset it', () => {
  const latchPolicy = [
    'unhealthyConditions:',
    '  - { type: Ready, status: "False", timeout: 10s }',
    'stormGuard: { maxUnhealthy: 5, recheckInterval: 30s, latch: { afterHeldFor: 10m } }',
  ].join('\n');
  const since = NOW - 3600 * S;

  async function runLatched(args: string[], latch: StatusSource['latch']) {
    const out: string[] = [];
    const code = await statusCommand(['--policy', 'policy.yaml', ...args], {
      stdout: (l) => out.push(l),
      stderr: () => undefined,
      readFile: () => Promise.resolve(latchPolicy),
      env: { POD_NAMESPACE: 'noderepair-system' },
      now: () => NOW,
      read: (): Promise<StatusSource> =>
        Promise.resolve({
          nodes: [node('a-ok', false), node('b-down', true)],
          leaseRenewTimes: new Map(),
          warnings: [],
          ...(latch !== undefined ? { latch } : {}),
        }),
    });
    return { code, out };
  }

  it('the table: the latch line names the Lease, its annotation and the reset command', async () => {
    const r = await runLatched([], { kind: 'latched', since, reason: 'held too long' });
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(
      `storm guard latch SET since ${new Date(since).toISOString()} (annotation noderepair.io/latched on Lease noderepair-system/noderepair-autorepair-latch): held too long. No repair starts until a person resets it: noderepair reset-latch --leader-election-namespace noderepair-system`,
    );
    expect(r.out.find((l) => l.startsWith('b-down'))).toMatch(/held: latch set/);
  });

  it('--leader-election-namespace/-id: the Lease and the command follow them', async () => {
    const r = await runLatched(
      ['--leader-election-namespace', 'ops', '--leader-election-id', 'nr'],
      {
        kind: 'unreadable',
        problem: 'not JSON',
      },
    );
    expect(r.out[0]).toContain('on Lease ops/nr-latch');
    expect(r.out[0]).toContain(
      'noderepair reset-latch --leader-election-namespace ops --leader-election-id nr',
    );
  });

  it('--json: the latch and each latch hold carry the Lease, the annotation and the command', async () => {
    const r = await runLatched(['--json'], { kind: 'latched', since, reason: 'held too long' });
    const doc = JSON.parse(r.out[0]!);
    const where = {
      lease: { namespace: 'noderepair-system', name: 'noderepair-autorepair-latch' },
      annotation: 'noderepair.io/latched',
      reset: 'noderepair reset-latch --leader-election-namespace noderepair-system',
    };
    expect(doc.latch).toEqual({
      set: true,
      since: new Date(since).toISOString(),
      reason: 'held too long',
      ...where,
    });
    const held = doc.nodes.find((n: { name: string }) => n.name === 'b-down');
    expect(held.hold).toMatchObject({ kind: 'latch', scope: 'latch', ...where });
  });
});
