// State we cannot read, and provider outages, on a real kube-apiserver (envtest) with the
// standalone controller (issue 42 items 8 and 2). The doubles: the fake kubelet and a
// provider that records every call.
import { describe, expect, it } from 'vitest';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy, type RepairPolicy } from '../health/policy.js';
import type {
  ActionRequest,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import { startAutoRepair, type RunningAutoRepair } from '../../test/autorepair-harness.js';
import { runCli } from '../cli/noderepair.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/unreadable-scope';
const STATE = 'noderepair.io/repair-state';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** TEST DOUBLE of a MachineProvider: records every call and answers `answer`. */
class RecordingProviderForTest implements MachineProvider {
  readonly name = 'recording-test-double';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: (ActionRequest & { at: number })[] = [];
  constructor(private readonly answer: ProviderOutcome) {}
  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req, at: Date.now() });
    return this.answer;
  }
  async fence(): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: 'the test double does not report power state' };
  }
}

function policyFrom(doc: unknown): RepairPolicy {
  const p = resolveRepairPolicy(doc);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const fastPolicy = {
  unhealthyConditions: [
    { type: 'Ready', status: 'Unknown', timeout: '2s' },
    { type: 'Ready', status: 'False', timeout: '2s' },
  ],
  minHealthyPeriod: '3s',
  retryBackoff: '2s',
  ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
  stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
  drain: { enabled: false },
};

function startController(
  client: KubeClient,
  provider: MachineProvider,
  scope: string,
): RunningAutoRepair {
  return startAutoRepair({
    name: 'unreadable-int',
    client,
    policy: policyFrom(fastPolicy),
    provider,
    scopeLabel: SCOPE,
    scope,
  });
}

async function eventsFor(client: KubeClient, node: string): Promise<KubeEvent[]> {
  const list = await client.list<KubeEvent>(EventResource, { namespace: 'default' });
  return list.items.filter((e) => e.regarding?.name === node && e.regarding.kind === 'Node');
}

async function metricValue(r: RunningAutoRepair, name: string): Promise<number> {
  const m = await r.manager.metrics.registry.getSingleMetric(name)?.get();
  return m?.values[0]?.value ?? 0;
}

describe('a Node whose repair state cannot be read', () => {
  it('garbage or a newer format: not cordoned, not acted on, the annotation left as it is; an Event, the NodeRepairHeld condition, the gauge and `noderepair status` say so', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('unread');
    const values = {
      garbage: '{"v":1,"phase":"Remediat',
      // What a newer version may have written during a rollback: an intent in flight.
      future: JSON.stringify({
        v: 2,
        phase: 'Remediating',
        since: '2026-01-01T00:00:00Z',
        remediation: { id: 'r1', intent: { actionId: 'n/1/SoftReboot-1' } },
      }),
    };
    const names = {
      garbage: env.unique('unread-garbage'),
      future: env.unique('unread-future'),
    };
    const kubelets = await Promise.all(
      Object.values(names).map((name) =>
        startFakeKubelet(kc, { name, labels: { [SCOPE]: scope }, heartbeatSeconds: 1 }),
      ),
    );
    for (const k of ['garbage', 'future'] as const)
      await core.patchNode(
        { name: names[k], body: { metadata: { annotations: { [STATE]: values[k] } } } },
        mergePatch,
      );
    const provider = new RecordingProviderForTest({ kind: 'Accepted', message: 'rebooting' });
    const ctl = startController(client, provider, scope);
    try {
      // Broken past the 2 s timeout: today's controller would start a repair from scratch.
      await Promise.all(kubelets.map((k) => k.setNotReady('container runtime is down')));
      for (const k of ['garbage', 'future'] as const) {
        const name = names[k];
        const ev = await waitFor(
          `${k}: InvalidRepairState event`,
          async () =>
            (await eventsFor(client, name)).find(
              (e) => e.reason === 'InvalidRepairState' && e.type === 'Warning',
            ),
          30_000,
        );
        expect(ev.note).toContain(`fixes or removes the annotation`);
        expect(ev.note).toContain(STATE);
        expect(ev.note).toMatch(k === 'garbage' ? /does not parse/ : /version 2/);
        const cond = await waitFor(
          `${k}: NodeRepairHeld condition`,
          async () =>
            (await core.readNode({ name })).status?.conditions?.find(
              (c) => c.type === 'NodeRepairHeld' && c.status === 'True',
            ),
          30_000,
        );
        expect(cond.reason).toBe('UnreadableState');
        expect(cond.message).toContain(STATE);
      }
      // Well past the unhealthy timeout, with kubelet heartbeats waking the reconcile.
      await sleep(4000);
      for (const k of ['garbage', 'future'] as const) {
        const node = await core.readNode({ name: names[k] });
        expect(node.spec?.unschedulable ?? false).toBe(false);
        // The node lifecycle controller's not-ready taint only: none of ours.
        expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain(
          'node.kubernetes.io/out-of-service',
        );
        expect(node.metadata?.annotations?.[STATE]).toBe(values[k]);
      }
      expect(provider.requests).toEqual([]);
      expect(await metricValue(ctl, 'noderepair_nodes_state_unreadable')).toBe(2);

      const out: string[] = [];
      const code = await runCli(['status', names.future, '--kubeconfig', env.kubeconfigPath], {
        stdout: (l) => out.push(l),
        stderr: (l) => out.push(`stderr: ${l}`),
        readFile: () => Promise.reject(new Error('no policy file is read')),
      });
      expect(code).toBe(0);
      expect(out[1]).toMatch(new RegExp(`^${names.future}\\s`));
      expect(out[1]).toContain(`not acted on: the repair state annotation ${STATE} cannot be read`);
      expect(out[1]).toMatch(/version 2/);
      expect(out[1]).not.toMatch(/\snow\s/);
      // The storm counts take both as possibly in the middle of a repair, as the controller does.
      const json: string[] = [];
      expect(
        await runCli(
          [
            'status',
            '--json',
            '--label-selector',
            `${SCOPE}=${scope}`,
            '--kubeconfig',
            env.kubeconfigPath,
          ],
          {
            stdout: (l) => json.push(l),
            stderr: (l) => json.push(`stderr: ${l}`),
            readFile: () => Promise.reject(new Error('no policy file is read')),
          },
        ),
      ).toBe(0);
      expect(JSON.parse(json.join('\n')).storm).toMatchObject({ total: 2, inFlight: 2 });

      // A person removes the garbled annotation: the node is decided again. It wants a repair,
      // but the other node, whose state cannot be read, may be in the middle of one: it counts
      // as in flight, and maxInFlight 1 holds this one.
      await core.patchNode(
        { name: names.garbage, body: { metadata: { annotations: { [STATE]: null } } } },
        mergePatch,
      );
      const held = await waitFor(
        'the garbage node decided again',
        async () =>
          (await core.readNode({ name: names.garbage })).status?.conditions?.find(
            (c) => c.type === 'NodeRepairHeld' && c.reason !== 'UnreadableState',
          ),
        30_000,
      );
      expect(held).toMatchObject({ status: 'True', reason: 'MaxInFlight' });
      expect(provider.requests).toEqual([]);
      expect(await metricValue(ctl, 'noderepair_nodes_state_unreadable')).toBe(1);
    } finally {
      await ctl.stop();
      await Promise.all(kubelets.map((k) => k.stop()));
      for (const name of Object.values(names))
        await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});

describe('a provider outage', () => {
  it('is waited out (5 s doubling), whatever wakes the reconcile: our own state writes, heartbeats, a restart', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('outage');
    const name = env.unique('outage-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    // An outage without Retry-After: only the controller's own backoff paces the calls.
    const provider = new RecordingProviderForTest({
      kind: 'Unavailable',
      message: 'the cloud API answers 503',
      maybeSent: true,
    });
    let ctl: RunningAutoRepair | undefined = startController(client, provider, scope);
    const intentOf = async () => {
      const a = (await core.readNode({ name })).metadata?.annotations?.[STATE];
      const s = a !== undefined ? JSON.parse(a) : undefined;
      return s?.remediation?.intent as
        | { actionId: string; replays?: number; replayedAt?: string }
        | undefined;
    };
    try {
      await kubelet.setNotReady('container runtime is down');
      const first = await waitFor(
        'the first provider call',
        async () => provider.requests[0],
        30_000,
        20,
      );
      // 6 s of outage, the fake kubelet's heartbeats waking the reconcile every second.
      await sleep(6000 - (Date.now() - first.at));
      const before = provider.requests.length;
      // Today's controller made hundreds of calls here, each with a state write.
      expect(before).toBeGreaterThanOrEqual(2);
      expect(before).toBeLessThanOrEqual(3);
      const intent = await intentOf();
      expect(intent?.replays ?? 0).toBeLessThanOrEqual(before - 1);
      // Each call waited the backoff after the one before (5 s, then 10 s), counted from the
      // persisted issue time, a few ms before the call went out.
      provider.requests.forEach((r, i) => {
        const prev = provider.requests[i - 1];
        if (prev !== undefined)
          expect(r.at - prev.at).toBeGreaterThanOrEqual(5000 * 2 ** (i - 1) - 250);
      });
      expect(new Set(provider.requests.map((r) => r.actionId)).size).toBe(1);
      expect(provider.requests.slice(1).every((r) => r.replay)).toBe(true);

      // A restart during the outage keeps the backoff: it is derived from the persisted intent.
      await ctl.stop();
      ctl = undefined;
      const restartAt = Date.now();
      ctl = startController(client, provider, scope);
      const persisted = await intentOf();
      const due = Date.parse(persisted?.replayedAt ?? '') + 5000 * 2 ** (persisted?.replays ?? 0);
      expect(due).toBeGreaterThan(restartAt + 2000);
      await sleep(Math.min(due, restartAt + 5000) - Date.now() - 200);
      const early = provider.requests.slice(before).filter((r) => r.at < due);
      expect(early).toEqual([]);
    } finally {
      await ctl?.stop();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
