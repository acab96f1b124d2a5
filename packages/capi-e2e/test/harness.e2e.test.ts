import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { conditionOf, startCapiEnvironment, type CapiEnvironment } from '../src/index.js';
import { aggregateRole, GROUP, testRemediationCRDs, VERSION } from './support/test-remediation.js';

// Proves the harness with the REAL Cluster API manager: Machines get real nodeRefs to fake
// kubelets, and the real MachineHealthCheck controller drives the external remediation
// contract against a tiny test remediation kind (no noderepair code involved).

type Cond = { type: string; status: string; reason?: string };
interface Obj {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
  };
  spec?: Record<string, unknown>;
  status?: { conditions?: Cond[]; expectedMachines?: number; currentHealthy?: number };
}

const cond = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);

describe('Cluster API e2e harness (real cluster-api-controller on envtest)', () => {
  let env: CapiEnvironment;
  let custom: CustomObjectsApi;
  let failed = false;

  const remediations = async (): Promise<Obj[]> =>
    ((await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: env.namespace, plural: 'testremediations' })) as { items: Obj[] })
      .items;
  const capi = (plural: string, name: string) =>
    custom.getNamespacedCustomObject({ group: 'cluster.x-k8s.io', version: 'v1beta2', namespace: env.namespace, plural, name }) as Promise<Obj>;
  const markFailed = () =>
    onTestFailed(() => {
      failed = true;
    });

  beforeAll(async () => {
    env = await startCapiEnvironment({
      replicas: 3,
      extraCRDs: testRemediationCRDs(),
      extraObjects: [aggregateRole],
    });
    custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await KubernetesObjectApi.makeApiClient(env.kubeConfig).create({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TestRemediationTemplate',
      metadata: { name: 'reboot', namespace: env.namespace },
      spec: { template: { spec: { strategy: 'Reboot', timeoutSeconds: 300 } } },
    } as KubernetesObject);
    await KubernetesObjectApi.makeApiClient(env.kubeConfig).create({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineHealthCheck',
      metadata: { name: 'workers', namespace: env.namespace },
      spec: {
        clusterName: env.clusterName,
        selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': env.machineDeploymentName } },
        checks: {
          nodeStartupTimeoutSeconds: 600,
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 5 },
            { type: 'Ready', status: 'False', timeoutSeconds: 5 },
          ],
        },
        remediation: {
          triggerIf: { unhealthyLessThanOrEqualTo: 1 },
          templateRef: { apiVersion: `${GROUP}/${VERSION}`, kind: 'TestRemediationTemplate', name: 'reboot' },
        },
      },
    } as KubernetesObject);
  });

  afterAll(async () => {
    if (!env) return;
    const kept = await env.stop({ keepLogs: failed });
    if (kept) process.stderr.write(`capi-e2e: logs of the failed run kept in ${kept}\n`);
  });

  it('runs the pinned Cluster API manager against the envtest kube-apiserver', () => {
    markFailed();
    expect(env.versions.clusterAPI).toBe('v1.13.6');
    expect(env.versions.kubernetes).toMatch(/^v1\.35\./);
    expect(env.manager.running).toBe(true);
  });

  it('serves v1beta1 through the manager conversion webhook (v1beta2 is stored)', async () => {
    markFailed();
    const old = (await custom.getNamespacedCustomObject({
      group: 'cluster.x-k8s.io',
      version: 'v1beta1',
      namespace: env.namespace,
      plural: 'machinehealthchecks',
      name: 'workers',
    })) as { apiVersion: string; spec: Record<string, unknown> };
    expect(old.apiVersion).toBe('cluster.x-k8s.io/v1beta1');
    expect(old.spec.maxUnhealthy).toBe(1);
    expect(old.spec.remediationTemplate).toMatchObject({ apiVersion: `${GROUP}/${VERSION}`, kind: 'TestRemediationTemplate', name: 'reboot' });
    expect(old.spec.unhealthyConditions).toEqual([
      { type: 'Ready', status: 'Unknown', timeout: '5s' },
      { type: 'Ready', status: 'False', timeout: '5s' },
    ]);
  });

  it('a MachineDeployment of 3 reaches 3 Running, Ready Machines whose nodeRefs the real Machine controller set', async () => {
    markFailed();
    const machines = await env.waitForHealthyMachines(3);
    expect(machines).toHaveLength(3);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    for (const m of machines) {
      expect(m.phase).toBe('Running');
      expect(m.nodeName).toBe(m.name);
      expect(conditionOf(m, 'NodeHealthy')?.status).toBe('True');
      expect(m.providerID).toMatch(/^openstack:\/\/\/[0-9a-f-]{36}$/);
      const node = await core.readNode({ name: m.nodeName as string });
      expect(node.spec?.providerID).toBe(m.providerID);
      expect(env.fakeKubelets.get(m.name)?.heartbeating).toBe(true);
    }
    // Ready folds NodeHealthy into the Machine's summary and then into the MachineDeployment;
    // both are written by later reconciles, so wait for them rather than read once.
    await waitFor(
      'all 3 Machines Ready=True and MachineDeployment readyReplicas=3',
      async () => {
        const ms = await env.machines();
        const md = await capi('machinedeployments', env.machineDeploymentName);
        const ready = (md.status as { readyReplicas?: number } | undefined)?.readyReplicas;
        return ms.length === 3 && ms.every((m) => conditionOf(m, 'Ready')?.status === 'True') && ready === 3 ? true : undefined;
      },
      60_000,
      500,
    );
  });

  it('the MHC creates the remediation object named after an unhealthy Machine, with the contract metadata, and deletes it on recovery', async () => {
    markFailed();
    const mhc = await waitFor(
      'MachineHealthCheck to see 3 healthy Machines',
      async () => {
        const o = await capi('machinehealthchecks', 'workers');
        return o.status?.expectedMachines === 3 && o.status.currentHealthy === 3 && cond(o, 'RemediationAllowed')?.status === 'True' ? o : undefined;
      },
      90_000,
      500,
    );
    expect(mhc.status?.currentHealthy).toBe(3);

    const [victim] = (await env.machines()).map((m) => m.name).sort();
    if (!victim) throw new Error('no worker Machine');
    const machine = await capi('machines', victim);
    env.fakeKubelets.get(victim)?.stopHeartbeats();
    try {

      // Node lifecycle grace 8 s -> Ready=Unknown; MHC timeout 5 s -> unhealthy.
      const remediation = await waitFor(
        `TestRemediation ${victim}`,
        async () => (await remediations()).find((r) => r.metadata.name === victim),
        90_000,
        500,
      );
      expect((await remediations()).map((r) => r.metadata.name)).toEqual([victim]);
      expect(remediation.metadata.ownerReferences).toHaveLength(1);
      const owner = remediation.metadata.ownerReferences?.[0];
      expect(owner).toMatchObject({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: victim, uid: machine.metadata.uid });
      expect(owner?.controller ?? false).toBe(false);
      expect(remediation.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe(env.clusterName);
      expect(remediation.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name']).toBe('reboot');
      expect(remediation.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind']).toBe(`TestRemediationTemplate.${GROUP}`);
      expect(remediation.spec).toEqual({ strategy: 'Reboot', timeoutSeconds: 300 });

      const unhealthy = await waitFor(
        'Machine HealthCheckSucceeded=False and ExternallyRemediated=False',
        async () => {
          const m = await capi('machines', victim);
          return cond(m, 'HealthCheckSucceeded')?.status === 'False' && cond(m, 'ExternallyRemediated')?.status === 'False' ? m : undefined;
        },
        30_000,
        500,
      );
      expect(cond(unhealthy, 'HealthCheckSucceeded')?.reason).toBe('UnhealthyNode');
      expect(cond(unhealthy, 'ExternallyRemediated')?.reason).toBe('WaitingForRemediation');
      // External remediation: the MHC leaves OwnerRemediated alone, so the MachineSet keeps the Machine.
      expect(cond(unhealthy, 'OwnerRemediated')).toBeUndefined();

    } finally {
      env.fakeKubelets.get(victim)?.resumeHeartbeats();
    }
    await waitFor(
      `TestRemediation ${victim} deleted by the MHC`,
      async () => ((await remediations()).some((r) => r.metadata.name === victim) ? undefined : true),
      90_000,
      500,
    );
    const healthy = await waitFor(
      'MachineHealthCheck back to 3 healthy',
      async () => {
        const o = await capi('machinehealthchecks', 'workers');
        return o.status?.currentHealthy === 3 ? o : undefined;
      },
      60_000,
      500,
    );
    expect(cond(healthy, 'RemediationAllowed')?.status).toBe('True');
    expect((await env.machines()).map((m) => m.name)).toContain(victim);
  });

  it('a storm above unhealthyLessThanOrEqualTo gives RemediationAllowed=False/TooManyUnhealthy and no remediation objects', async () => {
    markFailed();
    const names = (await env.machines()).map((m) => m.name).sort();
    const stormed = names.slice(0, 2);
    for (const n of stormed) env.fakeKubelets.get(n)?.stopHeartbeats();
    try {
      const tripped = await waitFor(
        'RemediationAllowed=False',
        async () => {
          const o = await capi('machinehealthchecks', 'workers');
          return cond(o, 'RemediationAllowed')?.status === 'False' ? o : undefined;
        },
        90_000,
        500,
      );
      expect(cond(tripped, 'RemediationAllowed')?.reason).toBe('TooManyUnhealthy');
      expect(tripped.status?.expectedMachines).toBe(3);
      // The short-circuit counts nodes still inside their timeout as unhealthy, so it trips
      // before currentHealthy drops; once the timeouts pass, currentHealthy is 1. All along,
      // no remediation object may appear.
      const seen = { remediations: 0, allowed: 0 };
      const settled = await waitFor(
        'currentHealthy=1',
        async () => {
          seen.remediations += (await remediations()).length;
          const o = await capi('machinehealthchecks', 'workers');
          if (cond(o, 'RemediationAllowed')?.status !== 'False') seen.allowed++;
          return o.status?.currentHealthy === 1 ? o : undefined;
        },
        60_000,
        500,
      );
      expect(seen).toEqual({ remediations: 0, allowed: 0 });
      expect(cond(settled, 'RemediationAllowed')?.reason).toBe('TooManyUnhealthy');
      // Hold the storm a while longer: the short-circuit must keep every remediation back.
      const until = Date.now() + 10_000;
      while (Date.now() < until) {
        expect(await remediations()).toEqual([]);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      for (const n of stormed) env.fakeKubelets.get(n)?.resumeHeartbeats();
    }
    await waitFor(
      'MachineHealthCheck back to 3 healthy and RemediationAllowed=True',
      async () => {
        const o = await capi('machinehealthchecks', 'workers');
        return o.status?.currentHealthy === 3 && cond(o, 'RemediationAllowed')?.status === 'True' ? true : undefined;
      },
      90_000,
      500,
    );
    expect(await remediations()).toEqual([]);
  });

  it('scaling the MachineDeployment up and down creates and deletes Machines, their Nodes and fake kubelets', async () => {
    markFailed();
    await env.scaleMachineDeployment(4);
    const four = await env.waitForHealthyMachines(4);
    process.stderr.write(
      `capi-e2e: machines after scale-up: ${four.map((m) => `${m.name} Ready=${conditionOf(m, 'Ready')?.status} HealthCheckSucceeded=${conditionOf(m, 'HealthCheckSucceeded')?.status}/${conditionOf(m, 'HealthCheckSucceeded')?.reason}`).join('; ')}\n`,
    );
    for (const m of four) expect(env.fakeKubelets.has(m.name)).toBe(true);
    await env.scaleMachineDeployment(3);
    const three = await env.waitForHealthyMachines(3);
    const gone = four.map((m) => m.name).filter((n) => !three.some((t) => t.name === n));
    expect(gone).toHaveLength(1);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    // The real Machine controller deletes the Node of a deleted Machine; the harness stops its kubelet.
    await waitFor(
      `Node ${gone[0]} deleted and its fake kubelet stopped`,
      async () => {
        const nodes = await core.listNode();
        return !nodes.items.some((n) => n.metadata?.name === gone[0]) && !env.fakeKubelets.has(gone[0] as string) ? true : undefined;
      },
      60_000,
      500,
    );
  });
});
