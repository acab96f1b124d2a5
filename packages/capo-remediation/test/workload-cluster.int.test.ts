// The usual Cluster API layout: the remediation, its Machine and OpenStackMachine live in the
// management cluster, the Node lives in a separate workload cluster (a second real control
// plane here), reached only through the kubeconfig Cluster API publishes in Secret
// <cluster>-kubeconfig. The management cluster has a decoy Node of the same name that must
// never be touched. Nova and Keystone are the FAKE (FakeOpenStack).
import { readFileSync } from 'node:fs';
import {
  createKubeClient,
  customResource,
  EventResource,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { ControlPlane, freePort } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenStackRemediationResource } from '../src/controller/index.js';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  readyStatus,
  startController,
  until,
  type World,
} from './support/remediation-env.js';

const env = useControlPlane();
let workload: ControlPlane;
let workloadClient: KubeClient;

const Secret = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});
const Namespace = customResource({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
});
const Pod = customResource({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
});

const spec = {
  steps: [
    { type: 'SoftReboot', timeoutSeconds: 60, retries: 0 },
    { type: 'HardReboot', timeoutSeconds: 60 },
  ],
  drain: { enabled: true, timeoutSeconds: 20 },
  minHealthySeconds: 2,
};

/** The Secret as Cluster API's kubeconfig controller writes it. */
async function publishKubeconfig(w: World, value: string): Promise<void> {
  await w.client.create(Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'cluster.x-k8s.io/secret',
    metadata: {
      name: 'my-cluster-kubeconfig',
      namespace: w.ns,
      labels: { 'cluster.x-k8s.io/cluster-name': 'my-cluster' },
    },
    data: { value: Buffer.from(value).toString('base64') },
  } as KubeObject);
}

/** A Node of the same name in the management cluster: Ready, schedulable, never to be touched. */
async function decoyNode(w: World): Promise<void> {
  await w.client.create(NodeResource, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: w.nodeName, labels: { 'noderepair.dev/decoy': 'true' } },
    spec: { providerID: 'openstack:///00000000-0000-4000-8000-00000000dec0' },
  } as KubeObject);
}

async function runningPodOn(w: World, name: string): Promise<void> {
  await w.nodeClient.create(Pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: w.ns,
      // Managed (a controller would recreate it elsewhere), so the drain evicts it.
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'app',
          uid: '3f1d2c4b-0000-4000-8000-000000000001',
          controller: true,
        },
      ],
    },
    spec: {
      nodeName: w.nodeName,
      // No kubelet confirms a graceful stop: 0 s lets the eviction delete the pod at once.
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
    },
  } as KubeObject);
}

/** A metadata change wakes the remediation now rather than at its 30 s recheck. */
async function poke(w: World, n: number): Promise<void> {
  await w.client.patch(
    OpenStackRemediationResource,
    w.machineName,
    { type: 'merge', body: { metadata: { annotations: { 'test/poke': String(n) } } } },
    { namespace: w.ns },
  );
}

async function events(w: World): Promise<KubeEvent[]> {
  return (await w.client.list<KubeEvent>(EventResource, { namespace: w.ns })).items;
}

const cond = (o: KubeObject & { status?: { conditions?: { type: string }[] } }, t: string) =>
  o.status?.conditions?.find((c) => c.type === t);

