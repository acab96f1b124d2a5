// Row "decoy node: 0 writes". The Node a Machine names is found by NAME; a management cluster
// may hold a Node of that name that is another machine. (1) The default access (auto) with
// Cluster API's <cluster>-kubeconfig Secret missing: no silent fallback to this cluster, the
// remediation waits with TargetResolved=False. (2) The explicit fallback
// (secret-or-management) reaches this cluster, where the Machine's nodeRef names a Node whose
// providerID is another server: NodeVerified=False, one Warning event, nothing written.
// Either way: 0 writes to the Node, 0 Nova actions.
import { NodeResource, type KubeNode, type KubeObject } from '@noderepair/core/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, type CapoWorld } from '../src/capo-world.js';
import { sleep, until } from '../src/wait.js';
import { chaosDir, record } from './support/chaos-file.js';

const SPEC = {
  steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};

type FieldsEntry = { manager?: string; operation?: string; time?: string; subresource?: string };

describe('decoy node: 0 writes', () => {
  let cluster: CapoCluster;
  beforeAll(async () => {
    cluster = await CapoCluster.start(chaosDir(), 'capo-decoy');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** Who wrote the Node itself (not its status) and when. */
  async function writers(name: string): Promise<string[]> {
    const n = await cluster.admin.get<KubeNode>(NodeResource, name);
    return (
      ((n.metadata?.managedFields ?? []) as FieldsEntry[])
        // Status writes (the kubelet's, the node lifecycle controller's) are not ours to judge;
        // every write of the controller (cordon, taint) is to the Node itself.
        .filter((f) => f.manager !== 'kube-controller-manager' && f.subresource !== 'status')
        .map((f) => `${f.manager}/${f.operation}/${f.time}/${f.subresource ?? ''}`)
    );
  }

  async function scenario(
    w: CapoWorld,
    node: string,
    access: 'auto' | 'secret-or-management',
    condition: string,
  ) {
    const before = await writers(node);
    const p = await cluster.startController({
      identity: `decoy-${access}`,
      leaseId: `capo-decoy-${access}`,
      namespace: w.ns,
      workloadClusterAccess: access,
    });
    try {
      await w.breakNode();
      await w.createRemediation();
      const o = await until(`${condition}=False`, async () => {
        const r = await w.osr();
        const c = r?.status?.conditions?.find((x) => x.type === condition);
        return c?.status === 'False' ? r : undefined;
      });
      await sleep(5_000); // several reconciles: still nothing
      const after = await writers(node);
      const n = await cluster.admin.get<KubeNode>(NodeResource, node);
      const untouched =
        JSON.stringify(after) === JSON.stringify(before) &&
        n.spec?.unschedulable !== true &&
        !(n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service');
      record({
        fault: 'decoy node: 0 writes',
        variant:
          access === 'auto'
            ? 'kubeconfig Secret missing (auto)'
            : 'providerID of another server (explicit fallback)',
        injected: 1,
        survived: untouched && w.rebootCount() === 0 ? 1 : 0,
        // From the fake Nova's record of this server (none expected at all).
        doubleReboots: Math.max(0, w.rebootCount() - 1),
        crashes: p.crashed ? 1 : 0,
        fuzzInputs: 0,
      });
      expect(after).toEqual(before);
      expect(untouched).toBe(true);
      expect(w.rebootCount()).toBe(0);
      return o!;
    } finally {
      await p.stop();
    }
  }

  it('auto, kubeconfig Secret missing: waits, never falls back to this cluster', async () => {
    const w = await cluster.world('decoy-auto', SPEC);
    const o = await scenario(w, w.nodeName, 'auto', 'TargetResolved');
    const c = o.status?.conditions?.find((x) => x.type === 'TargetResolved');
    expect(c?.message).toContain('chaos-kubeconfig not found');
  });

  it('explicit fallback, the nodeRef names a Node that is another server: NodeVerified=False, a Warning event', async () => {
    const w = await cluster.world('decoy-fallback', SPEC);
    const decoy = `${w.ns}-decoy`;
    await cluster.admin.create(NodeResource, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: decoy },
      spec: { providerID: 'openstack:///00000000-0000-4000-8000-00000000dec0' },
    } as KubeObject);
    await w.pointNodeRefAt(decoy);
    try {
      await scenario(w, decoy, 'secret-or-management', 'NodeVerified');
      const warnings = (await w.events()).filter((e) => e.reason === 'NodeIdentityMismatch');
      expect(warnings.length).toBe(1);
    } finally {
      await cluster.admin.delete(NodeResource, decoy).catch(() => undefined);
    }
  });
});
