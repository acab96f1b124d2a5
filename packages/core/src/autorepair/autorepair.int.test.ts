// The standalone auto-repair controller on a real kube-apiserver with the real node
// lifecycle controller (envtest, grace period ~8 s). The only doubles: the fake kubelet
// (envtest) and the reboot provider below, which "reboots" a node by restarting its fake
// kubelet. Each test watches only its own nodes through a unique label.
import { describe, expect, it } from 'vitest';
import {
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
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
import {
  repairStateOf,
  startAutoRepair,
  type RunningAutoRepair,
} from '../../test/autorepair-harness.js';
import { runCli } from '../cli/noderepair.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/autorepair-scope';
const STATE = 'noderepair.io/repair-state';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * TEST DOUBLE of a MachineProvider: "reboots" a node by rebooting its fake kubelet
 * (heartbeats stop for downMs, then Ready=True with a new boot ID). Like a real provider it
 * remembers every action id it executed (here in memory, shared by controller instances as
 * a cloud would be) and answers a repeated id with the first result without acting.
 */
class FakeKubeletRebootProviderForTest implements MachineProvider {
  readonly name = 'fake-kubelet-reboot-test-double';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: ActionRequest[] = [];
  readonly reboots: { node: string; actionId: string; bootIdBefore: string }[] = [];
  private readonly executed = new Map<string, ProviderOutcome>();
  private readonly pending: Promise<void>[] = [];

  constructor(
    private readonly kubelets: Map<string, FakeKubelet>,
    private readonly opts: { downMs: number; callMs?: number },
  ) {}

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.executed.get(req.actionId);
    if (prior !== undefined) return prior;
    const kubelet = this.kubelets.get(req.node);
    if (kubelet === undefined) return { kind: 'Rejected', message: `no machine for ${req.node}` };
    const r: ProviderOutcome = {
      kind: 'Accepted',
      message: `${req.action} of ${req.node} accepted`,
    };
    this.executed.set(req.actionId, r);
    this.reboots.push({
      node: req.node,
      actionId: req.actionId,
      bootIdBefore: kubelet.currentBootID,
    });
    this.pending.push(kubelet.reboot(this.opts.downMs));
    // A real cloud API answers after a while; the restart test kills the controller meanwhile.
    if (this.opts.callMs !== undefined) await sleep(this.opts.callMs);
    return r;
  }

  // It cannot tell power state: only the new bootID the restarted fake kubelet reports fences.
  async fence(): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: 'the test double does not report power state' };
  }

  settle(): Promise<void[]> {
    return Promise.all(this.pending);
  }
}

/**
 * A KubeClient that stops reaching the cluster once killed: what a SIGKILLed controller
 * process looks like from the API server (nothing it "does" afterwards lands).
 */
function killableClient(inner: KubeClient): { client: KubeClient; kill(): void } {
  let killed = false;
  const dead = () => new Error('controller killed by the test');
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      if (prop === 'watch')
        return (...args: unknown[]) => ({
          async *[Symbol.asyncIterator]() {
            if (killed) throw dead();
            const it = (v as (...a: unknown[]) => AsyncIterable<unknown>).apply(target, args);
            for await (const ev of it) {
              if (killed) return;
              yield ev;
            }
          },
        });
      return (...args: unknown[]) =>
        killed
          ? Promise.reject(dead())
          : (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
    },
  });
  return { client, kill: () => (killed = true) };
}

