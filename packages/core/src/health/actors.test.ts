// The hold model for other actors, fed with the objects in the formats their own sources
// write (kured daemonsetlock, medik8s common lease, NMO v1beta1, Cluster API taints).
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { actorHolds, parseKuredLock, type ActorView, type HoldActor } from './actors.js';
import { defaultCoordinationPolicy, type CoordinationPolicy } from './coordination-policy.js';

const T0 = Date.parse('2026-12-05T12:00:00Z');
const MIN = 60_000;
const all: CoordinationPolicy = {
  ...defaultCoordinationPolicy,
  actors: ['Kured', 'NodeMaintenance', 'Medik8sLease', 'ClusterAPIRollout', 'ManualCordon'],
};
const view = (over: Partial<ActorView> = {}): ActorView => ({
  nodeName: 'w1',
  node: { metadata: { name: 'w1' }, spec: {} },
  cordonedByUs: false,
  ourLeaseIdentity: 'noderepair/pod-a',
  ...over,
});
const actorsOf = (v: ActorView, c = all, now = T0): HoldActor[] =>
  actorHolds(v, c, now).holds.map((h) => h.actor);
const kured = (value: string) => ({ 'weave.works/kured-node-lock': value });
// kured's --concurrency=1 value, TTL a Go duration in nanoseconds.
const single = (nodeID: string, created: string, ttlNs: number) =>
  JSON.stringify({ nodeID, metadata: { unschedulable: false }, created, TTL: ttlNs });

describe('no other actor', () => {
  it('a plain node with nothing around it is not held', () => {
    expect(actorHolds(view(), all, T0)).toEqual({ holds: [], problems: [] });
  });
});

describe('kured', () => {
  it('holds the node named in a single lock with no expiry (TTL 0)', () => {
    const r = actorHolds(
      view({ kuredDaemonSetAnnotations: kured(single('w1', '2026-12-05T11:00:00.123456789Z', 0)) }),
      all,
      T0,
    );
    expect(r.holds).toHaveLength(1);
    expect(r.holds[0]).toMatchObject({ actor: 'Kured' });
    expect(r.holds[0]!.until).toBeUndefined();
    expect(r.holds[0]!.detail).toContain('kube-system/kured');
  });

  it('a TTL in nanoseconds lapses at created + TTL, not before', () => {
    const v = view({
      kuredDaemonSetAnnotations: kured(single('w1', '2026-12-05T11:30:00Z', 45 * MIN * 1e6)),
    });
    const until = Date.parse('2026-12-05T12:15:00Z');
    expect(actorHolds(v, all, T0).holds[0]).toMatchObject({ actor: 'Kured', until });
    expect(actorsOf(v, all, until - 1)).toEqual(['Kured']);
    expect(actorsOf(v, all, until)).toEqual([]);
  });

  it('reads the multi-lock shape of --concurrency > 1 and holds only the nodes it names', () => {
    const value = JSON.stringify({
      maxOwners: 2,
      locks: [
        {
          nodeID: 'w2',
          metadata: { unschedulable: false },
          created: '2026-12-05T11:59:00Z',
          TTL: 0,
        },
        {
          nodeID: 'w1',
          metadata: { unschedulable: true },
          created: '2026-12-05T11:59:00Z',
          TTL: 0,
        },
      ],
    });
    expect(actorsOf(view({ kuredDaemonSetAnnotations: kured(value) }))).toEqual(['Kured']);
    expect(actorsOf(view({ nodeName: 'w3', kuredDaemonSetAnnotations: kured(value) }))).toEqual([]);
  });

  it('a hand-written {"nodeID":"manual"} lock pauses kured but holds no node', () => {
    expect(actorsOf(view({ kuredDaemonSetAnnotations: kured('{"nodeID":"manual"}') }))).toEqual([]);
    expect(parseKuredLock('{"nodeID":"manual"}')).toEqual(either.right([{ nodeID: 'manual' }]));
  });

  it('another node holding the lock does not hold this one', () => {
    const v = view({ kuredDaemonSetAnnotations: kured(single('w2', '2026-12-05T11:59:00Z', 0)) });
    expect(actorsOf(v)).toEqual([]);
  });

  it('a garbled lock is a problem, not a Kured hold (holdsFromSnapshot makes it an Unreadable hold)', () => {
    const r = actorHolds(view({ kuredDaemonSetAnnotations: kured('{nodeID: w1') }), all, T0);
    expect(r.holds).toEqual([]);
    expect(r.problems).toEqual([
      'kured lock weave.works/kured-node-lock on daemonset kube-system/kured unreadable: not JSON',
    ]);
  });

  it('follows the configured lock annotation (kured --lock-annotation)', () => {
    const c = { ...all, kured: { daemonSet: 'ops/kured-x', lockAnnotation: 'example.com/lock' } };
    const v = view({
      kuredDaemonSetAnnotations: { 'example.com/lock': single('w1', '2026-12-05T11:59:00Z', 0) },
    });
    expect(actorsOf(v, c)).toEqual(['Kured']);
    expect(actorsOf(view({ kuredDaemonSetAnnotations: kured(single('w1', 'x', 0)) }), c)).toEqual(
      [],
    );
  });
});

