// Fencing before the out-of-service taint, on a real kube-apiserver with the real
// kube-controller-manager running the node lifecycle, pod GC and attach-detach controllers.
// A node's fake kubelet stops posting (Ready -> Unknown through the node lifecycle
// controller) while a StatefulSet pod with a ReadWriteOnce volume and its VolumeAttachment
// sits on it: a network partition looks exactly like this, with the container still writing.
// The controller cordons, drains (the pod stays Terminating: no kubelet confirms it stopped)
// and hard-reboots through a FAKE provider whose fence answer the test controls. As long as
// the provider says NotFenced: no out-of-service taint, the pod is not force-deleted and the
// VolumeAttachment stays. Once it reports Fenced: the taint, then the real pod GC
// force-deletes the pod, which is what lets the attach-detach controller force-detach.
//
// A private control plane (not the shared one of the integration project): the shared one
// runs only the node lifecycle controller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, PatchStrategy, setHeaderOptions, StorageV1Api } from '@kubernetes/client-node';
import { ControlPlane, startFakeKubelet, waitFor } from '@noderepair/envtest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { parseRepairState } from '../health/state.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import { Manager } from '../runtime/manager/manager.js';
import { createRuntimeLogger } from '../runtime/manager/logging.js';
import { addAutoRepairController } from './controller.js';

const SCOPE = 'test.noderepair.io/fence-scope';
const STATE = 'noderepair.io/repair-state';
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * FAKE MachineProvider with a controllable fence answer. execute() accepts every action once
 * per id (and answers a repeated id with the first outcome, as the port requires) but touches
 * nothing: the machine stays partitioned, so its bootID never changes and only the provider's
 * fence answer can prove it is off.
 */
class ControllableFenceProviderFake implements MachineProvider {
  readonly name = 'controllable-fence-fake';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: ActionRequest[] = [];
  readonly fenceQueries: FenceQuery[] = [];
  fenceAnswer: FenceStatus = { kind: 'NotFenced', reason: 'the power-off is still pending' };
  private readonly done = new Map<string, ProviderOutcome>();

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: ProviderOutcome = { kind: 'Accepted', message: `${req.action} accepted` };
    this.done.set(req.actionId, r);
    return r;
  }

  async fence(q: FenceQuery): Promise<FenceStatus> {
    this.fenceQueries.push({ ...q });
    return this.fenceAnswer;
  }
}

