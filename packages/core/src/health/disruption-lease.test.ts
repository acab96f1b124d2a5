// Our medik8s-format disruption lease: what we write, and when we take, renew and release it.
import { describe, expect, it } from 'vitest';
import {
  acquireOrRenew,
  disruptionLeaseName,
  microTime,
  release,
  renewDue,
  type LeaseRequest,
} from './disruption-lease.js';
import { actorHolds } from './actors.js';
import { defaultCoordinationPolicy } from './coordination-policy.js';

const T0 = Date.parse('2026-12-05T12:00:00Z');
const req = (over: Partial<LeaseRequest> = {}): LeaseRequest => ({
  node: { name: 'Worker-1', uid: 'uid-1' },
  namespace: 'medik8s-leases',
  identity: 'noderepair/pod-a',
  durationSeconds: 900,
  now: T0,
  ...over,
});
const theirs = (holderIdentity: string, renewTime: string, secs = 3600) => ({
  metadata: { name: 'node-worker-1', namespace: 'medik8s-leases', resourceVersion: '7' },
  spec: {
    holderIdentity,
    leaseDurationSeconds: secs,
    acquireTime: '2026-12-05T10:00:00.000000Z',
    renewTime,
    leaseTransitions: 2,
  },
});

describe('the lease object', () => {
  it('is medik8s-leases/node-<node> (lowercase), owned by the Node, with MicroTime stamps', () => {
    const step = acquireOrRenew(undefined, req());
    expect(step).toEqual({
      kind: 'create',
      lease: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'node-worker-1',
          namespace: 'medik8s-leases',
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'Worker-1', uid: 'uid-1' }],
        },
        spec: {
          holderIdentity: 'noderepair/pod-a',
          leaseDurationSeconds: 900,
          acquireTime: '2026-12-05T12:00:00.000000Z',
          renewTime: '2026-12-05T12:00:00.000000Z',
          leaseTransitions: 0,
        },
      },
    });
    expect(disruptionLeaseName('W2')).toBe('node-w2');
    expect(microTime(T0 + 123)).toBe('2026-12-05T12:00:00.123000Z');
  });

  it('once written, other actors (and our own model) see it: it holds the node for others only', () => {
    const step = acquireOrRenew(undefined, req({ node: { name: 'w1', uid: 'u' } }));
    if (step.kind !== 'create') throw new Error(step.kind);
    const seen = (us: string) =>
      actorHolds(
        {
          nodeName: 'w1',
          node: { metadata: { name: 'w1' } },
          cordonedByUs: false,
          medik8sLease: step.lease,
          ourLeaseIdentity: us,
        },
        defaultCoordinationPolicy,
        T0 + 60_000,
      ).holds;
    expect(seen('noderepair/pod-a')).toEqual([]);
    expect(seen('NodeHealthCheck-nhc')).toMatchObject([
      { actor: 'Medik8sLease', until: T0 + 900_000 },
    ]);
  });
});

describe('taking and renewing', () => {
  it('someone else’s live lease is theirs: held, with when it lapses', () => {
    expect(
      acquireOrRenew(theirs('node-maintenance', '2026-12-05T11:30:00.000000Z'), req()),
    ).toEqual({
      kind: 'held',
      holder: 'node-maintenance',
      until: Date.parse('2026-12-05T12:30:00Z'),
    });
  });

  it('a lapsed or empty lease is taken over, counting the transition', () => {
    for (const l of [
      theirs('node-maintenance', '2026-12-05T10:30:00.000000Z'),
      theirs('', '2026-12-05T11:59:00.000000Z'),
    ]) {
      const step = acquireOrRenew(l, req());
      expect(step.kind).toBe('update');
      if (step.kind !== 'update') return;
      expect(step.lease.metadata.resourceVersion).toBe('7');
      expect(step.lease.spec).toMatchObject({
        holderIdentity: 'noderepair/pod-a',
        leaseTransitions: 3,
        acquireTime: '2026-12-05T12:00:00.000000Z',
      });
    }
  });

  it('a renewTime ahead of our clock is never taken over (clock skew is waited out)', () => {
    expect(acquireOrRenew(theirs('x', '2026-12-05T12:05:00.000000Z', 60), req()).kind).toBe('held');
  });

  it('ours is kept while more than a third is left, then renewed keeping acquireTime', () => {
    const ours = theirs('noderepair/pod-a', '2026-12-05T11:50:00.000000Z', 900);
    expect(acquireOrRenew(ours, req())).toEqual({ kind: 'keep' });
    expect(renewDue(ours, T0)).toBe(false);
    const later = T0 + 6 * 60_000; // 4 min left of 15
    expect(renewDue(ours, later)).toBe(true);
    const step = acquireOrRenew(ours, req({ now: later }));
    if (step.kind !== 'update') throw new Error(step.kind);
    expect(step.lease.spec).toMatchObject({
      acquireTime: '2026-12-05T10:00:00.000000Z',
      renewTime: '2026-12-05T12:06:00.000000Z',
      leaseTransitions: 2,
    });
  });

  it('ours with another duration is rewritten at once', () => {
    const ours = theirs('noderepair/pod-a', '2026-12-05T11:59:00.000000Z', 3600);
    expect(acquireOrRenew(ours, req()).kind).toBe('update');
  });
});

describe('release', () => {
  it('deletes only our own lease, with its resourceVersion', () => {
    expect(release(theirs('noderepair/pod-a', '2026-12-05T11:59:00Z'), 'noderepair/pod-a')).toEqual(
      { kind: 'delete', namespace: 'medik8s-leases', name: 'node-worker-1', resourceVersion: '7' },
    );
    expect(release(theirs('node-maintenance', '2026-12-05T11:59:00Z'), 'noderepair/pod-a')).toEqual(
      {
        kind: 'none',
        why: 'held by node-maintenance, not us',
      },
    );
    expect(release(undefined, 'noderepair/pod-a')).toEqual({ kind: 'none', why: 'no lease' });
  });
});
