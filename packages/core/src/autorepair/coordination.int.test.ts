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
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { installCRDs, startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';
import { runCli } from '../cli/noderepair.js';
import { createKubeClient } from '../kube/client-node/index.js';
import { isNotFound } from '../kube/errors.js';
import { EventResource, LeaseResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
import type { KubeEvent } from '../kube/types.js';
import type { LeaseSnapshot } from '../health/actors.js';
import { microTime } from '../health/disruption-lease.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { parseRepairState, type RepairState } from '../health/state.js';
import { Manager } from '../runtime/manager/manager.js';
import { createRuntimeLogger } from '../runtime/manager/logging.js';
import { NodeMaintenanceResource } from './actor-source.js';
import { addAutoRepairController } from './controller.js';

const env = useControlPlane();
const NM_CRD = join(import.meta.dirname, '../../test/crds/nodemaintenance.medik8s.io.yaml');
const SCOPE = 'test.noderepair.io/coordination-scope';
const STATE = 'noderepair.io/repair-state';
const KURED_LOCK = 'weave.works/kured-node-lock';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

async function stateOf(core: CoreV1Api, name: string): Promise<RepairState | undefined> {
  const node = await core.readNode({ name });
  const s = parseRepairState(node.metadata?.annotations?.[STATE]);
  if (either.isLeft(s)) throw new Error(s.left);
  return s.right;
}

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
    };
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
        actors: ['Kured', 'NodeMaintenance', 'Medik8sLease', 'ClusterAPIRollout', 'ManualCordon'],
        kured: { daemonSet: `${kuredNs}/kured` },
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

    const manager = new Manager({
      name: 'coordination-int',
      probes: false,
      logger: createRuntimeLogger({
        name: 'coordination-int',
        level: process.env['LOG_LEVEL'] ?? 'warn',
      }),
    });
    addAutoRepairController(manager, {
      client,
      policy: policy.right,
      provider,
      labelSelector: `${SCOPE}=${scope}`,
      instance: `int-${scope}`,
      drain: {
        gracePeriodSeconds: 0,
        pollIntervalMs: 250,
        initialBackoffMs: 250,
        maxBackoffMs: 1000,
      },
    });
    const running = manager.start();
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
      const rebooted = provider.requests.map((r) => r.node).sort();
      expect(rebooted).toEqual([names.kured, names.nm, names.lease].sort());
      // The rollout's and the person's nodes are still held, never touched.
      for (const n of [names.rollout, names.cordon]) {
        expect((await stateOf(core, n))?.remediation).toBeUndefined();
        expect(await leaseOf(n)).toBeUndefined();
      }
    } finally {
      manager.stop();
      await running;
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      for (const name of Object.values(names))
        await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