describe('fencing before the out-of-service taint (real node lifecycle, pod GC, attach-detach)', () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await ControlPlane.start({
      controllerManager: {
        controllers: [
          'node-lifecycle-controller',
          'pod-garbage-collector-controller',
          'persistentvolume-attach-detach-controller',
        ],
        nodeMonitorGracePeriodSeconds: 8,
        nodeMonitorPeriodSeconds: 1,
      },
    });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('a partitioned node is never tainted (pod and VolumeAttachment stay) until the provider reports it fenced; then the pod GC frees the pod', async () => {
    const kc = cp.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const storage = kc.makeApiClient(StorageV1Api);
    const client = createKubeClient(kc);
    const name = 'fence-node';
    const ns = 'fence';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: 'one' },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });

    // A ReadWriteOnce CSI volume bound to the pod, attached to the node.
    await core.createPersistentVolume({
      body: {
        metadata: { name: 'data-db-0' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          csi: { driver: 'fake.csi.noderepair.test', volumeHandle: 'vol-1' },
          claimRef: { namespace: ns, name: 'data-db-0' },
        },
      },
    });
    await core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'data-db-0' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          volumeName: 'data-db-0',
          storageClassName: '',
        },
      },
    });
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: {
          name: 'db-0',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'db',
              uid: '00000000-0000-0000-0000-0000000000db',
              controller: true,
            },
          ],
        },
        spec: {
          nodeName: name,
          containers: [
            {
              name: 'db',
              image: 'registry.k8s.io/pause:3.10',
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }],
        },
      },
    });
    await core.patchNamespacedPodStatus(
      {
        name: 'db-0',
        namespace: ns,
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      },
      mergePatch,
    );
    const va = await storage.createVolumeAttachment({
      body: {
        metadata: { name: 'va-data-db-0' },
        spec: {
          attacher: 'fake.csi.noderepair.test',
          nodeName: name,
          source: { persistentVolumeName: 'data-db-0' },
        },
      },
    });
    await storage.patchVolumeAttachmentStatus(
      { name: 'va-data-db-0', body: { status: { attached: true } } },
      mergePatch,
    );

    const policy = resolveRepairPolicy({
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
      ladder: [{ action: 'HardReboot', timeout: '10m', attempts: 1 }],
      minHealthyPeriod: '3s',
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
      drain: { timeout: '60s', outOfServiceAfter: '2s' },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    const provider = new ControllableFenceProviderFake();
    const manager = new Manager({
      name: 'fence-int',
      probes: false,
      logger: createRuntimeLogger({ name: 'fence-int', level: process.env['LOG_LEVEL'] ?? 'warn' }),
    });
    addAutoRepairController(manager, {
      client,
      policy: policy.right,
      provider,
      labelSelector: `${SCOPE}=one`,
      instance: 'fence-int',
      drain: { pollIntervalMs: 250, initialBackoffMs: 250, maxBackoffMs: 1000 },
    });
    const running = manager.start();
    const taintKeys = async () =>
      ((await core.readNode({ name })).spec?.taints ?? []).map((t) => t.key);
    // Sampled all along until the fence is confirmed: was the taint ever there, or the pod gone?
    const seen = { taint: false, podGone: false, samples: 0 };
    let fenceAllowed = false;
    const sampler = setInterval(() => {
      if (fenceAllowed) return;
      Promise.all([taintKeys(), core.listNamespacedPod({ namespace: ns })]).then(
        ([keys, pods]) => {
          if (fenceAllowed) return;
          seen.samples += 1;
          if (keys.includes(OUT_OF_SERVICE)) seen.taint = true;
          if (pods.items.length === 0) seen.podGone = true;
        },
        () => undefined,
      );
    }, 250);
    try {
      kubelet.stopHeartbeats(); // the partition: Ready=Unknown after ~8 s, the container runs on
      await waitFor(
        'the hard reboot accepted',
        async () => {
          const node = await core.readNode({ name });
          const s = parseRepairState(node.metadata?.annotations?.[STATE]);
          return either.isRight(s) && s.right?.remediation?.intent?.result === 'Succeeded'
            ? true
            : undefined;
        },
        90_000,
      );
      // Cordoned, drained and hard-rebooted: never tainted so far (the drain used to taint).
      expect(seen).toMatchObject({ taint: false, podGone: false });
      // Several fence checks, each answered NotFenced, over more than one pod GC period.
      await waitFor(
        'fence checks',
        async () => (provider.fenceQueries.length >= 3 ? true : undefined),
        60_000,
      );
      await new Promise((r) => setTimeout(r, 25_000));
      expect(provider.requests.map((r) => r.action)).toEqual(['HardReboot']);
      expect(provider.fenceQueries[0]).toMatchObject({
        node: name,
        providerID: `test:///${name}`,
        action: 'HardReboot',
        actionId: provider.requests[0]?.actionId,
      });
      const before = await core.readNode({ name });
      expect(before.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('Unknown');
      expect(await taintKeys()).not.toContain(OUT_OF_SERVICE);
      // Evicted, but not force-deleted: it may still be running behind the partition.
      const pod = await core.readNamespacedPod({ name: 'db-0', namespace: ns });
      expect(pod.metadata?.deletionTimestamp).toBeDefined();
      expect((await storage.readVolumeAttachment({ name: 'va-data-db-0' })).metadata?.uid).toBe(
        va.metadata?.uid,
      );
      const events = async () =>
        (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
          (e) => e.regarding?.name === name,
        );
      expect((await events()).map((e) => e.reason)).toContain('AwaitingFence');
      expect(seen.samples).toBeGreaterThan(50);
      expect(seen).toMatchObject({ taint: false, podGone: false });
      fenceAllowed = true;

      provider.fenceAnswer = {
        kind: 'Fenced',
        how: 'PoweredOff',
        evidence: 'the fake reports the machine powered off',
      };
      await waitFor(
        'the out-of-service taint',
        async () => ((await taintKeys()).includes(OUT_OF_SERVICE) ? true : undefined),
        30_000,
      );
      // The real pod GC force-deletes a terminating pod on a not-ready, out-of-service node.
      await waitFor(
        'the pod force-deleted by the pod GC',
        async () => {
          const pods = await core.listNamespacedPod({ namespace: ns });
          return pods.items.length === 0 ? true : undefined;
        },
        90_000,
      );
      const fenced = (await events()).find((e) => e.reason === 'Fenced');
      expect(fenced?.note).toMatch(/PoweredOff/);
      expect(fenced?.note).toMatch(/powered off/);
      const node = await core.readNode({ name });
      const s = parseRepairState(node.metadata?.annotations?.[STATE]);
      expect(either.isRight(s) && s.right?.remediation?.fenced).toMatchObject({
        how: 'PoweredOff',
        taintAdded: true,
      });
    } finally {
      clearInterval(sampler);
      manager.stop();
      await running;
      await kubelet.stop();
    }
  });
});
