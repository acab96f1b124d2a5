// Replace without Cluster API, on a real kube-apiserver with the real node lifecycle controller
// (envtest, grace period ~8 s): a node's fake kubelet stops posting, the ladder's only step is
// Replace, and a FAKE provider accepts it (once per id) while the test controls its fence
// answer. A watch on the Node records every deletion: the Node is never deleted while the
// provider says NotFenced, is deleted (uid-checked) once it says Deleted, and the remediation
// ends with NodeReplaced. Never fenced: the step times out, Failed, the Node stays cordoned.
// A Node recreated under the same name for another machine (providerID differs) is never
// deleted.
import { describe, expect, it } from 'vitest';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import { EventResource, NodeResource } from '../kube/resource.js';
import type { KubeEvent, KubeNode } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import type { AutoRepairController } from './controller.js';
import {
  repairStateOf,
  startAutoRepair,
  type RunningAutoRepair,
} from '../../test/autorepair-harness.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/replace-scope';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * FAKE MachineProvider standing in for a cloud whose Replace deletes the server. execute()
 * accepts each id once (a repeated id gets the first outcome) and touches nothing; fence()
 * answers `fenceAnswer`, or runs `onFence` once when set (to change the world mid-call).
 */
class ReplaceProviderFake implements MachineProvider {
  readonly name = 'replace-fake';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: ActionRequest[] = [];
  readonly fenceQueries: FenceQuery[] = [];
  fenceAnswer: FenceStatus = { kind: 'NotFenced', reason: 'the fake server is still deleting' };
  onFence: ((q: FenceQuery) => Promise<FenceStatus>) | undefined;
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
    const hook = this.onFence;
    if (hook !== undefined) {
      this.onFence = undefined;
      return hook(q);
    }
    return this.fenceAnswer;
  }
}

function start(
  client: KubeClient,
  replaceTimeout: string,
  provider: MachineProvider,
  scope: string,
): RunningAutoRepair {
  const policy = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
    ladder: [{ action: 'Replace', timeout: replaceTimeout, attempts: 1 }],
    minHealthyPeriod: '3s',
    stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
    drain: { timeout: '10s', outOfServiceAfter: '2s' },
  });
  if (either.isLeft(policy)) throw new Error(policy.left);
  return startAutoRepair({
    name: 'replace-int',
    client,
    policy: policy.right,
    provider,
    scopeLabel: SCOPE,
    scope,
  });
}

