// `noderepair status` against a real kube-apiserver (envtest): fake kubelets post real Node
// status and Lease heartbeats, the repair state is the annotation the controller writes, and
// the command lists them through its kubeconfig. One node in each state: healthy, paused,
// gave up, in repair, queued behind maxInFlight, cooling down after a storm, shutting down;
// and, in a second fleet, a storm held with its counts.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { either } from 'fp-ts';
import { KubeletNotReadyMessages, startFakeKubelet, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { buildNode } from '../health/builders.js';
import { recordOutcome } from '../health/decide.js';
import { decideFleet } from '../health/fleet.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { serializeRepairState, type RepairState } from '../health/state.js';
import { runCli } from './noderepair.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/status-scope';
const STATE = 'noderepair.io/repair-state';
const S = 1000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const kubelets: FakeKubelet[] = [];
// The Nodes go with the test: NotReady Nodes left behind would count in other files' fleets.
afterAll(async () => {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await Promise.all(kubelets.map((k) => k.stop()));
  await Promise.all(kubelets.map((k) => core.deleteNode({ name: k.name }).catch(() => undefined)));
});

interface StatusDoc {
  storm: { total: number; unhealthy: number; inFlight: number; limit: number; tripped: boolean };
  nodes: {
    name: string;
    phase: string;
    cause: string;
    actsNow: boolean;
    nextAt?: string;
    step?: { index: number; action: string };
    hold?: { kind: string; [k: string]: unknown };
  }[];
}

async function status(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['status', '--kubeconfig', env.kubeconfigPath, ...args], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => readFile(p, 'utf8'),
  });
  return { code, out, err };
}

async function kubelet(
  name: string,
  scope: string,
  notReady: string | undefined,
  annotations: Record<string, string> = {},
  labels: Record<string, string> = {},
): Promise<void> {
  const k = await startFakeKubelet(env.kubeConfig, {
    name,
    labels: { [SCOPE]: scope, ...labels },
    annotations,
    heartbeatSeconds: 1,
  });
  kubelets.push(k);
  if (notReady !== undefined) await k.setNotReady(notReady);
}

const policyText = (stormGuard: string) =>
  [
    'unhealthyConditions:',
    '  - { type: Ready, status: "False", timeout: 1s }',
    'ladder:',
    '  - { action: SoftReboot, timeout: 5m }',
    '  - { action: HardReboot, timeout: 10m, attempts: 2 }',
    `stormGuard: ${stormGuard}`,
  ].join('\n');

/** The state the controller writes once it started a repair and the provider accepted it. */
function inRepair(name: string, now: number): RepairState {
  const p = resolveRepairPolicy(policyDoc());
  if (either.isLeft(p)) throw new Error(p.left);
  const node = buildNode({ name, ready: 'runtimeDown', since: now - 10 * S, heartbeat: now });
  const d = decideFleet([{ obs: { nodeName: name, node }, state: undefined }], p.right, now);
  const s = d.decisions[0]?.nextState;
  const id = s?.remediation?.intent?.actionId;
  if (s === undefined || id === undefined) throw new Error('expected a repair to start');
  return recordOutcome(s, { actionId: id, result: 'Succeeded', at: now });
}

/** policyText's policy as an object (the same ladder and condition). */
function policyDoc() {
  return {
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1s' }],
    ladder: [
      { action: 'SoftReboot', timeout: '5m' },
      { action: 'HardReboot', timeout: '10m', attempts: 2 },
    ],
  };
}

