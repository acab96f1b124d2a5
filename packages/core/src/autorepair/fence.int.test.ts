// Fencing before the out-of-service taint, on a real kube-apiserver with the real
// kube-controller-manager running the node lifecycle, pod GC and attach-detach controllers.
// A node's fake kubelet stops posting (Ready -> Unknown through the node lifecycle
// controller) while a StatefulSet pod with a ReadWriteOnce CSI volume sits on it: a network
// partition looks exactly like this, with the container still writing.
// The VolumeAttachment is the attach-detach controller's (ADC) own: the node carries the
// controller-managed-attach-detach annotation, the PVC is Bound to its PV (no PV controller
// runs, so the test binds them), the ADC's CSI attacher creates csi-<sha256(handle+driver+node)>
// and the test plays the external-attacher (status.attached=true); the kubelet then reports the
// volume in status.volumesInUse, so the ADC counts it as mounted.
// The controller cordons, drains (the pod stays Terminating: no kubelet confirms it stopped, its
// container is still reported running, so the ADC keeps the volume wanted) and hard-reboots
// through a FAKE provider whose fence answer the test controls. As long as the provider says
// NotFenced: no out-of-service taint, the pod is not force-deleted and the VolumeAttachment stays.
// Once it reports Fenced: the taint, then the real pod GC force-deletes the pod, and the ADC
// detaches at once although the node still lists the volume in use. Kubernetes v1.35
// pkg/controller/volume/attachdetach/reconciler/reconciler.go skips a mounted volume unless
// `forceDetach` (node not Ready AND maxWaitForUnmountDuration, 6 min, expired) or the node has
// the out-of-service taint, and only then skips the safe-to-detach check (verifySafeToDetach).
//
// A private control plane (not the shared one of the integration project): the shared one
// runs only the node lifecycle controller.
import { createHash } from 'node:crypto';
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
const DRIVER = 'fake.csi.noderepair.test';
const HANDLE = 'vol-1';
/** The volume's unique name in the ADC and in node status (csi plugin: `<driver>^<handle>`). */
const UNIQUE_VOLUME = `kubernetes.io/csi/${DRIVER}^${HANDLE}`;
/** The name the ADC's CSI attacher gives the VolumeAttachment (getAttachmentName). */
const attachmentName = (node: string) =>
  `csi-${createHash('sha256').update(`${HANDLE}${DRIVER}${node}`).digest('hex')}`;

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

  it('a partitioned node is never tainted (pod and VolumeAttachment stay) until the provider reports it fenced; then the pod GC frees the pod and the attach-detach controller force-detaches', async () => {
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
      // What a kubelet with enableControllerAttachDetach (the default) registers with: without
      // it the ADC leaves the node's volumes alone.
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });

    // A ReadWriteOnce CSI volume bound to the pod's claim. No PV controller runs here, so the
    // test binds them as it would: the ADC only builds a volume spec from a Bound PVC whose PV's
    // claimRef carries the PVC's uid.
    const pvc = await core.createNamespacedPersistentVolumeClaim({
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
    await core.createPersistentVolume({
      body: {
        metadata: { name: 'data-db-0' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          csi: { driver: DRIVER, volumeHandle: HANDLE },
          claimRef: { namespace: ns, name: 'data-db-0', uid: pvc.metadata?.uid },
        },
      },
    });
    await core.patchPersistentVolumeStatus(
      { name: 'data-db-0', body: { status: { phase: 'Bound' } } },
      mergePatch,
    );
    await core.patchNamespacedPersistentVolumeClaimStatus(
      {
        name: 'data-db-0',
        namespace: ns,
        body: {
          status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
        },
      },
      mergePatch,
    );
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
    // The container reported running, as the kubelet did before the partition: a Terminating
    // pod without a running container counts as terminated for the ADC (IsPodTerminated).
    await core.patchNamespacedPodStatus(
      {
        name: 'db-0',
        namespace: ns,
        body: {
          status: {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True' }],
            containerStatuses: [
              {
                name: 'db',
                image: 'registry.k8s.io/pause:3.10',
                imageID: '',
                containerID: 'containerd://db-0',
                ready: true,
                started: true,
                restartCount: 0,
                state: { running: { startedAt: new Date() } },
              },
            ],
          },
        },
      },
      mergePatch,
    );
    // The ADC attaches: it creates the VolumeAttachment and waits for the external-attacher,
    // played here, to report it attached.
    const vaName = attachmentName(name);
    const va = await waitFor(
      'the VolumeAttachment created by the attach-detach controller',
      async () => {
        const items = (await storage.listVolumeAttachment()).items;
        return items.find((v) => v.metadata?.name === vaName);
      },
      60_000,
    );
    expect(va.spec).toMatchObject({
      attacher: DRIVER,
      nodeName: name,
      source: { persistentVolumeName: 'data-db-0' },
    });
    await storage.patchVolumeAttachmentStatus(
      { name: vaName, body: { status: { attached: true } } },
      mergePatch,
    );
    await waitFor(
      'the ADC reporting the volume attached in node status',
      async () => {
        const node = await core.readNode({ name });
        return node.status?.volumesAttached?.some((v) => v.name === UNIQUE_VOLUME)
          ? true
          : undefined;
      },
      60_000,
    );
    // The kubelet mounts a volume once the controller reports it attached, then lists it in use.
    await kubelet.setVolumesInUse([UNIQUE_VOLUME]);

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
    const vaExists = () =>
      storage.readVolumeAttachment({ name: vaName }).then(
        () => true,
        (err: unknown) => {
          if ((err as { code?: number }).code === 404) return false;
          throw err;
        },
      );
    // Sampled all along until the fence is confirmed: was the taint ever there, the pod or the
    // VolumeAttachment gone?
    const seen = { taint: false, podGone: false, vaGone: false, samples: 0 };
    let fenceAllowed = false;
    const sampler = setInterval(() => {
      if (fenceAllowed) return;
      Promise.all([taintKeys(), core.listNamespacedPod({ namespace: ns }), vaExists()]).then(
        ([keys, pods, attached]) => {
          if (fenceAllowed) return;
          seen.samples += 1;
          if (keys.includes(OUT_OF_SERVICE)) seen.taint = true;
          if (pods.items.length === 0) seen.podGone = true;
          if (!attached) seen.vaGone = true;
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
      expect(seen).toMatchObject({ taint: false, podGone: false, vaGone: false });
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
      // Still the ADC's attachment, attached, and the node still reports the volume mounted.
      const attachedBefore = await storage.readVolumeAttachment({ name: vaName });
      expect(attachedBefore.metadata?.uid).toBe(va.metadata?.uid);
      expect(attachedBefore.status?.attached).toBe(true);
      expect(before.status?.volumesInUse).toContain(UNIQUE_VOLUME);
      const events = async () =>
        (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
          (e) => e.regarding?.name === name,
        );
      expect((await events()).map((e) => e.reason)).toContain('AwaitingFence');
      expect(seen.samples).toBeGreaterThan(50);
      expect(seen).toMatchObject({ taint: false, podGone: false, vaGone: false });
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
      // The ADC force-detaches (deletes its VolumeAttachment) at once, not after its 6-minute
      // unmount wait. 60 s is a hang guard, not a performance claim.
      await waitFor(
        'the VolumeAttachment deleted by the attach-detach controller',
        async () => ((await vaExists()) ? undefined : true),
        60_000,
      );
      // Forced, not a normal detach: the partitioned kubelet never unmounted, the node still
      // lists the volume in use (a safe-to-detach check would have refused), and the ADC took
      // it out of volumesAttached before detaching.
      const detached = await core.readNode({ name });
      expect(detached.status?.volumesInUse).toContain(UNIQUE_VOLUME);
      expect((detached.status?.volumesAttached ?? []).map((v) => v.name)).not.toContain(
        UNIQUE_VOLUME,
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