describe('NodeMaintenance', () => {
  const nm = (nodeName: string, phase?: string, deleting = false) => ({
    metadata: {
      name: `nm-${nodeName}`,
      ...(deleting ? { deletionTimestamp: '2026-12-05T11:59:00Z' } : {}),
    },
    spec: { nodeName, reason: 'firmware' },
    ...(phase !== undefined ? { status: { phase } } : {}),
  });

  it('holds the node in every phase and while the object is being deleted', () => {
    for (const m of [nm('w1'), nm('w1', 'Running'), nm('w1', 'Succeeded'), nm('w1', 'Failed')])
      expect(actorsOf(view({ nodeMaintenances: [m] }))).toEqual(['NodeMaintenance']);
    const r = actorHolds(view({ nodeMaintenances: [nm('w1', 'Succeeded', true)] }), all, T0);
    expect(r.holds[0]!.detail).toBe('NodeMaintenance nm-w1 (phase Succeeded, being deleted)');
  });

  it('a maintenance of another node does not hold this one', () => {
    expect(actorsOf(view({ nodeMaintenances: [nm('w2', 'Running')] }))).toEqual([]);
  });
});

describe('medik8s lease', () => {
  const lease = (holderIdentity: string, renewTime: string | undefined, secs = 3600) => ({
    metadata: { name: 'node-w1', namespace: 'medik8s-leases' },
    spec: {
      holderIdentity,
      leaseDurationSeconds: secs,
      acquireTime: '2026-12-05T11:00:00.000000Z',
      ...(renewTime !== undefined ? { renewTime } : {}),
    },
  });

  it('a valid lease of NodeMaintenance holds the node until renewTime + duration', () => {
    const v = view({ medik8sLease: lease('node-maintenance', '2026-12-05T11:30:00.000000Z') });
    const until = Date.parse('2026-12-05T12:30:00Z');
    const r = actorHolds(v, all, T0);
    expect(r.holds).toEqual([
      {
        actor: 'Medik8sLease',
        detail:
          'lease medik8s-leases/node-w1 held by node-maintenance until 2026-12-05T12:30:00.000Z',
        until,
        disrupting: true,
      },
    ]);
    expect(actorsOf(v, all, until)).toEqual(['Medik8sLease']);
    expect(actorsOf(v, all, until + 1)).toEqual([]);
  });

  it('our own lease, an empty holder and a lapsed lease are no hold', () => {
    expect(
      actorsOf(view({ medik8sLease: lease('noderepair/pod-a', '2026-12-05T11:59:00Z') })),
    ).toEqual([]);
    expect(actorsOf(view({ medik8sLease: lease('', '2026-12-05T11:59:00Z') }))).toEqual([]);
    expect(
      actorsOf(view({ medik8sLease: lease('NodeHealthCheck-nhc', '2026-12-05T11:00:00Z', 60) })),
    ).toEqual([]);
  });

  it('a renewTime ahead of our clock is clock skew: still held', () => {
    const v = view({ medik8sLease: lease('NodeHealthCheck-nhc', '2026-12-05T12:00:30Z', 60) });
    expect(actorsOf(v)).toEqual(['Medik8sLease']);
  });

  it('without renewTime the acquireTime dates it', () => {
    const v = view({ medik8sLease: lease('NodeHealthCheck-nhc', undefined, 7200) });
    expect(actorHolds(v, all, T0).holds[0]!.until).toBe(Date.parse('2026-12-05T13:00:00Z'));
  });
});

