// Fault 7: least privilege. Every capo controller process in this suite authenticates with a
// ServiceAccount token (TokenRequest) bound by the shipped config/rbac/*.yaml, never as admin.
// Here: that token really is limited, and a role missing one permission (patch nodes, so
// the controller cannot cordon) gives a clear event on the remediation and no reboot.
import {
  createKubeClient,
  ForbiddenError,
  NodeResource,
  PodResource,
  customResource,
} from '@noderepair/core/kube';
import { loadKubeConfigFile } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, SERVICE_ACCOUNT, SYSTEM_NAMESPACE } from '../src/capo-world.js';
import { shippedRbac, type ManifestObject } from '../src/least-privilege.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SecretResource = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});

const SPEC = {
  steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};

/** The shipped manager ClusterRole without `patch` on nodes, bound to another account. */
function rbacWithoutNodePatch(sa: string): ManifestObject[] {
  const shipped = shippedRbac();
  const role = shipped.find(
    (o) => o.kind === 'ClusterRole' && o.metadata.name === 'capo-remediation-controller-manager',
  );
  const leRole = shipped.find((o) => o.kind === 'Role');
  if (!role || !leRole)
    throw new Error('shipped RBAC: manager ClusterRole or leader-election Role missing');
  const rules = (role['rules'] as { resources: string[]; verbs: string[] }[]).map((r) =>
    r.resources.includes('nodes') ? { ...r, verbs: r.verbs.filter((v) => v !== 'patch') } : r,
  );
  const name = `${sa}-role`;
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: sa, namespace: SYSTEM_NAMESPACE },
    },
    { ...role, metadata: { name }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: SYSTEM_NAMESPACE }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: SYSTEM_NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leRole.metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: SYSTEM_NAMESPACE }],
    },
  ];
}

describe('least privilege', () => {
  let cluster: CapoCluster;

  beforeAll(async () => {
    cluster = await CapoCluster.start(chaosDir(), 'capo-rbac');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('the controllers token is the shipped ServiceAccount, not admin', async () => {
    const sa = createKubeClient(loadKubeConfigFile(cluster.kubeconfig));
    // Allowed by the shipped role.
    await sa.list(NodeResource);
    // Not allowed: deleting nodes or pods (the drain only evicts), listing secrets (the role
    // only gets them by name).
    const denied = [
      await sa.delete(NodeResource, 'no-such-node').catch((e: unknown) => e),
      await sa
        .delete(PodResource, 'no-such-pod', { namespace: 'default' })
        .catch((e: unknown) => e),
      await sa.list(SecretResource, { namespace: SYSTEM_NAMESPACE }).catch((e: unknown) => e),
    ];
    for (const e of denied) {
      expect(e).toBeInstanceOf(ForbiddenError);
      expect((e as Error).message).toContain(
        `system:serviceaccount:${SYSTEM_NAMESPACE}:${SERVICE_ACCOUNT}`,
      );
    }
    record({
      fault: 'least privilege (ServiceAccount token)',
      variant: 'shipped role denies what it does not grant',
      injected: denied.length,
      survived: denied.filter((e) => e instanceof ForbiddenError).length,
      // Requests refused by RBAC: no remediation, no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
  });

  it('a missing permission (patch nodes) gives a clear event, no reboot and no crash', async () => {
    const sa = 'capo-remediation-nopatch';
    const kubeconfig = await cluster.serviceAccountKubeconfig(
      rbacWithoutNodePatch(sa),
      sa,
      'nopatch.kubeconfig',
    );
    const ns = 'rbac-nopatch';
    const w = await cluster.world(ns, SPEC);
    const p = await cluster.startController({
      identity: 'capo-nopatch',
      leaseId: 'capo-nopatch',
      namespace: ns,
      kubeconfig,
    });
    await w.breakNode();
    await w.createRemediation();
    const ev = await until('an event naming the missing permission', async () =>
      (await w.events()).find((e) => /forbidden/i.test(e.note ?? '') && /nodes/.test(e.note ?? '')),
    );
    // The Event and the status condition are two writes; wait for the second as well.
    const cond = await until('a condition naming the missing permission', async () =>
      (await w.osr())?.status?.conditions?.find((c) => /forbidden/i.test(c.message ?? '')),
    );
    record({
      fault: 'least privilege (ServiceAccount token)',
      variant: 'role without patch on nodes',
      injected: 1,
      survived: ev && w.rebootCount() === 0 && !p.crashed ? 1 : 0,
      // From the fake Nova's record of this server (none expected at all).
      doubleReboots: Math.max(0, w.rebootCount() - 1),
      crashes: p.crashed ? 1 : 0,
      fuzzInputs: 0,
    });
    expect(ev.type).toBe('Warning');
    expect(ev.note).toMatch(/cannot patch resource "nodes"/);
    expect(cond?.status).toBe('False');
    expect(w.rebootCount()).toBe(0);
    expect(p.running).toBe(true);
    const lines = p.lines;
    await p.stop();
    const r = scanForSecrets(lines, await cluster.events(), [...cluster.secrets, ...w.tokens()]);
    expect(r.leaks).toEqual([]);
  });
});
