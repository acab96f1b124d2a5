// fenceAfterAction's Node writes: the out-of-service taint goes on only with the reconcile's
// signal (a lost lease or a stopping controller sends no write), and whether it was ours is
// recorded (OutOfServiceTaint) so the release removes only a taint we added. The Node is a
// stand-in that behaves like the API client: a call with an aborted signal rejects unsent.
import type { DrainPort, NodePatch } from '@noderepair/core/drain';
import type { NodeSnapshot } from '@noderepair/core/health';
import type { FenceStatus } from '@noderepair/core/provider';
import type { ReconcileContext } from '@noderepair/core/runtime';
import type { NovaMachineProvider } from '@noderepair/openstack';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { decodeOpenStackRemediation } from '../api/index.js';
import {
  CONDITION_OUT_OF_SERVICE,
  fenceAfterAction,
  REASON_ALREADY_TAINTED,
  REASON_TAINTED_BY_US,
} from './fence.js';
import { RemediationMetrics } from './metrics.js';
import type { NodeView } from './node-view.js';
import { remediationIO, type Osr } from './status.js';
import type { Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

const OOS = 'node.kubernetes.io/out-of-service';
const SERVER = '6f1c1f0e-1b7a-4c5e-9d55-1c1d1e1f2a3b';

/** A Node the way the API client treats it: an aborted signal rejects the call, nothing sent. */
class NodeStandIn implements Pick<DrainPort, 'getNode' | 'patchNode'> {
  readonly writes: NodePatch[] = [];
  constructor(public node: NodeSnapshot) {}
  getNode(_name: string, signal?: AbortSignal): Promise<NodeSnapshot | undefined> {
    signal?.throwIfAborted();
    return Promise.resolve(this.node);
  }
  patchNode(_name: string, patch: NodePatch, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.writes.push(patch);
    const taints = [...(this.node.spec?.taints ?? []), ...(patch.addTaints ?? [])];
    this.node = { ...this.node, spec: { ...this.node.spec, taints } };
    return Promise.resolve();
  }
}

function world(opts: { taints?: NodeSnapshot['spec']; statusConflict?: boolean } = {}) {
  const controller = new AbortController();
  const node = new NodeStandIn({
    metadata: { name: 'node-a', uid: 'node-uid-1' },
    spec: { providerID: `openstack:///${SERVER}`, ...opts.taints },
  } as NodeSnapshot);
  let statusWrites = 0;
  let onFence: () => void = () => undefined;
  const provider = {
    fence: (): Promise<FenceStatus> => {
      onFence();
      return Promise.resolve({
        kind: 'Fenced',
        how: 'ResetObserved',
        evidence: 'Nova: reboot req-1 finished and the server is ACTIVE',
      });
    },
  } as unknown as NovaMachineProvider;
  const base = remediationIO({
    client: {} as never,
    events: { record: () => Promise.resolve() } as never,
    metrics: new RemediationMetrics(),
    now: () => Date.parse('2026-12-07T05:00:00Z'),
    drainPollIntervalMs: undefined,
    clusters: {} as never,
    openStackMachineVersions: {} as never,
    secrets: {} as never,
    provider: () => provider,
  });
  const io = {
    ...base,
    writeStatus: (o: Osr, f: (s: NonNullable<Osr['status']>) => NonNullable<Osr['status']>) => {
      statusWrites++;
      if (opts.statusConflict === true)
        return Promise.reject(new Error('Conflict: the object has been modified'));
      return Promise.resolve({ ...o, status: f(o.status ?? {}) } as Osr);
    },
  };
  const decoded = decodeOpenStackRemediation({
    apiVersion: 'remediation.noderepair.dev/v1alpha1',
    kind: 'OpenStackRemediation',
    metadata: { name: 'r', namespace: 'capi', uid: 'u-1', generation: 1, resourceVersion: '7' },
    spec: {
      steps: [{ type: 'HardReboot', timeoutSeconds: 60, retries: 0 }],
      drain: { enabled: true, outOfServiceTaint: true },
    },
    status: {
      phase: 'Waiting',
      history: [
        {
          step: 0,
          type: 'HardReboot',
          attempt: 1,
          startTime: '2026-12-07T04:59:00Z',
          result: 'InProgress',
        },
      ],
    },
  });
  if (E.isLeft(decoded)) throw new Error(decoded.left);
  const osr = decoded.right as Osr;
  const view: NodeView = {
    name: 'node-a',
    ready: 'Unknown',
    readySinceMs: undefined,
    bootID: undefined,
    unschedulable: true,
    providerID: `openstack:///${SERVER}`,
  };
  const t = { server: { serverId: SERVER } } as unknown as Target;
  const nodes = { drain: node as unknown as DrainPort, via: 'management cluster' } as NodeAccess;
  const ctx = {
    signal: controller.signal,
    log: { debug: () => undefined, info: () => undefined },
  } as unknown as ReconcileContext;
  return {
    node,
    controller,
    statusWrites: () => statusWrites,
    whenFenceAsked: (f: () => void) => (onFence = f),
    run: (o: Osr = osr) => fenceAfterAction(io as never, o, t, nodes, view, ctx),
    osr,
  };
}

describe('fenceAfterAction: the out-of-service taint', () => {
  it('the lease is lost while Nova answers: no taint write (the reconcile signal reaches it)', async () => {
    const w = world();
    w.whenFenceAsked(() => w.controller.abort());
    await expect(w.run()).rejects.toThrow();
    expect(w.node.writes).toEqual([]);
    expect(w.node.node.spec?.taints ?? []).toEqual([]);
    expect(w.statusWrites()).toBe(0);
  });

  it('ours is recorded before the taint is added: a status conflict (e.g. a deletion) sends no taint write', async () => {
    const w = world({ statusConflict: true });
    await expect(w.run()).rejects.toThrow('Conflict');
    expect(w.node.writes).toEqual([]);
  });

  it('added by us: recorded TaintedForRemediation', async () => {
    const w = world();
    const out = await w.run();
    // To the Node object it read (its uid), not one re-created under the same name since.
    expect(w.node.writes).toEqual([
      { addTaints: [expect.objectContaining({ key: OOS })], uid: 'node-uid-1' },
    ]);
    const c = out.osr.status?.conditions?.find((x) => x.type === CONDITION_OUT_OF_SERVICE);
    expect(c).toMatchObject({ status: 'True', reason: REASON_TAINTED_BY_US });
  });

  it("someone else's taint: no write, recorded AlreadyTainted; an earlier fence of ours stays ours", async () => {
    const theirs = { taints: [{ key: OOS, value: 'operator', effect: 'NoExecute' }] };
    const w = world({ taints: theirs });
    const out = await w.run();
    expect(w.node.writes).toEqual([]);
    const c = out.osr.status?.conditions?.find((x) => x.type === CONDITION_OUT_OF_SERVICE);
    expect(c).toMatchObject({ reason: REASON_ALREADY_TAINTED });

    // Attempt 2 of a remediation whose attempt 1 added the taint: still ours.
    const again = world({ taints: theirs });
    const recorded = {
      ...again.osr,
      status: {
        ...again.osr.status,
        conditions: [
          {
            type: CONDITION_OUT_OF_SERVICE,
            status: 'True',
            reason: REASON_TAINTED_BY_US,
            message: 'x',
            lastTransitionTime: '2026-12-07T04:59:30Z',
          },
        ],
      },
    } as Osr;
    const out2 = await again.run(recorded);
    const c2 = out2.osr.status?.conditions?.find((x) => x.type === CONDITION_OUT_OF_SERVICE);
    expect(c2).toMatchObject({ reason: REASON_TAINTED_BY_US });
  });
});