describe('Cluster API rollout and cordons', () => {
  it('the outdated-revision taint holds the node', () => {
    const node = {
      metadata: { name: 'w1' },
      spec: {
        taints: [{ key: 'node.cluster.x-k8s.io/outdated-revision', effect: 'PreferNoSchedule' }],
      },
    };
    expect(actorsOf(view({ node }))).toEqual(['ClusterAPIRollout']);
  });

  it('a node cordoned by someone else is held; one we cordoned is not', () => {
    const node = { metadata: { name: 'w1' }, spec: { unschedulable: true } };
    expect(actorsOf(view({ node }))).toEqual(['ManualCordon']);
    expect(actorsOf(view({ node, cordonedByUs: true }))).toEqual([]);
  });

  // Issue 42: ManualCordon used to be opt-in (a cordoned node was repaired by default).
  it('ManualCordon is on by default: the default policy holds a node someone else cordoned', () => {
    const node = { metadata: { name: 'w1' }, spec: { unschedulable: true } };
    expect(actorsOf(view({ node }), defaultCoordinationPolicy)).toEqual(['ManualCordon']);
    expect(actorsOf(view({ node, cordonedByUs: true }), defaultCoordinationPolicy)).toEqual([]);
    // Listing the actors without it is how a policy goes back to repairing cordoned nodes.
    const without = { ...defaultCoordinationPolicy, actors: ['Kured' as const] };
    expect(actorsOf(view({ node }), without)).toEqual([]);
  });
});

describe('Cluster API deleting a machine', () => {
  const capi = (unschedulable: boolean) => ({
    metadata: { name: 'w1', annotations: { 'cluster.x-k8s.io/machine': 'md-0-abc12' } },
    spec: { unschedulable },
  });

  it('holds the cordoned node of a Machine, as a disruption', () => {
    expect(actorHolds(view({ node: capi(true) }), all, T0).holds).toEqual([
      {
        actor: 'ClusterAPIRollout',
        detail:
          'the node of Cluster API Machine md-0-abc12 is cordoned: Cluster API cordons and drains a machine it deletes',
        disrupting: true,
      },
      expect.objectContaining({ actor: 'ManualCordon' }),
    ]);
  });

  it('not when schedulable, nor when the cordon is ours', () => {
    expect(actorsOf(view({ node: capi(false) }))).toEqual([]);
    expect(actorsOf(view({ node: capi(true), cordonedByUs: true }))).toEqual([]);
  });
});

describe('system-upgrade-controller and Karpenter', () => {
  const up: CoordinationPolicy = { ...all, actors: ['SystemUpgrade', 'Karpenter'] };
  const job = (node: string, status: Record<string, unknown> = {}) => ({
    metadata: {
      name: `apply-os-on-${node}-with-abc`,
      namespace: 'system-upgrade',
      labels: { 'upgrade.cattle.io/node': node, 'upgrade.cattle.io/plan': 'os' },
    },
    status,
  });

  it('an unfinished upgrade Job for the node holds it, as a disruption', () => {
    const r = actorHolds(view({ upgradeJobs: [job('w2'), job('w1', { active: 1 })] }), up, T0);
    expect(r.holds).toEqual([
      {
        actor: 'SystemUpgrade',
        detail:
          'system-upgrade-controller Job system-upgrade/apply-os-on-w1-with-abc (plan os) is upgrading the node',
        disrupting: true,
      },
    ]);
  });

  it('a completed or failed Job holds nothing', () => {
    const done = job('w1', {
      completionTime: '2026-12-05T11:00:00Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    const failed = job('w1', { conditions: [{ type: 'Failed', status: 'True' }] });
    expect(actorsOf(view({ upgradeJobs: [done, failed] }), up)).toEqual([]);
  });

  it("Karpenter's disrupted taint holds the node", () => {
    const node = {
      metadata: { name: 'w1' },
      spec: { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] },
    };
    expect(actorHolds(view({ node }), up, T0).holds).toMatchObject([
      { actor: 'Karpenter', disrupting: true },
    ]);
  });
});

describe('the policy chooses the actors and their order', () => {
  const busy = view({
    node: { metadata: { name: 'w1' }, spec: { unschedulable: true } },
    nodeMaintenances: [{ metadata: { name: 'm' }, spec: { nodeName: 'w1' } }],
    kuredDaemonSetAnnotations: kured(single('w1', '2026-12-05T11:59:00Z', 0)),
  });

  it('reports every hold, in the order of coordination.actors', () => {
    expect(
      actorsOf(busy, { ...all, actors: ['ManualCordon', 'NodeMaintenance', 'Kured'] }),
    ).toEqual(['ManualCordon', 'NodeMaintenance', 'Kured']);
  });

  it('an actor left out of the list is not looked at', () => {
    expect(actorsOf(busy, { ...all, actors: ['NodeMaintenance'] })).toEqual(['NodeMaintenance']);
    expect(actorsOf(busy, { ...all, actors: [] })).toEqual([]);
  });
});