/** Every DELETED watch event of the Node, from now on (the watch resumes if the stream ends). */
async function watchDeletions(client: KubeClient, name: string) {
  const deleted: { uid: string | undefined; providerID: string | undefined }[] = [];
  const ac = new AbortController();
  const list = await client.list<KubeNode>(NodeResource, {
    fieldSelector: `metadata.name=${name}`,
  });
  let rv = list.metadata?.resourceVersion;
  const done = (async () => {
    while (!ac.signal.aborted) {
      try {
        for await (const ev of client.watch<KubeNode>(NodeResource, {
          fieldSelector: `metadata.name=${name}`,
          resourceVersion: rv,
          timeoutSeconds: 300,
          signal: ac.signal,
        })) {
          if (ev.type === 'ERROR') break;
          rv = ev.object.metadata?.resourceVersion ?? rv;
          if (ev.type === 'DELETED')
            deleted.push({ uid: ev.object.metadata?.uid, providerID: ev.object.spec?.providerID });
        }
      } catch {
        if (!ac.signal.aborted) await sleep(200);
      }
    }
  })();
  return {
    deleted,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

async function nodeOrUndefined(core: CoreV1Api, name: string): Promise<V1Node | undefined> {
  try {
    return await core.readNode({ name });
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}

const stateOf = repairStateOf;

async function eventsFor(client: KubeClient, node: string): Promise<KubeEvent[]> {
  const list = await client.list<KubeEvent>(EventResource, { namespace: 'default' });
  return list.items.filter((e) => e.regarding?.name === node && e.regarding.kind === 'Node');
}

/** Waits until the Replace intent has an accepted outcome recorded on the Node. */
async function replaceAccepted(core: CoreV1Api, name: string): Promise<void> {
  await waitFor(
    'the Replace accepted',
    async () => {
      const s = await stateOf(core, name);
      const i = s?.remediation?.intent;
      return i?.action === 'Replace' && i.result === 'Succeeded' ? true : undefined;
    },
    90_000,
  );
}

async function endedReplaced(ar: AutoRepairController): Promise<number> {
  const m = await ar.metrics.ended.get();
  return m.values.find((v) => v.labels.outcome === 'Replaced')?.value ?? 0;
}

describe('Replace without Cluster API (real node lifecycle controller)', () => {
  it('the Node is not deleted while the provider says NotFenced; deleted once it says Deleted; NodeReplaced; one Replace', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('rp-ok');
    const name = env.unique('rp-ok-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const uid = (await core.readNode({ name })).metadata?.uid;
    const watch = await watchDeletions(client, name);
    const provider = new ReplaceProviderFake();
    const ctl = start(client, '10m', provider, scope);
    try {
      kubelet.stopHeartbeats(); // Ready=Unknown after ~8 s
      await replaceAccepted(core, name);
      await waitFor(
        'fence checks',
        async () => (provider.fenceQueries.length >= 3 ? true : undefined),
        60_000,
      );
      await sleep(3000);
      // NotFenced all along: the Node stays, cordoned, and nothing deleted it.
      expect(watch.deleted).toEqual([]);
      const before = await core.readNode({ name });
      expect(before.metadata?.uid).toBe(uid);
      expect(before.spec?.unschedulable).toBe(true);
      expect(provider.fenceQueries[0]).toMatchObject({
        node: name,
        providerID: `test:///${name}`,
        action: 'Replace',
        actionId: provider.requests[0]?.actionId,
      });
      expect((await eventsFor(client, name)).map((e) => e.reason)).toContain('AwaitingFence');
      expect((await eventsFor(client, name)).map((e) => e.reason)).not.toContain('NodeReplaced');
      expect(await endedReplaced(ctl.controller)).toBe(0);

      provider.fenceAnswer = {
        kind: 'Fenced',
        how: 'Deleted',
        evidence: 'the fake reports the server deleted',
      };
      await waitFor(
        'the Node deleted',
        async () => ((await nodeOrUndefined(core, name)) === undefined ? true : undefined),
        30_000,
      );
      await waitFor(
        'the deletion seen by the watch',
        async () => (watch.deleted.length > 0 ? true : undefined),
        10_000,
      );
      expect(watch.deleted).toEqual([{ uid, providerID: `test:///${name}` }]);
      const replaced = await waitFor(
        'the NodeReplaced event',
        async () => (await eventsFor(client, name)).find((e) => e.reason === 'NodeReplaced'),
        10_000,
      );
      expect(replaced.note).toMatch(
        /^Node deleted: the machine test:\/\/\/.* was fenced \(Deleted/,
      );
      expect(replaced.note).toMatch(/node group's owner .* must recreate the capacity/);
      expect(await endedReplaced(ctl.controller)).toBe(1);
      // Exactly one Replace: the provider got one execute, never a replay, and nothing after.
      await sleep(3000);
      expect(provider.requests.map((r) => [r.action, r.replay])).toEqual([['Replace', false]]);
      expect(await nodeOrUndefined(core, name)).toBeUndefined();
    } finally {
      await ctl.stop();
      await watch.stop();
      await kubelet.stop();
    }
  });

  it('a controller restarted while it waits for the fence finishes the job: no second Replace, the Node deleted once', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('rp-restart');
    const name = env.unique('rp-restart-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const uid = (await core.readNode({ name })).metadata?.uid;
    const watch = await watchDeletions(client, name);
    // One provider for both controllers: the cloud outlives the controller.
    const provider = new ReplaceProviderFake();
    let ctl = start(client, '10m', provider, scope);
    try {
      kubelet.stopHeartbeats();
      await replaceAccepted(core, name);
      await waitFor(
        'fence checks',
        async () => (provider.fenceQueries.length >= 2 ? true : undefined),
        60_000,
      );
      await ctl.stop();
      const asked = provider.fenceQueries.length;
      provider.fenceAnswer = { kind: 'Fenced', how: 'Deleted', evidence: 'the server is gone' };
      ctl = start(client, '10m', provider, scope);
      await waitFor(
        'the Node deleted',
        async () => ((await nodeOrUndefined(core, name)) === undefined ? true : undefined),
        30_000,
      );
      await sleep(2000);
      expect(provider.fenceQueries.length).toBeGreaterThan(asked);
      expect(provider.requests.map((r) => [r.action, r.replay])).toEqual([['Replace', false]]);
      expect(watch.deleted).toEqual([{ uid, providerID: `test:///${name}` }]);
      expect(await endedReplaced(ctl.controller)).toBe(1);
    } finally {
      await ctl.stop();
      await watch.stop();
      await kubelet.stop();
    }
  });

  it('a Node deleted by someone else (as a cloud-controller-manager does) while NotFenced: Replaced too, once', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('rp-ccm');
    const name = env.unique('rp-ccm-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new ReplaceProviderFake();
    const ctl = start(client, '10m', provider, scope);
    try {
      kubelet.stopHeartbeats();
      await replaceAccepted(core, name);
      await waitFor(
        'fence checks',
        async () => (provider.fenceQueries.length >= 2 ? true : undefined),
        60_000,
      );
      expect(await endedReplaced(ctl.controller)).toBe(0);
      await core.deleteNode({ name }); // the cloud-controller-manager: the server is gone
      const replaced = await waitFor(
        'the NodeReplaced event',
        async () => (await eventsFor(client, name)).find((e) => e.reason === 'NodeReplaced'),
        30_000,
      );
      expect(replaced.note).toMatch(/^the Node was already deleted after Replace /);
      expect(replaced.note).toMatch(/node group's owner .* must recreate the capacity/);
      await sleep(3000);
      expect(await endedReplaced(ctl.controller)).toBe(1);
      expect(provider.requests.map((r) => r.action)).toEqual(['Replace']);
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });

  it('never fenced: the Replace step times out, Failed, the Node stays cordoned and is never deleted', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('rp-never');
    const name = env.unique('rp-never-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const watch = await watchDeletions(client, name);
    const provider = new ReplaceProviderFake();
    const ctl = start(client, '12s', provider, scope);
    try {
      kubelet.stopHeartbeats();
      await replaceAccepted(core, name);
      await waitFor(
        'the repair given up',
        async () => ((await stateOf(core, name))?.phase === 'Failed' ? true : undefined),
        60_000,
      );
      expect(provider.fenceQueries.length).toBeGreaterThanOrEqual(3);
      await sleep(3000);
      expect(watch.deleted).toEqual([]);
      const node = await core.readNode({ name });
      expect(node.spec?.unschedulable).toBe(true);
      expect((await stateOf(core, name))?.phase).toBe('Failed');
      const events = await eventsFor(client, name);
      expect(events.map((e) => e.reason)).not.toContain('NodeReplaced');
      expect(events.find((e) => e.reason === 'RepairFailed')?.note).toMatch(
        /not known fenced 12s after Replace attempt 1: the Node is not deleted/,
      );
      expect(provider.requests.map((r) => r.action)).toEqual(['Replace']);
      expect(await endedReplaced(ctl.controller)).toBe(0);
    } finally {
      await ctl.stop();
      await watch.stop();
      await kubelet.stop();
      await core.deleteNode({ name });
    }
  });

  it('a Node recreated under the same name for another machine (providerID differs) is never deleted', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('rp-other');
    const name = env.unique('rp-other-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new ReplaceProviderFake();
    const ctl = start(client, '20s', provider, scope);
    let watch: Awaited<ReturnType<typeof watchDeletions>> | undefined;
    let newUid: string | undefined;
    try {
      kubelet.stopHeartbeats();
      await replaceAccepted(core, name);
      // While the controller asks the fence, the name passes to another machine: the old Node
      // goes, a new one comes with another providerID and, as a restore would, the old
      // annotations (our repair state included) and the cordon.
      provider.onFence = async () => {
        const old = await core.readNode({ name });
        await core.deleteNode({ name });
        const created = await core.createNode({
          body: {
            metadata: {
              name,
              labels: old.metadata?.labels ?? {},
              annotations: old.metadata?.annotations ?? {},
            },
            spec: { providerID: `test:///${name}-other-machine`, unschedulable: true },
          },
        });
        newUid = created.metadata?.uid;
        return { kind: 'NotFenced', reason: 'the fake server is still deleting' };
      };
      await waitFor('the swap', async () => (newUid !== undefined ? true : undefined), 30_000);
      watch = await watchDeletions(client, name);
      const asked = provider.fenceQueries.length;
      // From now on the provider would say Deleted: only the identity check stands in the way.
      provider.fenceAnswer = { kind: 'Fenced', how: 'Deleted', evidence: 'the old server is gone' };
      const withheld = await waitFor(
        'the deletion withheld',
        async () => (await eventsFor(client, name)).find((e) => e.reason === 'NodeDeleteWithheld'),
        30_000,
      );
      expect(withheld.note).toContain(
        `providerID test:///${name}-other-machine, not test:///${name}`,
      );
      await waitFor(
        'the repair given up',
        async () => ((await stateOf(core, name))?.phase === 'Failed' ? true : undefined),
        60_000,
      );
      await sleep(3000);
      const node = await core.readNode({ name });
      expect(node.metadata?.uid).toBe(newUid);
      expect(node.spec?.unschedulable).toBe(true);
      expect(watch.deleted).toEqual([]);
      // Identity comes before the question: the new machine was never asked about.
      expect(provider.fenceQueries.length).toBe(asked);
      const events = await eventsFor(client, name);
      expect(events.map((e) => e.reason)).not.toContain('NodeReplaced');
      expect(provider.requests.map((r) => r.action)).toEqual(['Replace']);
      expect(await endedReplaced(ctl.controller)).toBe(0);
    } finally {
      await ctl.stop();
      await watch?.stop();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