function policyFrom(doc: unknown): RepairPolicy {
  const p = resolveRepairPolicy(doc);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

type Running = RunningAutoRepair;

function startController(
  client: KubeClient,
  policy: RepairPolicy,
  provider: MachineProvider,
  scope: string,
): Running {
  return startAutoRepair({
    name: 'autorepair-int',
    client,
    policy,
    provider,
    scopeLabel: SCOPE,
    scope,
  });
}

const stateOf = repairStateOf;

async function eventsFor(client: KubeClient, node: string): Promise<KubeEvent[]> {
  const list = await client.list<KubeEvent>(EventResource, { namespace: 'default' });
  return list.items.filter((e) => e.regarding?.name === node && e.regarding.kind === 'Node');
}

async function runningPod(core: CoreV1Api, ns: string, name: string, node: string): Promise<void> {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: {
        name,
        namespace: ns,
        labels: { app: 'web' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'web',
            uid: '00000000-0000-0000-0000-000000000002',
            controller: true,
          },
        ],
      },
      // No scheduler runs: the pod is bound by setting nodeName directly.
      spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
  // Pending pods skip PodDisruptionBudgets in the Eviction API; report Running as a kubelet would.
  await core.patchNamespacedPodStatus(
    {
      name,
      namespace: ns,
      body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    },
    mergePatch,
  );
}

const fastPolicy = {
  unhealthyConditions: [
    { type: 'Ready', status: 'Unknown', timeout: '3s' },
    { type: 'Ready', status: 'False', timeout: '3s' },
  ],
  minHealthyPeriod: '3s',
  retryBackoff: '2s',
  ladder: [
    { action: 'SoftReboot', timeout: '40s', attempts: 1 },
    { action: 'HardReboot', timeout: '40s', attempts: 1 },
  ],
  stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
  drain: { timeout: '60s', outOfServiceAfter: '2s' },
};