describe('noderepair status on a real apiserver', () => {
  it('reports each node with its phase and, for held nodes, the exact reason', async () => {
    const scope = env.unique('status');
    const n = (s: string) => env.unique(`st-${s}`);
    const names = {
      ok: n('ok'),
      paused: n('paused'),
      failed: n('failed'),
      repairing: n('repairing'),
      queued: n('queued'),
      cooling: n('cooling'),
      shutdown: n('shutdown'),
    };
    const now = Date.now();
    const failed: RepairState = {
      v: 1,
      phase: 'Failed',
      since: now - 60 * S,
      episodes: [],
      lastRemediation: { id: 'x/1', endedAt: now - 60 * S, step: 1, result: 'Failed' },
    };
    const heldForStorm: RepairState = {
      v: 1,
      phase: 'Unhealthy',
      since: now - 30 * S,
      episodes: [],
      heldByStormSince: now - 30 * S,
    };
    const down = KubeletNotReadyMessages.containerRuntimeDown;
    await Promise.all([
      kubelet(names.ok, scope, undefined),
      kubelet(names.paused, scope, down, { 'cluster.x-k8s.io/paused': 'true' }),
      kubelet(names.failed, scope, down, { [STATE]: serializeRepairState(failed) }),
      kubelet(names.repairing, scope, down, {
        [STATE]: serializeRepairState(inRepair(names.repairing, now)),
      }),
      kubelet(names.queued, scope, down),
      kubelet(names.cooling, scope, down, { [STATE]: serializeRepairState(heldForStorm) }),
      kubelet(names.shutdown, scope, KubeletNotReadyMessages.shuttingDown),
    ]);
    // Past the 1 s condition timeout, so the NotReady nodes are unhealthy, not suspect.
    await sleep(1500);

    const dir = await mkdtemp(join(tmpdir(), 'noderepair-status-'));
    try {
      const policyPath = join(dir, 'policy.yaml');
      await writeFile(
        policyPath,
        policyText("{ maxUnhealthy: '100%', maxInFlight: 1, cooldown: 2m }"),
      );
      const r = await status([
        '--policy',
        policyPath,
        '--label-selector',
        `${SCOPE}=${scope}`,
        '--json',
      ]);
      expect(r.err).toEqual([]);
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.out[0] ?? '') as StatusDoc;
      const of = (name: string) => {
        const s = doc.nodes.find((x) => x.name === name);
        if (s === undefined) throw new Error(`${name} missing from ${r.out[0]}`);
        return s;
      };
      expect(doc.nodes.map((x) => x.name).sort()).toEqual(Object.values(names).sort());
      expect(of(names.ok)).toMatchObject({ phase: 'Healthy', cause: 'Healthy' });
      expect(of(names.ok).hold).toBeUndefined();
      expect(of(names.paused).hold).toMatchObject({ kind: 'paused' });
      expect(of(names.failed)).toMatchObject({ phase: 'Failed', hold: { kind: 'failed' } });
      expect(of(names.repairing)).toMatchObject({
        phase: 'Verifying',
        step: { index: 1, action: 'SoftReboot' },
      });
      expect(of(names.repairing).hold).toBeUndefined();
      expect(of(names.queued)).toMatchObject({
        phase: 'Unhealthy',
        cause: 'ContainerRuntimeDown',
        actsNow: false,
        hold: { kind: 'in-flight', inFlight: 1, maxInFlight: 1 },
      });
      // status cannot see the controller's memory: the latest end, a full cooldown from now.
      const cooling = of(names.cooling).hold;
      expect(cooling).toMatchObject({ kind: 'cooldown', scope: 'fleet' });
      const until = Date.parse(String(cooling?.['until']));
      expect(until).toBeGreaterThan(now + 2 * 60 * S - 1);
      expect(of(names.shutdown)).toMatchObject({
        phase: 'Waiting',
        cause: 'ShuttingDown',
        hold: { kind: 'shutdown' },
      });
      // paused nodes are not counted by the storm guard
      expect(doc.storm).toMatchObject({ total: 6, inFlight: 1, tripped: false });

      // The table, and one NODE: scoped by the same selector as the controller's, since the
      // fleet it counts (in flight, storm) is the selected nodes, and other test files leave
      // nodes of their own (held, in repair, unreadable) on this worker's apiserver.
      const one = await status([
        names.queued,
        '--policy',
        policyPath,
        '--label-selector',
        `${SCOPE}=${scope}`,
      ]);
      expect(one.code).toBe(0);
      expect(one.out[0]).toMatch(/^NAME\s+PHASE\s+CAUSE\s+STEP\s+NEXT\s+REASON$/);
      expect(one.out).toHaveLength(2);
      expect(one.out[1]).toMatch(
        new RegExp(
          `^${names.queued}\\s+Unhealthy\\s+ContainerRuntimeDown\\s+-\\s+\\S+\\s+held: maxInFlight: 1 repairs in flight \\(max 1\\)$`,
        ),
      );
      const missing = await status(['no-such-node-' + scope, '--policy', policyPath]);
      expect(missing.code).toBe(1);
      expect(missing.err[0]).toMatch(/node "no-such-node-.*" not found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows a storm with its counts', async () => {
    const scope = env.unique('status-storm');
    const names = [0, 1, 2].map((i) => env.unique(`st-storm-${i}`));
    const down = KubeletNotReadyMessages.runtimeNetworkNotReady;
    await Promise.all([
      kubelet(names[0]!, scope, down),
      kubelet(names[1]!, scope, down),
      kubelet(names[2]!, scope, undefined),
    ]);
    await sleep(1500);
    const dir = await mkdtemp(join(tmpdir(), 'noderepair-status-'));
    try {
      const policyPath = join(dir, 'policy.yaml');
      await writeFile(policyPath, policyText('{ maxUnhealthy: 1 }'));
      const r = await status(['--policy', policyPath, '--label-selector', `${SCOPE}=${scope}`]);
      expect(r.err).toEqual([]);
      expect(r.code).toBe(0);
      expect(r.out).toHaveLength(4);
      for (const name of names.slice(0, 2))
        expect(r.out.find((l) => l.startsWith(name))).toMatch(
          /\sUnhealthy\s+RuntimeNetworkNotReady\s.*held: storm guard: 2 of 3 nodes unhealthy \(limit 1\)$/,
        );
      expect(r.out.find((l) => l.startsWith(names[2]!))).toMatch(/\sHealthy\s/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
