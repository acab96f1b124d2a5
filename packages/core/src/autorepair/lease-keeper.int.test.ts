// LeaseKeeper against a real kube-apiserver: a start creates the disruption lease in one
// request, and a lease that exists (ours, another holder's, lapsed) is judged as take() does.
import { useControlPlane } from '@noderepair/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import type { KubeObject } from '../kube/object.js';
import { LeaseResource } from '../kube/resource.js';
import type { LeaseSnapshot } from '../health/actors.js';
import { microTime } from '../health/disruption-lease.js';
import { DisruptionLeaseHolder, LeaseKeeper } from './lease-keeper.js';

const env = useControlPlane();

/** The client, with every call it makes recorded as "verb resource". */
function recording(client: KubeClient): { client: KubeClient; calls: string[] } {
  const calls: string[] = [];
  const wrapped = new Proxy(client, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push(`${String(prop)} ${(args[0] as { plural?: string }).plural ?? ''}`);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: wrapped, calls };
}

const lease = (ns: string, node: string, holder: string, renewedMsAgo: number) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: `node-${node}`, namespace: ns },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 3600,
    acquireTime: microTime(Date.now() - renewedMsAgo),
    renewTime: microTime(Date.now() - renewedMsAgo),
    leaseTransitions: 0,
  },
});

describe('LeaseKeeper.takeForStart on a real apiserver', () => {
  it('creates an absent lease in one request; an existing one is read and judged', async () => {
    const ns = await env.namespace('lease-keeper');
    const base = createKubeClient(env.kubeConfig);
    const { client, calls } = recording(base);
    const keeper = new LeaseKeeper(client, ns, () => Date.now());

    // Absent: one create, nothing read first.
    expect(await keeper.takeForStart({ name: 'n1', uid: 'u1' })).toEqual({ kind: 'held-by-us' });
    expect(calls).toEqual(['create leases']);
    const made = await base.get<KubeObject & LeaseSnapshot>(LeaseResource, 'node-n1', {
      namespace: ns,
    });
    expect(made.spec?.holderIdentity).toBe(DisruptionLeaseHolder);

    // Ours already (a start replayed in a new term): AlreadyExists, then read, kept.
    calls.length = 0;
    expect(await keeper.takeForStart({ name: 'n1', uid: 'u1' })).toEqual({ kind: 'held-by-us' });
    expect(calls).toEqual(['create leases', 'get leases']);

    // Another actor's live lease: theirs, untouched.
    await base.create(LeaseResource, lease(ns, 'n2', 'node-maintenance', 60_000), {
      namespace: ns,
    });
    const taken = await keeper.takeForStart({ name: 'n2', uid: 'u2' });
    expect(taken).toMatchObject({ kind: 'held', holder: 'node-maintenance' });
    const theirs = await base.get<KubeObject & LeaseSnapshot>(LeaseResource, 'node-n2', {
      namespace: ns,
    });
    expect(theirs.spec?.holderIdentity).toBe('node-maintenance');

    // Another actor's lapsed lease (renewed two hours ago, an hour long): taken over.
    await base.create(LeaseResource, lease(ns, 'n3', 'node-maintenance', 2 * 3600_000), {
      namespace: ns,
    });
    expect(await keeper.takeForStart({ name: 'n3', uid: 'u3' })).toEqual({ kind: 'held-by-us' });
    const over = await base.get<KubeObject & LeaseSnapshot>(LeaseResource, 'node-n3', {
      namespace: ns,
    });
    expect(over.spec?.holderIdentity).toBe(DisruptionLeaseHolder);
    expect(over.spec?.leaseTransitions).toBe(1);
  }, 60_000);
});