async function metricValue(
  r: Running,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const m = await r.manager.metrics.registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

describe('standalone auto-repair controller', () => {
  it('unreachable node: cordon, drain past a PodDisruptionBudget, reboot, Ready for the minimum period, uncordon', async () => {
    const kc: KubeConfig = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const policyApi = kc.makeApiClient(PolicyV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('ar-one');
    const name = env.unique('ar-one-node');
    const ns = await env.namespace('ar-one');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new FakeKubeletRebootProviderForTest(new Map([[name, kubelet]]), {
      downMs: 1500,
    });
    const ctl = startController(client, policyFrom(fastPolicy), provider, scope);
    try {
      await runningPod(core, ns, 'web-1', name);
      await runningPod(core, ns, 'web-2', name);
      await policyApi.createNamespacedPodDisruptionBudget({
        namespace: ns,
        body: {
          metadata: { name: 'web' },
          spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
        },
      });
      // The budget is relaxed 3 s after the node is cordoned (a rollout finishing elsewhere).
      const relax = (async () => {
        await waitFor(
          'node cordoned',
          async () => ((await core.readNode({ name })).spec?.unschedulable ? true : undefined),
          60_000,
        );
        await sleep(3000);
        await policyApi.deleteNamespacedPodDisruptionBudget({ name: 'web', namespace: ns });
      })();

      kubelet.stopHeartbeats(); // -> node lifecycle controller: Ready=Unknown after ~8 s
      await waitFor(
        'the reboot',
        async () => (provider.reboots.length > 0 ? true : undefined),
        60_000,
      );
      await relax;
      const during = await core.readNode({ name });
      expect(during.spec?.unschedulable).toBe(true);
      expect((await core.listNamespacedPod({ namespace: ns })).items).toEqual([]);
      expect(provider.reboots).toHaveLength(1);
      expect(provider.reboots[0]?.actionId).toMatch(new RegExp(`^${name}/\\d+/SoftReboot-1$`));
      expect(provider.requests[0]?.providerID).toBe(`test:///${name}`);

      const done = await waitFor(
        'repair success',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? s
            : undefined;
        },
        60_000,
      );
      expect(done.lastRemediation?.step).toBe(0);
      const after = await core.readNode({ name });
      expect(after.spec?.unschedulable ?? false).toBe(false);
      expect((after.spec?.taints ?? []).map((t) => t.key)).not.toContain(
        'node.kubernetes.io/out-of-service',
      );
      expect(after.status?.nodeInfo?.bootID).not.toBe(provider.reboots[0]?.bootIdBefore);
      // Ready held for the minimum period before the uncordon.
      const ready = after.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready?.status).toBe('True');

      const events = await waitFor(
        'the success event',
        async () => {
          const evs = await eventsFor(client, name);
          return evs.some((e) => e.reason === 'RepairSucceeded') ? evs : undefined;
        },
        10_000,
      );
      const reasons = events.map((e) => e.reason);
      for (const r of [
        'RepairStarted',
        'Cordoned',
        'Draining',
        'Drained',
        'ActionAccepted',
        'Uncordoned',
        'RepairSucceeded',
      ])
        expect(reasons).toContain(r);
      // Draining is a phase: a pass the budget refused says so and the drain goes on.
      expect(events.find((e) => e.reason === 'Draining')?.note).toMatch(
        /refused by a PodDisruptionBudget/,
      );
      expect(events.find((e) => e.reason === 'RepairStarted')?.note).toMatch(/KubeletUnreachable/);
      expect(
        await metricValue(ctl, 'noderepair_remediations_started_total', {
          cause: 'KubeletUnreachable',
          step: 'SoftReboot',
        }),
      ).toBe(1);
      expect(
        await metricValue(ctl, 'noderepair_remediations_succeeded_total', {
          cause: 'KubeletUnreachable',
          step: 'SoftReboot',
        }),
      ).toBe(1);
      expect(await metricValue(ctl, 'noderepair_nodes', { phase: 'Healthy' })).toBe(1);
    } finally {
      await ctl.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('four drains a PodDisruptionBudget never allows do not hold up a fifth repair: it reaches its action while they still drain', async () => {
    const kc: KubeConfig = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const policyApi = kc.makeApiClient(PolicyV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('ar-pdb');
    const ns = await env.namespace('ar-pdb');
    const blocked = [1, 2, 3, 4].map((i) => env.unique(`ar-pdb-blocked${i}`));
    const fifth = env.unique('ar-pdb-fifth');
    const kubelets = new Map<string, FakeKubelet>();
    for (const name of [...blocked, fifth])
      kubelets.set(
        name,
        await startFakeKubelet(kc, {
          name,
          labels: { [SCOPE]: scope },
          heartbeatSeconds: 1,
          providerID: `test:///${name}`,
        }),
      );
    const provider = new FakeKubeletRebootProviderForTest(kubelets, { downMs: 1500 });
    // As many workers as blocked drains (the default 4); the drain timeout is far beyond
    // the test, so the four drains are still going when the fifth repair acts.
    const ctl = startController(
      client,
      policyFrom({
        ...fastPolicy,
        stormGuard: { maxUnhealthy: '100%', maxInFlight: 5, recheckInterval: '1s' },
        drain: { timeout: '30m', outOfServiceAfter: '2s' },
      }),
      provider,
      scope,
    );
    try {
      // One pod on each of the four, each under a budget that allows no eviction at all.
      for (const [i, name] of blocked.entries()) {
        await runningPod(core, ns, `web-${i}`, name);
        await core.patchNamespacedPod(
          { name: `web-${i}`, namespace: ns, body: { metadata: { labels: { app: `web-${i}` } } } },
          mergePatch,
        );
        await policyApi.createNamespacedPodDisruptionBudget({
          namespace: ns,
          body: {
            metadata: { name: `web-${i}` },
            spec: { maxUnavailable: 0, selector: { matchLabels: { app: `web-${i}` } } },
          },
        });
      }
      for (const name of blocked) kubelets.get(name)!.stopHeartbeats();
      // All four repairs start (their drains are what the budgets hold up).
      await waitFor(
        'four repairs started',
        async () => {
          for (const name of blocked)
            if ((await stateOf(core, name))?.phase !== 'Remediating') return undefined;
          return true;
        },
        90_000,
      );
      kubelets.get(fifth)!.stopHeartbeats();
      await waitFor(
        'the fifth node rebooted',
        async () => (provider.reboots.some((r) => r.node === fifth) ? true : undefined),
        90_000,
      );
      // Order and state: the fifth acted while the four were (and are) still draining.
      expect(provider.requests.map((r) => r.node)).toEqual([fifth]);
      for (const name of blocked) {
        const st = await stateOf(core, name);
        expect(st?.phase).toBe('Remediating');
        expect(st?.remediation?.drain?.startedAt).toBeDefined();
        expect(st?.remediation?.drain?.endedAt).toBeUndefined();
        expect(st?.remediation?.intent?.completedAt).toBeUndefined();
        expect(
          (await core.readNamespacedPod({ name: `web-${blocked.indexOf(name)}`, namespace: ns }))
            .metadata?.deletionTimestamp,
        ).toBeUndefined();
      }
      // Each of the four said, as an event, that its budget refused the eviction.
      for (const name of blocked) {
        const evs = await eventsFor(client, name);
        expect(
          evs.some((e) => e.reason === 'Draining' && /PodDisruptionBudget/.test(e.note ?? '')),
        ).toBe(true);
      }
      const fifthState = await stateOf(core, fifth);
      expect(fifthState?.remediation?.drain?.endedAt).toBeDefined();
      expect(fifthState?.remediation?.intent?.result).toBe('Succeeded');
    } finally {
      await ctl.stop();
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      for (const name of kubelets.keys()) await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('a controller killed after the reboot call and restarted reboots exactly once', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const scope = env.unique('ar-kill');
    const name = env.unique('ar-kill-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
    });
    // The reboot call takes 2 s to answer; the controller is killed while it waits.
    const provider = new FakeKubeletRebootProviderForTest(new Map([[name, kubelet]]), {
      downMs: 1500,
      callMs: 2000,
    });
    const policy = policyFrom(fastPolicy);
    const first = killableClient(createKubeClient(kc));
    const a = startController(first.client, policy, provider, scope);
    let b: Running | undefined;
    try {
      await kubelet.setNotReady('container runtime is down');
      await waitFor(
        'the first reboot call',
        async () => (provider.reboots.length > 0 ? true : undefined),
        60_000,
      );
      first.kill();
      await a.stop();
      const mid = await stateOf(core, name);
      // The intent was persisted before the call; its completion never was.
      expect(mid?.phase).toBe('Remediating');
      expect(mid?.remediation?.intent?.actionId).toBe(provider.reboots[0]?.actionId);
      expect(mid?.remediation?.intent?.completedAt).toBeUndefined();

      b = startController(createKubeClient(kc), policy, provider, scope);
      const done = await waitFor(
        'repair success after the restart',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? s
            : undefined;
        },
        60_000,
      );
      expect(done.lastRemediation?.id).toBe(mid?.remediation?.id);
      expect(provider.reboots).toHaveLength(1);
      const replays = provider.requests.filter((r) => r.replay);
      expect(replays.length).toBeGreaterThanOrEqual(1);
      expect(replays.every((r) => r.actionId === provider.reboots[0]?.actionId)).toBe(true);
      expect((await core.readNode({ name })).spec?.unschedulable ?? false).toBe(false);

      // The repair the first controller started and the second ended is in the Node's
      // history, which `noderepair status NODE` reads back with no controller running.
      expect(done.history).toEqual([
        expect.objectContaining({
          id: mid?.remediation?.id,
          cause: { kind: 'ContainerRuntimeDown', message: 'container runtime is down' },
          startedAt: mid?.remediation?.startedAt,
          endedAt: done.lastRemediation?.endedAt,
          outcome: 'Succeeded',
          steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
        }),
      ]);
      await b.stop();
      b = undefined;
      const out: string[] = [];
      const code = await runCli(['status', name, '--kubeconfig', env.kubeconfigPath], {
        stdout: (l) => out.push(l),
        stderr: (l) => out.push(`stderr: ${l}`),
        readFile: () => Promise.reject(new Error('no policy file is read')),
      });
      expect(code).toBe(0);
      expect(out[1]).toMatch(new RegExp(`^${name}\\s+Healthy\\s`));
      expect(out.slice(2, 4)).toEqual(['', 'HISTORY (last 5 repairs, oldest first)']);
      expect(out[4]).toMatch(/^ID\s+CAUSE\s+STARTED\s+DURATION\s+STEPS\s+OUTCOME$/);
      expect(out[5]).toMatch(
        new RegExp(
          `^${mid?.remediation?.id}\\s+ContainerRuntimeDown\\s+\\S+Z\\s+\\S+\\s+SoftReboot 1x Succeeded\\s+Succeeded$`,
        ),
      );
      expect(out).toHaveLength(6);
    } finally {
      await b?.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
  it('a flapping node is repaired although each NotReady episode is short; flapping again after the repair escalates', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('ar-flap');
    const name = env.unique('ar-flap-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
    });
    const provider = new FakeKubeletRebootProviderForTest(new Map([[name, kubelet]]), {
      downMs: 1000,
    });
    // Single episodes would need 5 minutes; three within 10 minutes count at once.
    const policy = policyFrom({
      ...fastPolicy,
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '5m' },
        { type: 'Ready', status: 'False', timeout: '5m' },
      ],
      flap: { episodes: 3, window: '10m', escalateWithin: '10m' },
      drain: { enabled: false },
    });
    const ctl = startController(client, policy, provider, scope);
    /** Three short NotReady episodes; the third is left NotReady for the flap rule to act on. */
    const flapThrice = async (reboots: number) => {
      for (let episode = 1; episode <= 3; episode++) {
        // lastTransitionTime has second precision: keep every transition in its own second
        // (and the first one after the second the Node registered in, which is its start-up).
        await sleep(1100);
        await kubelet.setNotReady(
          'PLEG is not healthy: pleg was last seen active 3m0.1s ago; threshold is 3m0s',
        );
        await waitFor(
          `episode ${episode} recorded`,
          async () => ((await stateOf(core, name))?.episodes.length === episode ? true : undefined),
          20_000,
          100,
        );
        if (episode < 3) {
          expect(provider.reboots).toHaveLength(reboots);
          await sleep(1100);
          await kubelet.setReady();
          await waitFor(
            'Ready again',
            async () => ((await stateOf(core, name))?.phase === 'Healthy' ? true : undefined),
            20_000,
            100,
          );
        }
      }
    };
    try {
      await flapThrice(0);
      await waitFor(
        'the flap repair',
        async () => (provider.reboots.length === 1 ? true : undefined),
        20_000,
      );
      expect(provider.reboots[0]?.actionId).toMatch(/\/SoftReboot-1$/);
      const started = (await eventsFor(client, name)).find((e) => e.reason === 'RepairStarted');
      expect(started?.note).toMatch(/flapping: 3 NotReady episodes within 10m/);
      await waitFor(
        'repair success',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? true
            : undefined;
        },
        40_000,
      );
      // The verified repair cleared the flap memory (the reboot's own NotReady never counted).
      expect((await stateOf(core, name))?.episodes).toEqual([]);

      // The node flaps again soon after the repair: the next flap repair starts one step higher.
      await flapThrice(1);
      await waitFor(
        'the escalated repair',
        async () => (provider.reboots.length === 2 ? true : undefined),
        20_000,
      );
      expect(provider.reboots[1]?.actionId).toMatch(/\/HardReboot-1$/);
      await waitFor(
        'second repair success',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.step === 1 ? true : undefined;
        },
        40_000,
      );
    } finally {
      await ctl.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  it('storm guard: with more nodes NotReady than maxInFlight allows, only that many are repaired at once; events say the rest were held', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('ar-storm');
    const names = ['a', 'b', 'c', 'd'].map((n) => `${scope}-${n}`);
    const kubelets = new Map<string, FakeKubelet>();
    for (const n of names)
      kubelets.set(
        n,
        await startFakeKubelet(kc, { name: n, labels: { [SCOPE]: scope }, heartbeatSeconds: 1 }),
      );
    const provider = new FakeKubeletRebootProviderForTest(kubelets, { downMs: 1000 });
    const policy = policyFrom({
      ...fastPolicy,
      drain: { enabled: false },
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 2, recheckInterval: '1s' },
    });
    const ctl = startController(client, policy, provider, scope);
    const broken = names.slice(0, 3);
    try {
      await Promise.all(
        broken.map((n) => kubelets.get(n)!.setNotReady('container runtime is down')),
      );
      await waitFor(
        'two repairs',
        async () => (provider.reboots.length >= 2 ? true : undefined),
        30_000,
      );
      const firstTwo = provider.reboots.slice(0, 2).map((r) => r.node);
      const held = broken.find((n) => !firstTwo.includes(n))!;
      expect(provider.reboots.filter((r) => r.node === held)).toHaveLength(0);
      expect((await stateOf(core, held))?.phase).toBe('Unhealthy');
      expect((await core.readNode({ name: held })).spec?.unschedulable ?? false).toBe(false);
      const heldEvent = (await eventsFor(client, held)).find((e) => e.reason === 'StormGuardHeld');
      expect(heldEvent?.note).toMatch(/storm guard: 2 repairs in flight \(maxInFlight 2\)/);
      expect(
        await metricValue(ctl, 'noderepair_storm_guard_holds_total', { scope: 'in-flight' }),
      ).toBeGreaterThan(0);
      // The Node says so itself, and the hold is counted while it lasts.
      const heldCond = await waitFor(
        'the NodeRepairHeld condition',
        async () =>
          (await core.readNode({ name: held })).status?.conditions?.find(
            (c) => c.type === 'NodeRepairHeld',
          ),
        10_000,
      );
      expect(heldCond).toMatchObject({
        status: 'True',
        reason: 'MaxInFlight',
        message: 'maxInFlight: 2 repairs in flight (max 2)',
      });
      expect(await metricValue(ctl, 'noderepair_nodes_held', { reason: 'in-flight' })).toBe(1);

      // Once the first two are repaired, the held node gets its turn.
      await waitFor(
        'the third repair',
        async () => (provider.reboots.length === 3 ? true : undefined),
        60_000,
      );
      expect(provider.reboots[2]?.node).toBe(held);
      expect(await metricValue(ctl, 'noderepair_nodes_held', { reason: 'in-flight' })).toBe(0);
      const durations = await ctl.controller.metrics.holdDuration.get();
      expect(durations.name).toBe('noderepair_hold_duration_seconds');
      expect(
        durations.values.find(
          (v) =>
            v.metricName === 'noderepair_hold_duration_seconds_count' &&
            v.labels['reason'] === 'in-flight',
        )?.value,
      ).toBe(1);
      for (const n of firstTwo) {
        // Admitted together (burst admission, when due in one pass) or one at a time: one
        // first send each, one RepairStarted each.
        expect(provider.requests.filter((r) => r.node === n).map((r) => r.replay)).toEqual([false]);
        const started = (await eventsFor(client, n)).filter((e) => e.reason === 'RepairStarted');
        expect(started).toHaveLength(1);
        expect(started[0]?.series).toBeUndefined();
        const s = await stateOf(core, n);
        expect(s?.phase).toBe('Healthy');
        expect(s?.lastRemediation?.result).toBe('Succeeded');
      }
      // The healthy node was never touched.
      expect(
        (await core.readNode({ name: names[3]! })).metadata?.annotations?.[STATE],
      ).toBeUndefined();
    } finally {
      await ctl.stop();
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      await Promise.all(names.map((name) => core.deleteNode({ name }).catch(() => undefined)));
    }
  });
});
