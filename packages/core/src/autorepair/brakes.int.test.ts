// The brakes over time (issue 46) on a real kube-apiserver (envtest) with the standalone
// controller: the latch survives a controller restart and only a person's reset releases it;
// the rate limit counts the repairs started before a restart from the nodes' persisted state.
// The doubles: the fake kubelet and a provider that records every call.
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import { LeaseResource } from '../kube/resource.js';
import type { KubeObject } from '../kube/object.js';
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
import { LatchAnnotation, latchLeaseName } from './latch.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/brakes-scope';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** TEST DOUBLE of a MachineProvider: records every call and accepts it. */
class RecordingProviderForTest implements MachineProvider {
  readonly name = 'recording-test-double';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: ActionRequest[] = [];
  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push(req);
    return { kind: 'Accepted', message: 'rebooting' };
  }
  async fence(): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: 'the test double does not report power state' };
  }
}

function policyFrom(stormGuard: Record<string, unknown>): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [
      { type: 'Ready', status: 'Unknown', timeout: '2s' },
      { type: 'Ready', status: 'False', timeout: '2s' },
    ],
    minHealthyPeriod: '3s',
    ladder: [{ action: 'SoftReboot', timeout: '5m', attempts: 1 }],
    stormGuard: { recheckInterval: '1s', cooldown: '1s', ...stormGuard },
    drain: { enabled: false },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

async function metricValue(r: RunningAutoRepair, name: string): Promise<number> {
  const m = await r.manager.metrics.registry.getSingleMetric(name)?.get();
  return m?.values[0]?.value ?? 0;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function fleet(prefix: string, n: number) {
  const kc = env.kubeConfig;
  const core = kc.makeApiClient(CoreV1Api);
  const scope = env.unique(prefix);
  const names = Array.from({ length: n }, (_, i) => env.unique(`${prefix}-${i}`));
  const kubelets: FakeKubelet[] = await Promise.all(
    names.map((name) =>
      startFakeKubelet(kc, { name, labels: { [SCOPE]: scope }, heartbeatSeconds: 1 }),
    ),
  );
  cleanups.push(async () => {
    await Promise.all(kubelets.map((k) => k.stop()));
    for (const name of names) await core.deleteNode({ name }).catch(() => undefined);
  });
  return { core, scope, names, kubelets };
}

const heldReason = async (core: CoreV1Api, name: string) =>
  (await core.readNode({ name })).status?.conditions?.find(
    (c) => c.type === 'NodeRepairHeld' && c.status === 'True',
  )?.reason;

describe('the storm guard latch (stormGuard.latch)', () => {
  it('sets after the storm held afterHeldFor, survives a controller restart, and only a reset by a person releases it', async () => {
    const client = createKubeClient(env.kubeConfig);
    const { core, scope, names, kubelets } = await fleet('latch', 3);
    const id = env.unique('latch-ctl');
    const latch = { namespace: 'default', name: latchLeaseName(id) };
    cleanups.push(() => client.delete(LeaseResource, latch.name, { namespace: 'default' }));
    const policy = policyFrom({
      maxUnhealthy: 1,
      minUnhealthyAllowed: 0,
      maxInFlight: 3,
      latch: { afterHeldFor: '3s' },
    });
    const provider = new RecordingProviderForTest();
    const start = () =>
      startAutoRepair({
        name: 'brakes-latch-int',
        client,
        policy,
        provider,
        scopeLabel: SCOPE,
        scope,
        latch,
      });
    let ctl = start();
    cleanups.push(() => ctl.stop());
    // Two of three down, over maxUnhealthy 1: the storm guard holds, and after 3 s latches.
    await kubelets[0]!.setNotReady('container runtime is down');
    await kubelets[1]!.setNotReady('container runtime is down');
    const set = await waitFor(
      'the latch annotation on its Lease',
      async () =>
        (
          await client
            .get<KubeObject>(LeaseResource, latch.name, { namespace: 'default' })
            .catch(() => undefined)
        )?.metadata?.annotations?.[LatchAnnotation],
      30_000,
    );
    expect(JSON.parse(set)).toMatchObject({ reason: expect.stringMatching(/afterHeldFor/) });
    expect(await metricValue(ctl, 'noderepair_storm_guard_latched')).toBe(1);

    // The controller stops; the storm lifts while it is down: one node stays broken.
    await ctl.stop();
    await kubelets[1]!.setReady();
    ctl = start();
    // A restarted controller reads the latch: the one broken node (no storm now) is held.
    await waitFor(
      'node 0 held by the latch after the restart',
      async () =>
        ((await metricValue(ctl, 'noderepair_storm_guard_latched')) === 1 &&
          (await heldReason(core, names[0]!)) === 'Latched') ||
        undefined,
      30_000,
    );
    await sleep(3000);
    expect(provider.requests).toEqual([]);
    expect((await core.readNode({ name: names[0]! })).spec?.unschedulable ?? false).toBe(false);

    // A person resets it: the node is repaired at its next recheck.
    const out: string[] = [];
    const code = await runCli(
      [
        'reset-latch',
        '--kubeconfig',
        env.kubeconfigPath,
        '--leader-election-namespace',
        'default',
        '--leader-election-id',
        id,
      ],
      {
        stdout: (l) => out.push(l),
        stderr: (l) => out.push(`stderr: ${l}`),
        readFile: () => Promise.reject(new Error('no file is read')),
      },
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/reset the latch set since/);
    await waitFor(
      'node 0 repaired after the reset',
      async () => provider.requests.length > 0 || undefined,
      30_000,
    );
    expect(provider.requests.map((r) => r.node)).toEqual([names[0]]);
    expect(await metricValue(ctl, 'noderepair_storm_guard_latched')).toBe(0);
  }, 90_000);
});

describe('the rate limit (stormGuard.maxStartsPerHour)', () => {
  it('counts the repairs started before a restart from the persisted state', async () => {
    const client = createKubeClient(env.kubeConfig);
    const { core, scope, names, kubelets } = await fleet('rate', 3);
    const policy = policyFrom({ maxUnhealthy: '100%', maxInFlight: 3, maxStartsPerHour: 1 });
    const first = new RecordingProviderForTest();
    const start = (provider: MachineProvider) =>
      startAutoRepair({
        name: 'brakes-rate-int',
        client,
        policy,
        provider,
        scopeLabel: SCOPE,
        scope,
      });
    let ctl = start(first);
    cleanups.push(() => ctl.stop());
    await kubelets[0]!.setNotReady('container runtime is down');
    await waitFor('node 0 repaired', async () => first.requests.length > 0 || undefined, 30_000);
    await waitFor(
      "node 0's action recorded",
      async () => (await repairStateOf(core, names[0]!))?.phase === 'Verifying' || undefined,
      30_000,
    );
    await ctl.stop();

    // Restarted: a second node breaks; the hour's one start is node 0's, read from its state.
    const second = new RecordingProviderForTest();
    ctl = start(second);
    await kubelets[1]!.setNotReady('container runtime is down');
    await waitFor(
      'node 1 held by the rate limit',
      async () => (await heldReason(core, names[1]!)) === 'RateLimit' || undefined,
      30_000,
    );
    await sleep(2000);
    expect(second.requests).toEqual([]);
    expect(first.requests.map((r) => r.node)).toEqual([names[0]]);
  }, 90_000);
});
