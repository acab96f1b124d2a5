// Other actors on a node (issue 27), on a real kube-apiserver with the real node lifecycle
// controller (envtest) and the real objects of each actor: kured's lock annotation on a real
// DaemonSet, a NodeMaintenance (its CRD from test/crds), a medik8s node lease, Cluster API's
// rollout taint, and a person's cordon. Five nodes fail at once; each is held with its actor
// named (state, Event, `noderepair status`) and never rebooted. Then the actors finish: the
// nodes are repaired, each under our own lease in medik8s' format, released at the end.
// The only doubles: the fake kubelets (envtest) and the reboot provider (test/).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { installCRDs, startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';
import { runCli } from '../cli/noderepair.js';
import { createKubeClient } from '../kube/client-node/index.js';
import { isNotFound } from '../kube/errors.js';
import { EventResource, LeaseResource, NodeResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import type { KubeEvent } from '../kube/types.js';
import type { LeaseSnapshot } from '../health/actors.js';
import { microTime } from '../health/disruption-lease.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { NodeMaintenanceResource } from './actor-source.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';

const env = useControlPlane();
const NM_CRD = join(import.meta.dirname, '../../test/crds/nodemaintenance.medik8s.io.yaml');
const SCOPE = 'test.noderepair.io/coordination-scope';
const KURED_LOCK = 'weave.works/kured-node-lock';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const stateOf = repairStateOf;

describe('other actors on a node', () => {
  it('holds each node another actor disrupts, names the actor, and repairs under our lease once they are done', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('co');
    await installCRDs(kc, [NM_CRD]);
    const kuredNs = await env.namespace('kured');
    const names = {
      kured: env.unique('co-kured'),
      nm: env.unique('co-nm'),
      lease: env.unique('co-lease'),
      rollout: env.unique('co-rollout'),
      cordon: env.unique('co-cordon'),
      karpenter: env.unique('co-karpenter'),
      upgrade: env.unique('co-upgrade'),
    };
    const upgradeNs = await env.namespace('sysup');
    const kubelets = new Map<string, FakeKubelet>();
    for (const name of Object.values(names))
      kubelets.set(
        name,
        await startFakeKubelet(kc, {
          name,
          labels: { [SCOPE]: scope },
          heartbeatSeconds: 1,
          providerID: `test:///${name}`,
        }),
      );
    const provider = new KubeletRebootProviderFake((n) => kubelets.get(n));
    const policyInput = {
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '3s' },
        { type: 'Ready', status: 'False', timeout: '3s' },
      ],
      minHealthyPeriod: '3s',
      retryBackoff: '2s',
      ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 10, recheckInterval: '1s' },
      drain: { timeout: '60s', outOfServiceAfter: '2s' },
      coordination: {
        actors: [
          'Kured',
          'NodeMaintenance',
          'Medik8sLease',
          'ClusterAPIRollout',
          'ManualCordon',
          'Karpenter',
          'SystemUpgrade',
        ],
        kured: { daemonSet: `${kuredNs}/kured` },
        systemUpgrade: { namespace: upgradeNs },
      },
    };
    const policy = resolveRepairPolicy(policyInput);
    if (either.isLeft(policy)) throw new Error(policy.left);

    // The actors, as each writes its mark.
    await apps.createNamespacedDaemonSet({
      namespace: kuredNs,
      body: {
        metadata: {
          name: 'kured',
          // kured's single-lock value (--concurrency=1), TTL 0: held until released.
          annotations: {
            [KURED_LOCK]: JSON.stringify({
              nodeID: names.kured,
              metadata: { unschedulable: false },
              created: new Date().toISOString(),
              TTL: 0,
            }),
          },
        },
        spec: {
          selector: { matchLabels: { app: 'kured' } },
          template: {
            metadata: { labels: { app: 'kured' } },
            // Scheduled nowhere: the lock is what matters here, not kured's pods.
            spec: {
              nodeSelector: { 'test.noderepair.io/nowhere': 'true' },
              containers: [{ name: 'kured', image: 'kured:test' }],
            },
          },
        },
      },
    });
    const nmName = env.unique('nm');
    await client.create(NodeMaintenanceResource, {
      apiVersion: 'nodemaintenance.medik8s.io/v1beta1',
      kind: 'NodeMaintenance',
      metadata: { name: nmName },
      spec: { nodeName: names.nm, reason: 'disk replacement' },
    } as KubeObject);
    await core
      .createNamespace({ body: { metadata: { name: 'medik8s-leases' } } })
      .catch((e: unknown) => {
        if ((e as { code?: number }).code !== 409) throw e;
      });
    const leaseNode = await core.readNode({ name: names.lease });
    await client.create(
      LeaseResource,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: `node-${names.lease}`,
          namespace: 'medik8s-leases',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Node', name: names.lease, uid: leaseNode.metadata!.uid! },
          ],
        },
        spec: {
          holderIdentity: 'NodeHealthCheck-nhc-workers',
          leaseDurationSeconds: 3600,
          acquireTime: microTime(Date.now()),
          renewTime: microTime(Date.now()),
          leaseTransitions: 0,
        },
      } as KubeObject,
      { namespace: 'medik8s-leases' },
    );
    await core.patchNode(
      {
        name: names.rollout,
        body: {
          spec: {
            taints: [
              { key: 'node.cluster.x-k8s.io/outdated-revision', effect: 'PreferNoSchedule' },
            ],
          },
        },
      },
      mergePatch,
    );
    await core.patchNode(
      { name: names.cordon, body: { spec: { unschedulable: true } } },
      mergePatch,
    );
    await core.patchNode(
      {
        name: names.karpenter,
        body: { spec: { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] } },
      },
      mergePatch,
    );
    // system-upgrade-controller's Job for the node, as its job.go labels it; never finishes here.
    const upgradeJob = env.unique('apply-os');
    await kc.makeApiClient(BatchV1Api).createNamespacedJob({
      namespace: upgradeNs,
      body: {
        metadata: {
          name: upgradeJob,
          labels: { 'upgrade.cattle.io/node': names.upgrade, 'upgrade.cattle.io/plan': 'os' },
        },
        spec: {
          template: {
            spec: {
              restartPolicy: 'Never',
              nodeSelector: { 'test.noderepair.io/nowhere': 'true' },
              containers: [{ name: 'upgrade', image: 'upgrade:test' }],
            },
          },
        },
      },
    });

    const ar = startAutoRepair({
      name: 'coordination-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    const eventsOf = async (name: string) =>
      (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
        (e) => e.regarding?.name === name && e.regarding.kind === 'Node',
      );
    const leaseOf = (name: string) =>
      client
        .get<KubeObject & LeaseSnapshot>(LeaseResource, `node-${name}`, {
          namespace: 'medik8s-leases',
        })
        .catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
    try {
      for (const k of kubelets.values()) k.stopHeartbeats(); // -> Ready=Unknown after ~8 s

      const expected: Record<keyof typeof names, RegExp> = {
        kured: /Kured: kured holds its reboot lock for this node/,
        nm: new RegExp(`NodeMaintenance: NodeMaintenance ${nmName} \\(phase Running\\)`),
        lease:
          /Medik8sLease: lease medik8s-leases\/node-.* held by NodeHealthCheck-nhc-workers until/,
        rollout: /ClusterAPIRollout: Cluster API is rolling out a new revision/,
        cordon: /ManualCordon: cordoned by someone else/,
        karpenter: /Karpenter: Karpenter is disrupting the node \(taint karpenter.sh\/disrupted\)/,
        upgrade: new RegExp(
          `SystemUpgrade: system-upgrade-controller Job ${upgradeNs}/${upgradeJob} \\(plan os\\) is upgrading the node`,
        ),
      };
      for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
        const ev = await waitFor(
          `${key}: the HeldByOtherActor event`,
          async () => (await eventsOf(name)).find((e) => e.reason === 'HeldByOtherActor'),
          60_000,
        );
        expect(ev.type).toBe('Warning');
        expect(ev.note).toMatch(expected[key]);
        const st = await stateOf(core, name);
        expect(st?.phase).toBe('Unhealthy');
        expect(st?.remediation).toBeUndefined();
        // Not a storm: nothing to cool down once the actor is done.
        expect(st?.heldByStormSince).toBeUndefined();
        // And the Node says so itself (kubectl describe node).
        const cond = await waitFor(
          `${key}: the NodeRepairHeld condition`,
          async () =>
            (await core.readNode({ name })).status?.conditions?.find(
              (c) => c.type === 'NodeRepairHeld',
            ),
          10_000,
        );
        expect(cond).toMatchObject({ status: 'True', reason: 'OtherActor' });
        expect(cond.message).toMatch(expected[key]);
      }
      expect(provider.requests).toEqual([]);

      // `noderepair status` says the same, from the objects alone.
      const policyFile = join(await mkdtemp(join(tmpdir(), 'coordination-')), 'policy.json');
      await writeFile(policyFile, JSON.stringify(policyInput));
      const out: string[] = [];
      const code = await runCli(
        [
          'status',
          '--kubeconfig',
          env.kubeconfigPath,
          '--policy',
          policyFile,
          '--json',
          '--label-selector',
          `${SCOPE}=${scope}`,
        ],
        {
          stdout: (l: string) => out.push(l),
          stderr: (l: string) => out.push(l),
          readFile: (p: string) => readFile(p, 'utf8'),
        },
      );
      expect(code, out.join('\n')).toBe(0);
      const report = JSON.parse(out.join('\n')) as {
        nodes: { name: string; hold?: { kind: string; actor?: string } }[];
      };
      const holdOf = (n: string) => report.nodes.find((x) => x.name === n)?.hold;
      expect(holdOf(names.kured)).toMatchObject({ kind: 'actor', actor: 'Kured' });
      expect(holdOf(names.nm)).toMatchObject({ kind: 'actor', actor: 'NodeMaintenance' });
      expect(holdOf(names.lease)).toMatchObject({ kind: 'actor', actor: 'Medik8sLease' });
      expect(holdOf(names.rollout)).toMatchObject({ kind: 'actor', actor: 'ClusterAPIRollout' });
      expect(holdOf(names.cordon)).toMatchObject({ kind: 'actor', actor: 'ManualCordon' });
      expect(holdOf(names.karpenter)).toMatchObject({ kind: 'actor', actor: 'Karpenter' });
      expect(holdOf(names.upgrade)).toMatchObject({ kind: 'actor', actor: 'SystemUpgrade' });

      // kured releases its lock, NodeMaintenance ends, NHC releases its lease.
      await apps.patchNamespacedDaemonSet(
        {
          name: 'kured',
          namespace: kuredNs,
          body: { metadata: { annotations: { [KURED_LOCK]: null } } },
        },
        mergePatch,
      );
      await client.delete(NodeMaintenanceResource, nmName);
      await client.delete(LeaseResource, `node-${names.lease}`, { namespace: 'medik8s-leases' });

      // While each repair is in flight its lease is ours, in medik8s' format: sampled all along.
      const ours = new Map<string, LeaseSnapshot>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const key of ['kured', 'nm', 'lease'] as const) {
            const l = await leaseOf(names[key]);
            if (l?.spec?.holderIdentity === 'noderepair' && !ours.has(key)) ours.set(key, l);
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      try {
        for (const key of ['kured', 'nm', 'lease'] as const) {
          const done = await waitFor(
            `${key}: repair success`,
            async () => {
              const s = await stateOf(core, names[key]);
              return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
                ? s
                : undefined;
            },
            90_000,
          );
          expect(done.lastRemediation?.step).toBe(0);
        }
      } finally {
        sampling = false;
        await sampler;
      }
      for (const key of ['kured', 'nm', 'lease'] as const) {
        const lease = ours.get(key);
        expect(lease?.spec?.leaseDurationSeconds, `${key}: our lease was seen`).toBe(3600);
        expect(lease?.metadata?.namespace).toBe('medik8s-leases');
        // Released at the end of the repair.
        await waitFor(
          `${key}: our lease released`,
          async () => (await leaseOf(names[key])) === undefined,
          10_000,
        );
      }
      // The repaired nodes' condition says the hold is over.
      for (const key of ['kured', 'nm', 'lease'] as const) {
        const cond = (await core.readNode({ name: names[key] })).status?.conditions?.find(
          (c) => c.type === 'NodeRepairHeld',
        );
        expect(cond).toMatchObject({ status: 'False', reason: 'NotHeld' });
      }
      const rebooted = provider.requests.map((r) => r.node).sort();
      expect(rebooted).toEqual([names.kured, names.nm, names.lease].sort());
      // The rollout's and the person's nodes are still held, never touched.
      for (const n of [names.rollout, names.cordon, names.karpenter, names.upgrade]) {
        expect((await stateOf(core, n))?.remediation).toBeUndefined();
        expect(await leaseOf(n)).toBeUndefined();
      }
    } finally {
      await ar.stop();
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      for (const name of Object.values(names))
        await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('a mark it may not read holds the repair and names the missing permission; granted, the repair runs', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const admin = createKubeClient(kc);
    const scope = env.unique('perm');
    const ns = await env.namespace('perm');
    const name = env.unique('perm-node');
    const role = env.unique('noderepair-perm');
    // The standalone controller's ClusterRole less `get daemonsets` (kured's lock).
    const rules = [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'create', 'update', 'delete'],
      },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    ];
    await core.createNamespacedServiceAccount({
      namespace: ns,
      body: { metadata: { name: 'noderepair' } },
    });
    await rbac.createClusterRole({ body: { metadata: { name: role }, rules } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'noderepair', namespace: ns }],
      },
    });
    const tr = await core.createNamespacedServiceAccountToken({
      name: 'noderepair',
      namespace: ns,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const cluster = kc.getCurrentCluster()!;
    const saKc = new KubeConfig();
    saKc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'noderepair', token: tr.status!.token }],
      contexts: [{ name: 'sa', cluster: cluster.name, user: 'noderepair' }],
      currentContext: 'sa',
    });

    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new KubeletRebootProviderFake(kubelet);
    const policy = resolveRepairPolicy({
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '3s' }],
      minHealthyPeriod: '3s',
      ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 5, recheckInterval: '1s' },
      drain: { timeout: '30s', outOfServiceAfter: '2s' },
      coordination: { actors: ['Kured'] },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    const ar = startAutoRepair({
      name: 'coordination-perm-int',
      client: createKubeClient(saKc),
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    try {
      kubelet.stopHeartbeats();
      const ev = await waitFor(
        'the HeldByOtherActor event naming the permission',
        async () =>
          (await admin.list<KubeEvent>(EventResource, { namespace: 'default' })).items.find(
            (e) => e.regarding?.name === name && e.reason === 'HeldByOtherActor',
          ),
        60_000,
      );
      expect(ev.note).toContain(
        "Unreadable: missing permission: get daemonsets kube-system/kured (kured's lock)",
      );
      const cond = (await core.readNode({ name })).status?.conditions?.find(
        (c) => c.type === 'NodeRepairHeld',
      );
      expect(cond).toMatchObject({ status: 'True', reason: 'OtherActor' });
      expect(provider.requests).toEqual([]);

      // Granted: kured is not installed here, so nothing holds the node any more.
      await rbac.patchClusterRole(
        {
          name: role,
          body: {
            rules: [...rules, { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] }],
          },
        },
        mergePatch,
      );
      await waitFor(
        'repair success',
        async () => {
          const st = await stateOf(core, name);
          return st?.phase === 'Healthy' && st.lastRemediation?.result === 'Succeeded'
            ? st
            : undefined;
        },
        90_000,
      );
      expect(provider.requests.map((r) => r.action)).toEqual(['SoftReboot']);
    } finally {
      await ar.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
      await rbac.deleteClusterRoleBinding({ name: role }).catch(() => undefined);
      await rbac.deleteClusterRole({ name: role }).catch(() => undefined);
    }
  });

  it('the NodeRepairHeld patch carries the uid it read: a Node recreated under the same name is refused', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const name = env.unique('uid-node');
    await core.createNode({ body: { metadata: { name } } });
    const old = (await core.readNode({ name })).metadata!.uid!;
    await core.deleteNode({ name });
    await core.createNode({ body: { metadata: { name } } });
    try {
      const cond = {
        type: 'NodeRepairHeld',
        status: 'True',
        reason: 'OtherActor',
        message: 'm',
        lastTransitionTime: new Date().toISOString(),
      };
      // The coordinator's patch, with the uid of the Node it read before the recreation.
      await expect(
        client.patch(
          NodeResource,
          name,
          { type: 'strategic', body: { metadata: { uid: old }, status: { conditions: [cond] } } },
          { subresource: 'status' },
        ),
      ).rejects.toThrow();
      const now = await core.readNode({ name });
      expect(now.status?.conditions?.find((c) => c.type === 'NodeRepairHeld')).toBeUndefined();
      // With the current uid it is written.
      await client.patch(
        NodeResource,
        name,
        {
          type: 'strategic',
          body: { metadata: { uid: now.metadata!.uid }, status: { conditions: [cond] } },
        },
        { subresource: 'status' },
      );
      expect(
        (await core.readNode({ name })).status?.conditions?.find((c) => c.type === 'NodeRepairHeld')
          ?.status,
      ).toBe('True');
    } finally {
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
