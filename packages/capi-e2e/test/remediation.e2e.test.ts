import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, setHeaderOptions, type KubernetesObject } from '@kubernetes/client-node';
import type { FakeOpenStack } from '@noderepair/openstack/testing';
import { waitFor } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { conditionOf, startCapiEnvironment, type CapiEnvironment, type MachineView } from '../src/index.js';
import { ConformanceRecorder } from './support/conformance.js';
import {
  FakeNovaRebootsFakeKubelets,
  REMEDIATION_GROUP,
  REMEDIATION_VERSION,
  remediationCRDs,
  startFakeOpenStack,
  startRemediationController,
} from './support/remediation-world.js';

// issue 7: our OpenStackRemediation controller (in-process, its own @noderepair/core Manager,
// FakeOpenStack as Keystone + Nova) against the REAL Cluster API manager v1.13.6: the real
// MachineHealthCheck creates and deletes our OpenStackRemediations, the real MachineSet
// replaces Machines we give up on. One environment serves every scenario, in order; each
// scenario leaves 3 healthy workers and no MachineHealthCheck behind.

const CAPI = 'cluster.x-k8s.io';
const TEMPLATE = 'openstack-reboot';
const templateRef = { apiVersion: `${REMEDIATION_GROUP}/${REMEDIATION_VERSION}`, kind: 'OpenStackRemediationTemplate', name: TEMPLATE };
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