describe('OpenStackRemediation controller: a Node in a separate workload cluster', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
    workload = await ControlPlane.start({
      controllerManager: { nodeMonitorGracePeriodSeconds: 8, nodeMonitorPeriodSeconds: 1 },
    });
    workloadClient = createKubeClient(workload.kubeConfig);
  }, 180_000);

  afterAll(async () => {
    await workload?.stop();
  });

  async function world(prefix: string): Promise<World> {
    const ns = await env.namespace(prefix);
    await workloadClient.create(Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    } as KubeObject);
    const w = await buildWorld(env.kubeConfig, ns, env.unique, spec, {
      workload: workload.kubeConfig,
    });
    await decoyNode(w);
    return w;
  }

  it('reaches the Node through <cluster>-kubeconfig: drains and cordons it there, reboots once, succeeds', async () => {
    const w = await world('osr-wl');
    await publishKubeconfig(w, readFileSync(workload.kubeconfigPath, 'utf8'));
    const ctl = startController(env.kubeConfig, w.ns, 'wl', 'auto');
    try {
      await runningPodOn(w, 'app-0');
      w.kubelet.stopHeartbeats();
      await until(
        "Ready=Unknown from the workload cluster's node lifecycle controller",
        async () => (await readyStatus(w)) === 'Unknown',
        60_000,
      );
      await w.createRemediation();
      await until('one SOFT reboot at the fake', async () =>
        w.fake.rebootCount(w.serverId, 'SOFT') === 1 ? true : undefined,
      );
      const during = await until('phase Waiting', () => phaseIs(w, 'Waiting'));
      expect(cond(during, 'Drained')).toMatchObject({ status: 'True', reason: 'Drained' });
      // Cordoned and drained in the workload cluster...
      expect((await w.node()).spec?.unschedulable).toBe(true);
      expect((cond(during, 'Drained') as { message?: string }).message).toContain(
        '1 pod(s) evicted',
      );
      // Evicted there: gone, or terminating (no kubelet confirms the stop of a pod on a dead node).
      const left = (await w.nodeClient.list<KubeObject>(Pod, { namespace: w.ns })).items;
      expect(left.filter((p) => p.metadata?.deletionTimestamp === undefined)).toEqual([]);
      expect(ctl.clusters.connected).toEqual([`${w.ns}/my-cluster`]);
      expect(ctl.logs.some((l) => l.includes('connected to workload cluster'))).toBe(true);

      await w.kubelet.reboot(1000);
      const done = await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 60_000);
      expect(done.status?.history?.map((a) => [a.type, a.result])).toEqual([
        ['SoftReboot', 'Succeeded'],
      ]);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(0);
      expect((await w.node()).spec?.unschedulable).not.toBe(true);
      // ...and the management cluster's Node of the same name was never touched.
      const decoy = await w.client.get<KubeNode>(NodeResource, w.nodeName);
      expect(decoy.spec?.unschedulable).not.toBe(true);
      expect(decoy.spec?.taints ?? []).toEqual([]);
      // No credential of the kubeconfig reached a log line or an event.
      const token = workload.adminToken;
      expect(ctl.logs.filter((l) => l.includes(token))).toEqual([]);
      expect((await events(w)).filter((e) => JSON.stringify(e).includes(token))).toEqual([]);
    } finally {
      await ctl.stop();
      await w.client.delete(NodeResource, w.nodeName).catch(() => undefined);
      await w.close();
    }
  }, 180_000);

  /** Who wrote the decoy itself (not its status) and when. */
  async function decoyWriters(w: World): Promise<string[]> {
    const n = await w.client.get<KubeNode>(NodeResource, w.nodeName);
    type Entry = { manager?: string; operation?: string; time?: string; subresource?: string };
    return (
      ((n.metadata?.managedFields ?? []) as Entry[])
        // Status writes (the kubelet's, the node lifecycle controller's) are not ours to judge;
        // every write of the controller (cordon, taint) is to the Node itself.
        .filter((f) => f.manager !== 'kube-controller-manager' && f.subresource !== 'status')
        .map((f) => `${f.manager}/${f.operation}/${f.time}/${f.subresource ?? ''}`)
    );
  }

  async function expectDecoyUntouched(w: World, writers: string[]): Promise<void> {
    const decoy = await w.client.get<KubeNode>(NodeResource, w.nodeName);
    expect(decoy.spec?.unschedulable).not.toBe(true);
    expect((decoy.spec?.taints ?? []).map((t) => t.key)).not.toContain(
      'node.kubernetes.io/out-of-service',
    );
    expect(await decoyWriters(w)).toEqual(writers);
    expect(w.fake.rebootCount(w.serverId)).toBe(0);
  }

  it('auto mode, Secret missing: waits (TargetResolved=False), never falls back to the management cluster: 0 writes to its Node of the same name', async () => {
    const w = await world('osr-wl-decoy');
    const writers = await decoyWriters(w);
    const ctl = startController(env.kubeConfig, w.ns, 'wl-decoy', 'auto');
    try {
      w.kubelet.stopHeartbeats();
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 60_000);
      await w.createRemediation();
      const waiting = await until('TargetResolved=False', async () => {
        const o = await w.osr();
        return o && cond(o, 'TargetResolved') ? o : undefined;
      });
      expect(cond(waiting, 'TargetResolved')).toMatchObject({
        status: 'False',
        reason: 'TargetNotResolved',
        message: `Secret ${w.ns}/my-cluster-kubeconfig not found: --workload-cluster-access=auto reaches cluster my-cluster's Nodes only through Cluster API's kubeconfig Secret (a self-hosted cluster: set --workload-cluster-access=secret-or-management or management)`,
      });
      // Several reconciles later, still nothing written anywhere.
      await poke(w, 1);
      await new Promise((r) => setTimeout(r, 2000));
      await expectDecoyUntouched(w, writers);
      expect((await w.node()).spec?.unschedulable).not.toBe(true);
    } finally {
      await ctl.stop();
      await w.client.delete(NodeResource, w.nodeName).catch(() => undefined);
      await w.close();
    }
  }, 180_000);

  it('explicit fallback to the management cluster finds a Node of the same name that is another server: 0 writes, NodeVerified=False, a Warning event', async () => {
    const w = await world('osr-wl-decoy2');
    const writers = await decoyWriters(w);
    const ctl = startController(env.kubeConfig, w.ns, 'wl-decoy2', 'secret-or-management');
    try {
      await w.createRemediation();
      const refused = await until('NodeVerified=False', async () => {
        const o = await w.osr();
        return o && cond(o, 'NodeVerified') ? o : undefined;
      });
      expect(cond(refused, 'NodeVerified')).toMatchObject({
        status: 'False',
        reason: 'ProviderIDMismatch',
        message: `node ${w.nodeName} in the management cluster is server 00000000-0000-4000-8000-00000000dec0 (spec.providerID openstack:///00000000-0000-4000-8000-00000000dec0), not the Machine's server ${w.serverId}; not touching it`,
      });
      const warnings = (await events(w)).filter((e) => e.reason === 'NodeIdentityMismatch');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.type).toBe('Warning');
      await poke(w, 1);
      await new Promise((r) => setTimeout(r, 2000));
      await expectDecoyUntouched(w, writers);
      expect((await events(w)).filter((e) => e.reason === 'NodeIdentityMismatch')).toHaveLength(1);
    } finally {
      await ctl.stop();
      await w.client.delete(NodeResource, w.nodeName).catch(() => undefined);
      await w.close();
    }
  }, 180_000);

  it('kubeconfig-secret mode: waits with a clear condition until the Secret exists; a deletion mid-flow uncordons the workload Node', async () => {
    const w = await world('osr-wl-req');
    const ctl = startController(env.kubeConfig, w.ns, 'wl-req', 'kubeconfig-secret');
    try {
      w.kubelet.stopHeartbeats();
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 60_000);
      await w.createRemediation();
      const waiting = await until('TargetResolved=False', async () => {
        const o = await w.osr();
        return o && cond(o, 'TargetResolved') ? o : undefined;
      });
      expect(cond(waiting, 'TargetResolved')).toMatchObject({
        status: 'False',
        reason: 'TargetNotResolved',
        message: `Secret ${w.ns}/my-cluster-kubeconfig not found: --workload-cluster-access=kubeconfig-secret reaches cluster my-cluster's Nodes only through Cluster API's kubeconfig Secret`,
      });
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(0);
      expect((await w.client.get<KubeNode>(NodeResource, w.nodeName)).spec?.unschedulable).not.toBe(
        true,
      );

      // A value that is no kubeconfig: named, never quoted.
      await publishKubeconfig(w, `token: ${workload.adminToken}\n`);
      await poke(w, 1);
      const junk = await until('TargetResolved names the bad value', async () => {
        const o = await w.osr();
        const c = o && (cond(o, 'TargetResolved') as { message?: string } | undefined);
        return c?.message?.includes('is not a kubeconfig') ? c : undefined;
      });
      expect(junk.message).toBe(
        `Secret ${w.ns}/my-cluster-kubeconfig: key value is not a kubeconfig (expected clusters[].cluster.server)`,
      );
      const warnings = (await events(w)).filter((e) => e.reason === 'TargetNotResolved');
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(warnings)).not.toContain(workload.adminToken);

      // Cluster API publishes the real one: the remediation goes on (the Secret is re-read).
      await w.client.patch(
        Secret,
        'my-cluster-kubeconfig',
        {
          type: 'merge',
          body: {
            data: {
              value: Buffer.from(readFileSync(workload.kubeconfigPath, 'utf8')).toString('base64'),
            },
          },
        },
        { namespace: w.ns },
      );
      await poke(w, 2);
      await until(
        'one SOFT reboot at the fake',
        async () => (w.fake.rebootCount(w.serverId, 'SOFT') === 1 ? true : undefined),
        90_000,
      );
      expect((await w.node()).spec?.unschedulable).toBe(true);

      // Deleted mid-flow (node still down): the finalizer uncordons the WORKLOAD Node.
      await w.client.delete(OpenStackRemediationResource, w.machineName, { namespace: w.ns });
      await until('remediation gone', async () =>
        (await w.osr()) === undefined ? true : undefined,
      );
      expect((await w.node()).spec?.unschedulable).not.toBe(true);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      expect((await events(w)).some((e) => e.reason === 'CleanedUp')).toBe(true);
    } finally {
      await ctl.stop();
      await w.client.delete(NodeResource, w.nodeName).catch(() => undefined);
      await w.close();
    }
  }, 240_000);
  it("the workload cluster's apiserver does not answer: NodeVerified=False (NodeUnreadable), nothing sent or escalated; once it answers, the remediation goes on", async () => {
    const w = await world('osr-wl-down');
    // Cluster API's kubeconfig, but its server is a port nothing listens on: the workload
    // apiserver down (or cut off) as the controller sees it.
    const real = readFileSync(workload.kubeconfigPath, 'utf8');
    const down = real.replace(workload.server, `https://127.0.0.1:${await freePort()}`);
    expect(down).not.toBe(real);
    await publishKubeconfig(w, down);
    const ctl = startController(env.kubeConfig, w.ns, 'wl-down', 'auto');
    try {
      w.kubelet.stopHeartbeats();
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 60_000);
      await w.createRemediation();
      const held = await until('NodeVerified=False (NodeUnreadable)', async () => {
        const o = await w.osr();
        const c = o && (cond(o, 'NodeVerified') as { reason?: string } | undefined);
        return c?.reason === 'NodeUnreadable' ? { o, c } : undefined;
      });
      expect(held.c).toMatchObject({ status: 'False' });
      expect((held.c as { message?: string }).message).toMatch(
        new RegExp(
          `^Node ${w.nodeName} in the workload cluster ${w.ns}/my-cluster cannot be read \\(.+\\): waiting`,
        ),
      );
      const warned = (await events(w)).filter((e) => e.reason === 'NodeUnreadable');
      expect(warned.length).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(warned)).not.toContain(workload.adminToken);
      // Nothing sent while the Node cannot be read.
      expect(w.fake.rebootCount(w.serverId)).toBe(0);
      expect((await w.osr())?.status?.history ?? []).toEqual([]);

      // The apiserver answers again (Cluster API's Secret, as it is): the remediation goes on
      // and the hold's condition is gone.
      await w.client.patch(
        Secret,
        'my-cluster-kubeconfig',
        { type: 'merge', body: { data: { value: Buffer.from(real).toString('base64') } } },
        { namespace: w.ns },
      );
      await poke(w, 1);
      await until(
        'one SOFT reboot at the fake',
        async () => (w.fake.rebootCount(w.serverId, 'SOFT') === 1 ? true : undefined),
        90_000,
      );
      const after = await w.osr();
      expect(after && cond(after, 'NodeVerified')).toBeUndefined();
      expect((await w.node()).spec?.unschedulable).toBe(true);
    } finally {
      await ctl.stop();
      await w.client.delete(NodeResource, w.nodeName).catch(() => undefined);
      await w.close();
    }
  }, 240_000);
});
