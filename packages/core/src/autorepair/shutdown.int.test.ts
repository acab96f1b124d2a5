// A node shut down on purpose, on a real kube-apiserver with the real node lifecycle
// controller (envtest, grace period ~8 s): the fake kubelet announces a graceful shutdown
// ("node is shutting down"), then stops, so Ready goes Unknown. With the default policy
// (shutdown.poweredOff: Wait) the controller waits through many timeouts and never asks the
// provider anything. With FailAfter, a provider FAKE answers the power state: an outage is
// waited out; "off" past failAfter fails the node, and its repair starts at HardReboot
// (SoftReboot cannot reach a powered-off guest).
// A machine stopped without any announcement (`openstack server stop`, a hypervisor
// maintenance): the Node is simply Ready=Unknown. Before the first action the provider is
// asked; a stop by request is a shutdown, so no power action is ever sent; a crash is repaired;
// the cloud provider's shutdown taint is a shutdown without asking.
import { describe, expect, it } from 'vitest';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { KubeletNotReadyMessages, startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type { MachineProvider } from '../provider/port.js';
import { PowerStateProviderFake } from '../../test/power-state-provider-fake.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';

const env = useControlPlane();
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const SCOPE = 'test.noderepair.io/shutdown-scope';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const DOWN = { kind: 'Unavailable', reason: 'the fake cloud is down' } as const;

function start(client: KubeClient, policyInput: unknown, provider: MachineProvider, scope: string) {
  const policy = resolveRepairPolicy(policyInput);
  if (either.isLeft(policy)) throw new Error(policy.left);
  const ar = startAutoRepair({
    name: 'shutdown-int',
    client,
    policy: policy.right,
    provider,
    scopeLabel: SCOPE,
    scope,
  });
  return ar;
}

const stateOf = repairStateOf;

async function eventsFor(client: KubeClient, node: string): Promise<KubeEvent[]> {
  const list = await client.list<KubeEvent>(EventResource, { namespace: 'default' });
  return list.items.filter((e) => e.regarding?.name === node && e.regarding.kind === 'Node');
}

/** Timeouts of 2 s, so "several timeouts" pass in seconds; the default ladder. */
const fast = {
  unhealthyConditions: [
    { type: 'Ready', status: 'Unknown', timeout: '2s' },
    { type: 'Ready', status: 'False', timeout: '2s' },
  ],
  nodeStartupTimeout: '30s',
  minHealthyPeriod: '3s',
  stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
  drain: { timeout: '10s', outOfServiceAfter: '2s' },
};

/** The kubelet announces a graceful shutdown, the controller sees it, then the kubelet stops. */
async function shutDown(
  core: CoreV1Api,
  kubelet: Awaited<ReturnType<typeof startFakeKubelet>>,
  name: string,
) {
  await kubelet.setNotReady(KubeletNotReadyMessages.shuttingDown);
  await waitFor(
    'the controller sees the shutdown',
    async () => ((await stateOf(core, name))?.phase === 'Waiting' ? true : undefined),
    30_000,
  );
  kubelet.stopHeartbeats(); // powered off: Ready=Unknown after ~8 s (node lifecycle controller)
  await waitFor(
    'Ready=Unknown',
    async () => {
      const n = await core.readNode({ name });
      return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown'
        ? true
        : undefined;
    },
    60_000,
  );
}

describe('a node that was shut down (real node lifecycle controller)', () => {
  it('default policy: waits through many timeouts, never acts, never asks the provider', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('sd-wait');
    const name = env.unique('sd-wait-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake({
      kind: 'Off',
      byRequest: true,
      evidence: 'the fake: stopped',
    });
    const ctl = start(client, fast, provider, scope);
    try {
      await shutDown(core, kubelet, name);
      // Five Ready=Unknown timeouts (2 s each) and more.
      await sleep(12_000);
      const s = await stateOf(core, name);
      expect(s?.phase).toBe('Waiting');
      expect(s?.notReady?.uncounted).toBe('Shutdown');
      expect(provider.requests).toEqual([]);
      expect(provider.powerQueries).toEqual([]);
      expect((await core.readNode({ name })).spec?.unschedulable).not.toBe(true);
      const events = await eventsFor(client, name);
      expect(events.map((e) => e.reason)).not.toContain('RepairStarted');
      const waiting = events.find((e) => e.reason === 'NodeShutDown');
      expect(waiting?.note).toMatch(/waited for for ever \(policy shutdown\.poweredOff: Wait\)/);
      expect(events.map((e) => e.reason)).not.toContain('ShutDownTooLong');
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });

  it('FailAfter: waits for the deadline and through a provider outage, then repairs from HardReboot', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('sd-fail');
    const name = env.unique('sd-fail-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake(DOWN);
    const ctl = start(
      client,
      { ...fast, shutdown: { poweredOff: 'FailAfter', failAfter: '15s' } },
      provider,
      scope,
    );
    try {
      await shutDown(core, kubelet, name);
      const shutAt = (await stateOf(core, name))?.notReady?.since ?? 0;
      expect(shutAt).toBeGreaterThan(0);
      // Past it the provider is asked; its outage is waited out, no attempt is made.
      await waitFor(
        'power state asked',
        async () => (provider.powerQueries.length >= 3 ? true : undefined),
        60_000,
      );
      expect(provider.powerQueries[0]).toEqual({ node: name, providerID: `test:///${name}` });
      // Never asked before the deadline (the controller's clock is this process's clock).
      expect(provider.powerQueryTimes[0]).toBeGreaterThan(shutAt + 15_000);
      expect(provider.requests).toEqual([]);
      expect((await stateOf(core, name))?.phase).toBe('Waiting');

      provider.powerAnswer = {
        kind: 'Off',
        byRequest: true,
        evidence: 'the fake: stopped by an operator',
      };
      await waitFor(
        'the repair',
        async () => (provider.requests.length > 0 ? true : undefined),
        30_000,
      );
      expect(provider.requests[0]).toMatchObject({ action: 'HardReboot', replay: false });
      expect(provider.requests[0]?.actionId).toMatch(/\/HardReboot-1$/);
      const s = await stateOf(core, name);
      expect(s?.remediation?.cause).toBe('ShutDownTooLong');
      expect((await core.readNode({ name })).spec?.unschedulable).toBe(true);
      const events = await eventsFor(client, name);
      const reasons = events.map((e) => e.reason);
      expect(events.find((e) => e.reason === 'NodeShutDown')?.note).toMatch(
        /treated as failed \(policy shutdown\.poweredOff: FailAfter 15s\)/,
      );
      expect(reasons).toContain('RepairStarted');
      const failed = events.find((e) => e.reason === 'ShutDownTooLong');
      expect(failed?.note).toMatch(/shutdown\.poweredOff: FailAfter 15s/);
      expect(failed?.note).toMatch(/stopped by an operator/);
      const started = events.find((e) => e.reason === 'RepairStarted');
      expect(started?.note).toMatch(/SoftReboot .* is skipped/);
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });
});

/** The kubelet stops without announcing anything (the machine was stopped): Ready=Unknown. */
async function stoppedUnannounced(
  core: CoreV1Api,
  kubelet: Awaited<ReturnType<typeof startFakeKubelet>>,
  name: string,
) {
  kubelet.stopHeartbeats();
  await waitFor(
    'Ready=Unknown',
    async () => {
      const n = await core.readNode({ name });
      return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown'
        ? true
        : undefined;
    },
    60_000,
  );
}

/** The provider's power actions: everything execute was asked to do to the machine. */
const powerActions = (p: PowerStateProviderFake) => p.requests.map((r) => r.action);

describe('a machine stopped without an announcement (real node lifecycle controller)', () => {
  it('stopped by request: asked before the first action; an outage holds, then the shutdown rule; never a power action', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('stop-req');
    const name = env.unique('stop-req-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake(DOWN); // the cloud is down at first
    const ctl = start(client, fast, provider, scope);
    try {
      await stoppedUnannounced(core, kubelet, name);
      // Past the 2 s Unknown timeout the provider is asked, and cannot answer: no repair.
      await waitFor(
        'power state asked',
        async () => (provider.powerQueries.length >= 2 ? true : undefined),
        60_000,
      );
      expect(provider.powerQueries[0]).toEqual({ node: name, providerID: `test:///${name}` });
      expect(powerActions(provider)).toEqual([]);
      const held = await stateOf(core, name);
      expect(held?.phase).toBe('Unhealthy');
      expect(held?.remediation).toBeUndefined();
      expect((await core.readNode({ name })).spec?.unschedulable).not.toBe(true);

      provider.powerAnswer = {
        kind: 'Off',
        byRequest: true,
        evidence: 'the fake: stopped through the API by an operator',
      };
      await waitFor(
        'the shutdown rule',
        async () => ((await stateOf(core, name))?.phase === 'Waiting' ? true : undefined),
        30_000,
      );
      const asked = provider.powerQueries.length;
      // Many Unknown timeouts (2 s each) later: still no power action, not even a cordon,
      // and under Wait the provider is not asked again.
      await sleep(12_000);
      expect(powerActions(provider)).toEqual([]);
      expect(provider.powerQueries.length).toBe(asked);
      const s = await stateOf(core, name);
      expect(s?.phase).toBe('Waiting');
      expect(s?.notReady?.uncounted).toBe('Shutdown');
      expect((await core.readNode({ name })).spec?.unschedulable).not.toBe(true);
      const events = await eventsFor(client, name);
      expect(events.map((e) => e.reason)).not.toContain('RepairStarted');
      expect(events.find((e) => e.reason === 'NodeShutDown')?.note).toMatch(
        /stopped on request \(the fake: stopped through the API by an operator\).*never powering it on/,
      );
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });

  it('off without a recorded request (a crash): repaired, from HardReboot', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('stop-crash');
    const name = env.unique('stop-crash-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake(DOWN);
    provider.powerAnswer = {
      kind: 'Off',
      byRequest: false,
      evidence: "the fake: off, no stop recorded (the hypervisor's sync)",
    };
    const ctl = start(client, fast, provider, scope);
    try {
      await stoppedUnannounced(core, kubelet, name);
      await waitFor(
        'the repair',
        async () => (provider.requests.length > 0 ? true : undefined),
        60_000,
      );
      expect(provider.powerQueries.length).toBeGreaterThan(0);
      expect(provider.requests[0]).toMatchObject({ action: 'HardReboot', replay: false });
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });

  it('the cloud provider shutdown taint: a shutdown without asking, no action', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('stop-taint');
    const name = env.unique('stop-taint-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake(DOWN);
    provider.powerAnswer = { kind: 'On' }; // would repair, if it were asked
    const ctl = start(client, fast, provider, scope);
    try {
      kubelet.stopHeartbeats();
      // What the cloud-controller-manager adds to a node whose instance is shut down.
      await core.patchNode(
        {
          name,
          body: {
            spec: {
              taints: [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' }],
            },
          },
        },
        mergePatch,
      );
      await stoppedUnannounced(core, kubelet, name);
      await waitFor(
        'the shutdown rule',
        async () => ((await stateOf(core, name))?.phase === 'Waiting' ? true : undefined),
        30_000,
      );
      await sleep(8_000);
      expect(powerActions(provider)).toEqual([]);
      expect(provider.powerQueries).toEqual([]);
      expect((await stateOf(core, name))?.phase).toBe('Waiting');
      const events = await eventsFor(client, name);
      expect(events.find((e) => e.reason === 'NodeShutDown')?.note).toMatch(
        /taint node\.cloudprovider\.kubernetes\.io\/shutdown/,
      );
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });
});
