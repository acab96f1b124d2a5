// Identity before the out-of-service taint and the cordon, on a real kube-apiserver (envtest)
// through the production DrainPort (kubeDrainPort over the KubeClient): a Node deleted and
// re-created under the same name (a replaced machine, a kubelet that registered again, same
// providerID) between the decision and the write is another object and gets neither the taint
// nor the cordon meant for the old one. The only double: the provider's fence answer.
import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { cordonNode } from '../drain/executor.js';
import { kubeDrainPort } from '../drain/kube-port.js';
import { NodeReplacedError } from '../drain/port.js';
import { TaintOutOfService } from '../health/node.js';
import { createKubeClient } from '../kube/client-node/index.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderOutcome,
} from '../provider/port.js';
import { runFenceStep, type FenceAction } from './fence-step.js';

const env = useControlPlane();

async function nodeWithPod(core: CoreV1Api, ns: string, name: string, providerID: string) {
  await core.createNode({ body: { metadata: { name }, spec: { providerID } } });
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: `${name}-db-0` },
      spec: { nodeName: name, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
}

/** Deletes the Node and creates it again under the same name and providerID (a new uid). */
async function recreate(core: CoreV1Api, name: string, providerID: string): Promise<string> {
  await core.deleteNode({ name });
  const n = await core.createNode({ body: { metadata: { name }, spec: { providerID } } });
  return n.metadata!.uid!;
}

describe('the out-of-service taint and the cordon carry the uid they were decided on (real apiserver)', () => {
  it('a Node re-created under the same name while the provider is asked about the fence gets no taint', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const port = kubeDrainPort(createKubeClient(kc));
    const ns = await env.namespace('fence-uid');
    const name = env.unique('fence-uid');
    const providerID = `test:///${name}`;
    await nodeWithPod(core, ns, name, providerID);
    const oldUid = (await core.readNode({ name })).metadata!.uid!;
    let newUid: string | undefined;
    /** FAKE provider: says Fenced, and meanwhile the machine's Node registers again. */
    const provider: MachineProvider = {
      name: 'fence-fake',
      actions: new Set(['HardReboot']),
      execute: async (_r: ActionRequest): Promise<ProviderOutcome> => {
        throw new Error('not called by the fence step');
      },
      fence: async (_q: FenceQuery): Promise<FenceStatus> => {
        newUid = await recreate(core, name, providerID);
        return { kind: 'Fenced', how: 'PoweredOff', evidence: 'fake: SHUTOFF' };
      },
    };
    const action: FenceAction = {
      type: 'Fence',
      reason: 'fence check',
      dryRun: false,
      action: 'HardReboot',
      actionId: 'r1/HardReboot-1',
      issuedAt: Date.now() - 60_000,
      providerID,
    } as FenceAction;
    const events: unknown[] = [];
    try {
      const r = await runFenceStep(
        action,
        { node: name, signal: new AbortController().signal },
        {
          drainPort: port,
          provider,
          event: async (ev) => {
            events.push(ev);
          },
          now: () => Date.now(),
        },
      );
      expect(newUid).toBeDefined();
      expect(newUid).not.toBe(oldUid);
      expect(r).toEqual({
        kind: 'NotNeeded',
        reason: `${TaintOutOfService} not added: Node ${name} is another object now (uid ${newUid}, not ${oldUid}): deleted and re-created under the same name; not written`,
      });
      const now = await core.readNode({ name });
      expect(now.metadata?.uid).toBe(newUid);
      expect((now.spec?.taints ?? []).map((t) => t.key)).not.toContain(TaintOutOfService);
      // No Fenced Event for a machine whose Node was not tainted.
      expect(events).toEqual([]);
    } finally {
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('a Node re-created after the decision and before the fence step is not asked about nor tainted (the decision uid given)', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const port = kubeDrainPort(createKubeClient(kc));
    const ns = await env.namespace('fence-uid2');
    const name = env.unique('fence-uid2');
    const providerID = `test:///${name}`;
    await nodeWithPod(core, ns, name, providerID);
    const decidedOn = (await core.readNode({ name })).metadata!.uid!;
    const newUid = await recreate(core, name, providerID);
    const fences: FenceQuery[] = [];
    /** FAKE provider: would say Fenced; it must not even be asked. */
    const provider: MachineProvider = {
      name: 'fence-fake',
      actions: new Set(['HardReboot']),
      execute: async (): Promise<ProviderOutcome> => {
        throw new Error('not called by the fence step');
      },
      fence: async (q: FenceQuery): Promise<FenceStatus> => {
        fences.push(q);
        return { kind: 'Fenced', how: 'PoweredOff', evidence: 'fake: SHUTOFF' };
      },
    };
    try {
      const r = await runFenceStep(
        {
          type: 'Fence',
          reason: 'fence check',
          dryRun: false,
          action: 'HardReboot',
          actionId: 'r2/HardReboot-1',
          issuedAt: Date.now() - 60_000,
          providerID,
        } as FenceAction,
        { node: name, signal: new AbortController().signal, uid: decidedOn },
        { drainPort: port, provider, event: async () => undefined, now: () => Date.now() },
      );
      expect(r).toEqual({
        kind: 'NotNeeded',
        reason: `${TaintOutOfService} not added: Node ${name} is another object now (uid ${newUid}, not ${decidedOn}): deleted and re-created under the same name; not written`,
      });
      expect(fences).toEqual([]);
      const now = await core.readNode({ name });
      expect((now.spec?.taints ?? []).map((t) => t.key)).not.toContain(TaintOutOfService);
    } finally {
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('a taint or cordon patch with the old uid is refused on the re-created Node; with its own uid it is written', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const port = kubeDrainPort(createKubeClient(kc));
    const name = env.unique('cordon-uid');
    const providerID = `test:///${name}`;
    await core.createNode({ body: { metadata: { name }, spec: { providerID } } });
    const oldUid = (await core.readNode({ name })).metadata!.uid!;
    const newUid = await recreate(core, name, providerID);
    try {
      await expect(cordonNode(port, name, undefined, oldUid)).rejects.toBeInstanceOf(
        NodeReplacedError,
      );
      await expect(
        port.patchNode(name, {
          uid: oldUid,
          addTaints: [{ key: TaintOutOfService, value: 'nodeshutdown', effect: 'NoExecute' }],
        }),
      ).rejects.toBeInstanceOf(NodeReplacedError);
      const untouched = await core.readNode({ name });
      expect(untouched.spec?.unschedulable ?? false).toBe(false);
      expect(untouched.spec?.taints ?? []).toEqual([]);
      expect(await cordonNode(port, name, undefined, newUid)).toBe('Cordoned');
      expect((await core.readNode({ name })).spec?.unschedulable).toBe(true);
    } finally {
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
