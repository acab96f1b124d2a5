// The actor model against a real kube-apiserver (envtest): the Lease we would write is
// accepted as built (MicroTime, ownerReference to the Node), optimistic concurrency keeps a
// second taker out, and what the API hands back is judged as the pure tests judge it; kured's
// lock is read from a real DaemonSet's annotation. The only double is the small port adapter
// below (the controller's own adapter does not exist yet).
import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import { ConflictError, isNotFound } from '../kube/errors.js';
import { customResource, LeaseResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import { actorHolds, type ActorView, type LeaseSnapshot } from './actors.js';
import { defaultCoordinationPolicy } from './coordination-policy.js';
import {
  acquireOrRenew,
  disruptionLeaseName,
  release,
  type DisruptionLease,
  type DisruptionLeasePort,
} from './disruption-lease.js';

const env = useControlPlane();
const DaemonSetResource = customResource({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  namespaced: true,
});

/** The port over a KubeClient, as small as the test needs. */
function leasePort(client: KubeClient): DisruptionLeasePort {
  return {
    get: (namespace, name) =>
      client
        .get<KubeObject & LeaseSnapshot>(LeaseResource, name, { namespace })
        .catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        }),
    create: async (lease) => {
      await client.create(LeaseResource, lease as DisruptionLease & KubeObject, {
        namespace: lease.metadata.namespace,
      });
    },
    update: async (lease) => {
      await client.update(LeaseResource, lease as DisruptionLease & KubeObject, {
        namespace: lease.metadata.namespace,
      });
    },
    delete: (namespace, name, resourceVersion) =>
      client.delete(LeaseResource, name, { namespace, preconditions: { resourceVersion } }),
  };
}

const view = (nodeName: string, over: Partial<ActorView>): ActorView => ({
  nodeName,
  node: { metadata: { name: nodeName } },
  cordonedByUs: false,
  ourLeaseIdentity: 'noderepair/pod-a',
  ...over,
});

describe('medik8s-format disruption lease on a real API server', () => {
  it('is created as built, seen as held by others, taken over only when lapsed, and released by us', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const port = leasePort(client);
    const namespace = await env.namespace('medik8s-leases');
    const nodeName = env.unique('lease-node');
    const node = await core.createNode({ body: { metadata: { name: nodeName } } });
    const ref = { name: nodeName, uid: node.metadata!.uid! };
    const leaseName = disruptionLeaseName(nodeName);
    const now = Date.now();
    const req = { node: ref, namespace, identity: 'noderepair/pod-a', durationSeconds: 600, now };
    try {
      expect(await port.get(namespace, leaseName)).toBeUndefined();
      const first = acquireOrRenew(undefined, req);
      if (first.kind !== 'create') throw new Error(first.kind);
      await port.create(first.lease);

      const stored = await port.get(namespace, leaseName);
      expect(stored?.spec).toMatchObject({
        holderIdentity: 'noderepair/pod-a',
        leaseDurationSeconds: 600,
        leaseTransitions: 0,
      });
      expect((stored as KubeObject).metadata?.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: ref.uid },
      ]);
      // As NodeHealthCheck would read it: held until renewTime + duration, to the millisecond.
      const byOthers = actorHolds(
        view(nodeName, { medik8sLease: stored!, ourLeaseIdentity: 'NodeHealthCheck-nhc' }),
        defaultCoordinationPolicy,
        now + 1000,
      ).holds;
      expect(byOthers).toEqual([
        expect.objectContaining({ actor: 'Medik8sLease', until: now + 600_000 }),
      ]);
      expect(
        actorHolds(view(nodeName, { medik8sLease: stored! }), defaultCoordinationPolicy, now + 1000)
          .holds,
      ).toEqual([]);
      // Another taker with the same read sees it held.
      expect(acquireOrRenew(stored, { ...req, identity: 'node-maintenance' })).toMatchObject({
        kind: 'held',
        holder: 'noderepair/pod-a',
      });

      // Once lapsed, two takers race from the same read: one update wins, the other conflicts.
      const later = now + 601_000;
      const a = acquireOrRenew(stored, { ...req, identity: 'node-maintenance', now: later });
      const b = acquireOrRenew(stored, { ...req, identity: 'NodeHealthCheck-x', now: later });
      if (a.kind !== 'update' || b.kind !== 'update') throw new Error(`${a.kind} ${b.kind}`);
      await port.update(a.lease);
      await expect(port.update(b.lease)).rejects.toBeInstanceOf(ConflictError);
      const taken = await port.get(namespace, leaseName);
      expect(taken?.spec).toMatchObject({
        holderIdentity: 'node-maintenance',
        leaseTransitions: 1,
      });

      // We release only our own: now it is theirs, so nothing is deleted.
      expect(release(taken, 'noderepair/pod-a')).toMatchObject({ kind: 'none' });
      const theirs = release(taken, 'node-maintenance');
      if (theirs.kind !== 'delete') throw new Error(theirs.kind);
      // A stale resourceVersion cannot delete a lease someone renewed meanwhile.
      await expect(
        port.delete(theirs.namespace, theirs.name, String(stored!.metadata!.resourceVersion)),
      ).rejects.toBeInstanceOf(ConflictError);
      await port.delete(theirs.namespace, theirs.name, theirs.resourceVersion);
      expect(await port.get(namespace, leaseName)).toBeUndefined();
    } finally {
      await core.deleteNode({ name: nodeName }).catch(() => undefined);
    }
  });
});

describe("kured's lock on a real DaemonSet", () => {
  it('the multi-lock annotation as stored is read back and holds exactly the node it names', async () => {
    const client = createKubeClient(env.kubeConfig);
    const namespace = await env.namespace('kured');
    const created = new Date(Date.now() - 60_000).toISOString();
    const lock = JSON.stringify({
      maxOwners: 2,
      locks: [
        { nodeID: 'w1', metadata: { unschedulable: false }, created, TTL: 0 },
        { nodeID: 'w2', metadata: { unschedulable: false }, created, TTL: 30 * 1e9 },
      ],
    });
    await client.create(
      DaemonSetResource,
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'kured', annotations: { 'weave.works/kured-node-lock': lock } },
        spec: {
          selector: { matchLabels: { app: 'kured' } },
          template: {
            metadata: { labels: { app: 'kured' } },
            spec: {
              // No node matches: no daemon pod is ever wanted (envtest schedules nothing anyway).
              nodeSelector: { 'test.noderepair.io/none': 'none' },
              containers: [{ name: 'kured', image: 'ghcr.io/kubereboot/kured:1.17.1' }],
            },
          },
        },
      } as KubeObject,
      { namespace },
    );
    const ds = await client.get<KubeObject>(DaemonSetResource, 'kured', { namespace });
    const policy = {
      ...defaultCoordinationPolicy,
      kured: { ...defaultCoordinationPolicy.kured, daemonSet: `${namespace}/kured` },
    };
    const annotations = ds.metadata?.annotations ?? {};
    const at = (n: string) =>
      actorHolds(view(n, { kuredDaemonSetAnnotations: annotations }), policy, Date.now());
    expect(at('w1').holds.map((h) => h.actor)).toEqual(['Kured']);
    expect(at('w1').holds[0]!.detail).toContain(`${namespace}/kured`);
    // w2's 30 s TTL ran out 30 s ago.
    expect(at('w2')).toEqual({ holds: [], problems: [] });
    expect(at('w3').holds).toEqual([]);
  });
});
