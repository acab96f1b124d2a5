// Kubelet identities (ControlPlaneOptions.nodeIdentities) on a real kube-apiserver: the Node
// authorizer and NodeRestriction, not our reading of them, decide what a node may write.
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, startFakeKubelet, type ControlPlane } from '../src/index.js';

const status = (e: unknown) => (e as { code?: number }).code;
const node = (name: string): V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
});

describe('kubelet identities (nodeIdentities)', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({ nodeIdentities: ['node-a', 'node-b'] });
  }, 120_000);
  afterAll(async () => {
    await cp?.stop();
  });

  it('a node writes its own Node and Lease, and is refused another node and Secrets', async () => {
    const a = cp.nodeKubeConfig('node-a').makeApiClient(CoreV1Api);
    const admin = cp.kubeConfig.makeApiClient(CoreV1Api);
    await a.createNode({ body: node('node-a') });
    await admin.createNode({ body: node('node-b') });
    const leases = cp.nodeKubeConfig('node-a').makeApiClient(CoordinationV1Api);
    await leases.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name: 'node-a' },
        spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40 },
      },
    });
    // NodeRestriction: node-a may not change node-b (403 from admission, not from RBAC).
    const other = await a
      .replaceNode({
        name: 'node-b',
        body: { ...(await admin.readNode({ name: 'node-b' })), spec: { unschedulable: true } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(status(other)).toBe(403);
    const message = (JSON.parse(String((other as { body?: unknown }).body)) as { message: string }).message;
    expect(message).toBe('nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"');
    const deleted = await a.deleteNode({ name: 'node-b' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(status(deleted)).toBe(403);
    // The Node authorizer: no Secret that no pod bound to node-a references.
    const secrets = await a.listNamespacedSecret({ namespace: 'default' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(status(secrets)).toBe(403);
    expect((await admin.readNode({ name: 'node-b' })).spec?.unschedulable).toBeUndefined();
  });

  it('the fake kubelet runs as its node and turns Ready', async () => {
    const kubelet = await startFakeKubelet(cp.nodeKubeConfig('node-b'), {
      name: 'node-b',
      heartbeatSeconds: 1,
    });
    try {
      const admin = cp.kubeConfig.makeApiClient(CoreV1Api);
      const n = await admin.readNode({ name: 'node-b' });
      expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    } finally {
      await kubelet.stop();
    }
  });

  it('an unknown node name is an error that names it and the names there are', () => {
    expect(() => cp.nodeKubeConfig('node-z')).toThrow(
      'no kubelet identity for node "node-z": nodeIdentities was "node-a", "node-b"',
    );
  });

  it('a name the apiserver would refuse is an error before anything starts', async () => {
    await expect(startControlPlane({ nodeIdentities: ['Node_A'] })).rejects.toThrow(
      'nodeIdentities[0] "Node_A" is not a valid Node name',
    );
  });
});
