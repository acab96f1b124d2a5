import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeletNotReadyMessages, startFakeKubelet, waitFor } from '../src/index.js';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane();
const ready = (n: V1Node) => n.status?.conditions?.find((c) => c.type === 'Ready');

describe('fake kubelet with the real node lifecycle controller', () => {
  it('stopped heartbeats turn the node Ready=Unknown with the unreachable taint; resumed ones recover it', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = env.unique('node');
    const kubelet = await startFakeKubelet(env.kubeConfig, { name, heartbeatSeconds: 1 });
    try {
      await waitFor('Ready=True', async () => (ready(await core.readNode({ name }))?.status === 'True' ? true : undefined), 30_000);
      const bootBefore = (await core.readNode({ name })).status?.nodeInfo?.bootID;
      kubelet.stopHeartbeats();
      const unknown = await waitFor(
        'Ready=Unknown',
        async () => {
          const n = await core.readNode({ name });
          return ready(n)?.status === 'Unknown' ? n : undefined;
        },
        90_000,
      );
      // Set by kube-controller-manager, not by us: its reason and message are the real ones.
      expect(ready(unknown)?.reason).toBe('NodeStatusUnknown');
      expect(ready(unknown)?.message).toBe('Kubelet stopped posting node status.');
      const tainted = await waitFor(
        'unreachable taint',
        async () => {
          const n = await core.readNode({ name });
          return n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable') ? n : undefined;
        },
        30_000,
      );
      expect(tainted.spec?.taints?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');

      await kubelet.reboot(100);
      const back = await waitFor(
        'Ready=True after reboot',
        async () => {
          const n = await core.readNode({ name });
          return ready(n)?.status === 'True' && !n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable')
            ? n
            : undefined;
        },
        60_000,
      );
      expect(back.status?.nodeInfo?.bootID).not.toBe(bootBefore);
      expect(ready(back)?.reason).toBe('KubeletReady');
    } finally {
      await kubelet.stop();
      await core.deleteNode({ name });
    }
  });

  it('reports Ready=False with the kubelet reason and message when told the runtime is down', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = env.unique('node');
    const kubelet = await startFakeKubelet(env.kubeConfig, { name, heartbeatSeconds: 1, labels: { zone: 'a' } });
    try {
      await kubelet.setNotReady(KubeletNotReadyMessages.containerRuntimeDown);
      const n = await core.readNode({ name });
      expect(ready(n)).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' });
      expect(n.metadata?.labels?.zone).toBe('a');
      const t1 = ready(n)?.lastTransitionTime;
      await new Promise((r) => setTimeout(r, 1_500));
      const later = await core.readNode({ name });
      // Heartbeats move lastHeartbeatTime but not lastTransitionTime, as the kubelet does.
      expect(ready(later)?.lastTransitionTime?.toISOString()).toBe(t1?.toISOString());
      expect(ready(later)!.lastHeartbeatTime!.getTime()).toBeGreaterThan(ready(n)!.lastHeartbeatTime!.getTime());
    } finally {
      await kubelet.stop();
      await core.deleteNode({ name });
    }
  });

  it('reports status.volumesInUse on every heartbeat and keeps the volumesAttached the attach-detach controller wrote', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = env.unique('node');
    const volume = 'kubernetes.io/csi/fake.csi.noderepair.test^vol-1';
    const kubelet = await startFakeKubelet(env.kubeConfig, { name, heartbeatSeconds: 1 });
    try {
      // As the attach-detach controller's node status updater does: a patch of volumesAttached only.
      await core.patchNodeStatus(
        { name, body: { status: { volumesAttached: [{ name: volume, devicePath: '' }] } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await kubelet.setVolumesInUse([volume]);
      const before = kubelet.heartbeatCount;
      await waitFor('two more heartbeats', async () => (kubelet.heartbeatCount >= before + 2 ? true : undefined), 30_000);
      const n = await core.readNode({ name });
      expect(n.status?.volumesInUse).toEqual([volume]);
      expect(n.status?.volumesAttached).toEqual([{ name: volume, devicePath: '' }]);

      await kubelet.setVolumesInUse([]);
      const unmounted = await core.readNode({ name });
      expect(unmounted.status?.volumesInUse ?? []).toEqual([]);
      expect(unmounted.status?.volumesAttached).toEqual([{ name: volume, devicePath: '' }]);
    } finally {
      await kubelet.stop();
      await core.deleteNode({ name });
    }
  });
});