type Cond = { type: string; status: string; reason?: string };
interface Obj {
  metadata: { name: string; generation?: number; deletionTimestamp?: string; ownerReferences?: Array<{ kind: string; name: string }> };
  spec?: Record<string, unknown>;
  status?: { conditions?: Cond[]; expectedMachines?: number; currentHealthy?: number; phase?: string; observedGeneration?: number };
}
const cond = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);
const serverOf = (m: MachineView): string => {
  const id = m.providerID?.replace(/^openstack:\/\/\//, '');
  if (!id) throw new Error(`Machine ${m.name} has no providerID`);
  return id;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('OpenStackRemediation with the real Cluster API manager (v1.13.6 on envtest)', () => {
  let env: CapiEnvironment;
  let fake: FakeOpenStack;
  let wiring: FakeNovaRebootsFakeKubelets;
  let controller: ReturnType<typeof startRemediationController>;
  let custom: CustomObjectsApi;
  let objects: KubernetesObjectApi;
  let conformance: ConformanceRecorder;
  let failed = false;
  const markFailed = () =>
    onTestFailed(() => {
      failed = true;
    });

  const remediations = async (): Promise<Obj[]> =>
    (
      (await custom.listNamespacedCustomObject({
        group: REMEDIATION_GROUP,
        version: REMEDIATION_VERSION,
        namespace: env.namespace,
        plural: 'openstackremediations',
      })) as { items: Obj[] }
    ).items;
  const mhc = (name: string) =>
    custom.getNamespacedCustomObject({ group: CAPI, version: 'v1beta2', namespace: env.namespace, plural: 'machinehealthchecks', name }) as Promise<Obj>;
  const totalReboots = () => fake.requests.filter((e) => e.action === 'reboot' && e.status === 202).length;
  const selector = () => ({ matchLabels: { 'cluster.x-k8s.io/deployment-name': env.machineDeploymentName } });

  const createMhcV1beta2 = (name: string, remediation: Record<string, unknown>) =>
    objects.create({
      apiVersion: `${CAPI}/v1beta2`,
      kind: 'MachineHealthCheck',
      metadata: { name, namespace: env.namespace },
      spec: {
        clusterName: env.clusterName,
        selector: selector(),
        checks: {
          nodeStartupTimeoutSeconds: 600,
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 5 },
            { type: 'Ready', status: 'False', timeoutSeconds: 5 },
          ],
        },
        remediation: { ...remediation, templateRef },
      },
    } as KubernetesObject);
  const deleteMhc = async (name: string) => {
    await custom.deleteNamespacedCustomObject({ group: CAPI, version: 'v1beta2', namespace: env.namespace, plural: 'machinehealthchecks', name });
    await waitFor(`MachineHealthCheck ${name} gone`, async () => ((await mhc(name).catch(() => undefined)) ? undefined : true), 30_000, 500);
  };
  const waitMhcHealthy = (name: string, n: number) =>
    waitFor(
      `MachineHealthCheck ${name} to see ${n} healthy`,
      async () => {
        const o = await mhc(name);
        return o.status?.expectedMachines === n && o.status.currentHealthy === n && cond(o, 'RemediationAllowed')?.status === 'True' ? o : undefined;
      },
      120_000,
      500,
    );

  beforeAll(async () => {
    fake = await startFakeOpenStack();
    wiring = new FakeNovaRebootsFakeKubelets(fake, () => env.fakeKubelets);
    env = await startCapiEnvironment({
      replicas: 3,
      extraCRDs: remediationCRDs,
      newServerId: wiring.serverFor,
      // The garbage collector too: in a real cluster it deletes the OpenStackRemediation of a
      // Machine the MachineSet deleted (through the ownerReference the MHC set).
      controllerManager: {
        nodeMonitorGracePeriodSeconds: 8,
        nodeMonitorPeriodSeconds: 1,
        controllers: ['node-lifecycle-controller', 'garbage-collector-controller'],
      },
    });
    custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    // The identityRef of every harness OpenStackMachine: { name: cloud-config, cloudName: openstack }.
    await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: env.namespace,
      body: { metadata: { name: 'cloud-config' }, stringData: { 'clouds.yaml': fake.cloudsYaml() } },
    });
    await objects.create({
      apiVersion: `${REMEDIATION_GROUP}/${REMEDIATION_VERSION}`,
      kind: 'OpenStackRemediationTemplate',
      metadata: { name: TEMPLATE, namespace: env.namespace },
      // A short ladder: one soft reboot, 30 s (the CRD minimum) for the node to come back.
      spec: { template: { spec: { steps: [{ type: 'SoftReboot', timeoutSeconds: 30 }], drain: { enabled: false }, minHealthySeconds: 2 } } },
    } as KubernetesObject);
    controller = startRemediationController(env.kubeConfig, env.namespace);
    wiring.start();
    conformance = new ConformanceRecorder(env.kubeConfig, env.namespace, env.clusterName);
  });

  afterAll(async () => {
    await wiring?.stop();
    await controller?.stop();
    await fake?.close();
    if (!env) return;
    const kept = await env.stop({ keepLogs: failed });
    if (kept) {
      controller?.logger.dump(join(kept, 'capo-remediation-controller.log'));
      writeFileSync(join(kept, 'conformance.json'), JSON.stringify(conformance?.records ?? [], null, 2));
      process.stderr.write(`capi-e2e: logs of the failed run kept in ${kept}\n`);
    }
  });

  /** Stops one node's heartbeats under MHC `name` and follows the whole external remediation. */
  async function rebootScenario(name: string, version: 'v1beta1' | 'v1beta2', victim: MachineView) {
    await waitMhcHealthy(name, 3);
    const healthyRec = await conformance.snapshot(`${name}: all healthy`, name, version);
    expect(healthyRec.real.currentHealthy).toBe(3);
    const server = serverOf(victim);
    const rebootsBefore = totalReboots();
    const phases = new Set<string>();
    env.fakeKubelets.get(victim.name)?.stopHeartbeats();
    const osr = await waitFor(
      `OpenStackRemediation ${victim.name} created by the real MHC`,
      async () => (await remediations()).find((r) => r.metadata.name === victim.name),
      90_000,
      250,
    );
    expect(osr.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)).toEqual([`Machine/${victim.name}`]);
    // Our controller reboots the server; the wiring brings the fake kubelet back; the MHC then
    // deletes the OpenStackRemediation (our finalizer lets it go).
    await waitFor(
      `OpenStackRemediation ${victim.name} deleted by the real MHC after recovery`,
      async () => {
        const o = (await remediations()).find((r) => r.metadata.name === victim.name);
        if (o?.status?.phase) phases.add(o.status.phase);
        return o ? undefined : true;
      },
      120_000,
      250,
    );
    const back = await env.waitForHealthyMachines(3);
    expect(back.map((m) => m.name)).toContain(victim.name);
    expect(fake.rebootCount(server)).toBe(1);
    expect(fake.rebootCount(server, 'SOFT')).toBe(1);
    expect(totalReboots() - rebootsBefore).toBe(1);
    // As Cluster API's own MHC does, the controller read the Node through <cluster>-kubeconfig.
    expect(
      controller.logger.lines.some(
        (l) => l.includes('connected to workload cluster') && l.includes(`${env.namespace}/${env.clusterName}`),
      ),
    ).toBe(true);
    expect(wiring.rebooted.filter((r) => r.serverId === server).map((r) => r.kubeletRebooted)).toEqual([true]);
    expect([...phases].some((p) => p !== 'Failed')).toBe(true);
    expect(phases.has('Failed')).toBe(false);
    await waitMhcHealthy(name, 3);
    await conformance.snapshot(`${name}: recovered`, name, version);
    await deleteMhc(name);
  }

  it('1a. v1beta2 MHC (remediation.templateRef): one silent node is rebooted once and the real MHC deletes the remediation', async () => {
    markFailed();
    await env.waitForHealthyMachines(3);
    const [victim] = (await env.machines()).sort((a, b) => a.name.localeCompare(b.name));
    if (!victim) throw new Error('no worker Machine');
    await createMhcV1beta2('mhc-v1beta2', { triggerIf: { unhealthyLessThanOrEqualTo: 1 } });
    await rebootScenario('mhc-v1beta2', 'v1beta2', victim);
  });

  it('1b. v1beta1 MHC (remediationTemplate, served by conversion): the same, once', async () => {
    markFailed();
    const victim = (await env.machines()).sort((a, b) => a.name.localeCompare(b.name))[1];
    if (!victim) throw new Error('no second worker Machine');
    await objects.create({
      apiVersion: `${CAPI}/v1beta1`,
      kind: 'MachineHealthCheck',
      metadata: { name: 'mhc-v1beta1', namespace: env.namespace },
      spec: {
        clusterName: env.clusterName,
        selector: selector(),
        maxUnhealthy: 1,
        nodeStartupTimeout: '10m',
        unhealthyConditions: [
          { type: 'Ready', status: 'Unknown', timeout: '5s' },
          { type: 'Ready', status: 'False', timeout: '5s' },
        ],
        remediationTemplate: templateRef,
      },
    } as KubernetesObject);
    await rebootScenario('mhc-v1beta1', 'v1beta1', victim);
  });

  it('3. a storm above unhealthyLessThanOrEqualTo: TooManyUnhealthy, no remediation object, zero reboots', async () => {
    markFailed();
    const name = 'mhc-storm';
    await createMhcV1beta2(name, { triggerIf: { unhealthyLessThanOrEqualTo: 1 } });
    await waitMhcHealthy(name, 3);
    const rebootsBefore = totalReboots();
    const stormed = (await env.machines()).map((m) => m.name).sort().slice(0, 2);
    for (const n of stormed) env.fakeKubelets.get(n)?.stopHeartbeats();
    try {
      const seen = { remediations: 0 };
      const settled = await waitFor(
        'RemediationAllowed=False/TooManyUnhealthy with currentHealthy=1',
        async () => {
          seen.remediations += (await remediations()).length;
          const o = await mhc(name);
          return o.status?.currentHealthy === 1 && cond(o, 'RemediationAllowed')?.status === 'False' ? o : undefined;
        },
        90_000,
        500,
      );
      expect(cond(settled, 'RemediationAllowed')?.reason).toBe('TooManyUnhealthy');
      expect(settled.status?.expectedMachines).toBe(3);
      const rec = await conformance.snapshot(`${name}: storm (2 of 3 silent)`, name, 'v1beta2');
      expect(rec.real.remediationAllowed).toBe(false);
      const until = Date.now() + 10_000;
      while (Date.now() < until) {
        seen.remediations += (await remediations()).length;
        await sleep(1_000);
      }
      expect(seen.remediations).toBe(0);
      expect(totalReboots() - rebootsBefore).toBe(0);
    } finally {
      for (const n of stormed) env.fakeKubelets.get(n)?.resumeHeartbeats();
    }
    await env.waitForHealthyMachines(3);
    await waitMhcHealthy(name, 3);
    await conformance.snapshot(`${name}: storm over`, name, 'v1beta2');
    expect(await remediations()).toEqual([]);
    expect(totalReboots() - rebootsBefore).toBe(0);
    await deleteMhc(name);
  });

  it('2. nodes that never come back: the ladder gives up (OwnerRemediated=False), the real MachineSet replaces them one at a time (maxInFlight 1)', async () => {
    markFailed();
    await custom.patchNamespacedCustomObject(
      {
        group: CAPI,
        version: 'v1beta2',
        namespace: env.namespace,
        plural: 'machinedeployments',
        name: env.machineDeploymentName,
        body: { spec: { remediation: { maxInFlight: 1 } } },
      },
      mergePatch,
    );
    const name = 'mhc-replace';
    await createMhcV1beta2(name, {});
    await waitMhcHealthy(name, 3);
    const before = (await env.machines()).sort((a, b) => a.name.localeCompare(b.name));
    const hopeless = before.slice(0, 2);
    const hopelessNames = new Set(hopeless.map((m) => m.name));
    // Earlier scenarios rebooted these servers already: count this scenario's reboots only.
    const rebootsBefore = new Map(hopeless.map((m) => [m.name, fake.rebootCount(serverOf(m))]));
    for (const m of hopeless) {
      wiring.hopeless.add(m.name);
      env.fakeKubelets.get(m.name)?.stopHeartbeats();
    }
    await waitFor(
      'OpenStackRemediations for both hopeless Machines',
      async () => {
        const names = (await remediations()).map((r) => r.metadata.name);
        return hopeless.every((m) => names.includes(m.name)) ? true : undefined;
      },
      90_000,
      250,
    );
    // Inside the 30 s ladder step: two unhealthy targets, remediation allowed (default 100%).
    const mid = await conformance.snapshot(`${name}: 2 hopeless, ladder running`, name, 'v1beta2');
    expect(mid.real.currentHealthy).toBe(1);

    // Watch by polling (250 ms) until both are replaced: how many Machines are deleting at once.
    let maxDeleting = 0;
    const ownerRemediatedFalse = new Set<string>();
    const deletedAt = new Map<string, number>();
    let replaced: MachineView[] = [];
    const deadline = Date.now() + 300_000;
    for (;;) {
      const ms = await env.machines();
      const deleting = ms.filter((m) => m.deleting);
      maxDeleting = Math.max(maxDeleting, deleting.length);
      for (const m of deleting) if (!deletedAt.has(m.name)) deletedAt.set(m.name, Date.now());
      for (const m of ms) if (hopelessNames.has(m.name) && conditionOf(m, 'OwnerRemediated')?.status === 'False') ownerRemediatedFalse.add(m.name);
      const live = ms.filter((m) => !m.deleting);
      const healthy = live.filter((m) => m.phase === 'Running' && m.nodeName && conditionOf(m, 'NodeHealthy')?.status === 'True');
      if (live.length === 3 && healthy.length === 3 && !ms.some((m) => hopelessNames.has(m.name))) {
        replaced = live;
        break;
      }
      if (Date.now() > deadline) throw new Error(`hopeless Machines not replaced in time; have ${ms.map((m) => `${m.name}${m.deleting ? '(deleting)' : ''}`).join(', ')}`);
      await sleep(250);
    }
    process.stderr.write(`capi-e2e: replacement: max Machines deleting at once=${maxDeleting}; deleted=${JSON.stringify([...deletedAt])}\n`);
    expect([...ownerRemediatedFalse].sort()).toEqual([...hopelessNames].sort());
    expect(maxDeleting).toBe(1);
    expect([...deletedAt.keys()].sort()).toEqual([...hopelessNames].sort());
    // Each hopeless server got exactly the one soft reboot of the ladder, which did nothing.
    for (const m of hopeless) expect(fake.rebootCount(serverOf(m)) - (rebootsBefore.get(m.name) ?? 0)).toBe(1);
    // The replacements are new Machines with their own servers, Nodes and NodeHealthy=True.
    const fresh = replaced.filter((m) => !before.some((b) => b.name === m.name));
    expect(fresh).toHaveLength(2);
    for (const m of fresh) {
      expect(m.nodeName).toBe(m.name);
      expect(wiring.machineOf.get(serverOf(m))).toBe(m.name);
    }
    // The garbage collector deletes them (owner Machine gone); our finalizer lets them go.
    await waitFor('remediations of the replaced Machines gone', async () => ((await remediations()).length === 0 ? true : undefined), 90_000, 500);
    await waitMhcHealthy(name, 3);
    await conformance.snapshot(`${name}: replaced`, name, 'v1beta2');
    await deleteMhc(name);
  });

  it('4. conformance: @noderepair/core mhc evaluation agrees with the real MHC on every settled snapshot', () => {
    markFailed();
    const table = conformance.records
      .map((r) => `${r.label} [${r.mhc}] real=${JSON.stringify(r.real)} ours=${JSON.stringify(r.ours)}${r.differences.length ? ` DIFF ${r.differences.join('; ')}` : ''}${r.notes.length ? ` NOTE ${r.notes.join('; ')}` : ''}`)
      .join('\n');
    process.stderr.write(`capi-e2e: conformance snapshots:\n${table}\n`);
    expect(conformance.records.length).toBeGreaterThanOrEqual(8);
    expect(conformance.records.filter((r) => r.differences.length > 0)).toEqual([]);
    // The per-Machine unhealthy set was compared where the real MHC published it faithfully:
    // with two unhealthy targets under the running ladder, and whenever all were healthy.
    const compared = conformance.records.filter((r) => r.notes.length === 0);
    expect(compared.some((r) => r.real.unhealthy.length === 2 && r.ours.unhealthy.length === 2)).toBe(true);
    expect(compared.length).toBeGreaterThanOrEqual(6);
  });
});
