// A Node deleted and re-created under the same name between a repair's cordon and its drain,
// on a real kube-apiserver (envtest) through the controller's own DrainPort (kubeDrainPort):
// the drain's cordon is held to the uid of the Node the decision was made on, so the new Node
// is neither cordoned nor drained, and the repair's power action is not sent.
import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { Registry } from 'prom-client';
import { createKubeClient } from '../kube/client-node/index.js';
import { kubeDrainPort } from '../drain/kube-port.js';
import type { DrainPort } from '../drain/port.js';
import type { RepairAction } from '../health/decide.js';
import { DryRunProvider } from '../provider/dry-run.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger } from '../runtime/logger.js';
import { executeActions } from './executor.js';
import { AutoRepairMetrics } from './metrics.js';

const env = useControlPlane();

describe('a Node replaced under the same name during a repair (real kube-apiserver)', () => {
  it('re-created between the cordon and the drain: the new Node is not cordoned, its pod not evicted, no action sent', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const name = env.unique('replaced-node');
    const ns = 'default';
    const oldUid = (await core.createNode({ body: { metadata: { name } } })).metadata?.uid;
    expect(oldUid).toBeDefined();
    const real = kubeDrainPort(client);
    let newUid: string | undefined;
    // The controller's port; right after the cordon patch the machine is replaced: its Node
    // is deleted and registers again under the same name, with a pod bound to it.
    const port: DrainPort = {
      ...real,
      async patchNode(n, patch, signal) {
        await real.patchNode(n, patch, signal);
        if (newUid !== undefined) return;
        await core.deleteNode({ name });
        newUid = (await core.createNode({ body: { metadata: { name } } })).metadata?.uid;
        await core.createNamespacedPod({
          namespace: ns,
          body: {
            metadata: { name: `${name}-pod` },
            spec: { nodeName: name, containers: [{ name: 'c', image: 'busybox' }] },
          },
        });
      },
    };
    const provider = new DryRunProvider();
    const events: EventInput[] = [];
    const reason = 'KubeletUnreachable: Ready=Unknown for more than 10m';
    const actions: RepairAction[] = [
      { type: 'Cordon', reason, dryRun: false },
      {
        type: 'Drain',
        reason,
        dryRun: false,
        remediationId: `${name}/1`,
        startedAt: Date.now(),
        firstPass: true,
        unreachable: true,
        timeoutMs: 60_000,
        outOfServiceAfterMs: 60_000,
      },
      {
        type: 'Remediate',
        reason,
        dryRun: false,
        action: 'HardReboot',
        actionId: `${name}/1/HardReboot-1`,
        issuedAt: Date.now(),
        step: 0,
        attempt: 1,
        replay: false,
      },
    ];
    try {
      const r = await executeActions(
        actions,
        {
          node: name,
          uid: oldUid!,
          providerID: `test:///${name}`,
          signal: new AbortController().signal,
          recordOutcome: async () => {},
          recordDrain: async () => {},
        },
        {
          drainPort: port,
          provider,
          metrics: new AutoRepairMetrics(new Registry()),
          event: async (e) => {
            events.push(e);
          },
          log: silentLogger,
          now: () => Date.now(),
        },
      );
      expect(r).toEqual({ remediated: false, aborted: false });
      const now = await core.readNode({ name });
      expect(newUid).toBeDefined();
      expect(now.metadata?.uid).toBe(newUid);
      expect(now.spec?.unschedulable).not.toBe(true);
      // Its pod was not evicted.
      const pod = await core.readNamespacedPod({ name: `${name}-pod`, namespace: ns });
      expect(pod.metadata?.deletionTimestamp).toBeUndefined();
      expect(provider.requests).toEqual([]);
      expect(events.find((e) => e.action === 'Drain')).toMatchObject({
        type: 'Warning',
        reason: 'ActionFailed',
        note: expect.stringMatching(/drain stopped.*is another object now/),
      });
    } finally {
      await core.deleteNamespacedPod({ name: `${name}-pod`, namespace: ns }).catch(() => undefined);
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
