// executeActions with test doubles for its ports: an in-memory DrainPort and the built-in
// DryRunRebootProvider (a real, recording provider).
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { NodeSnapshot } from '../health/node.js';
import type { ActionOutcome, RepairAction } from '../health/decide.js';
import { DryRunRebootProvider } from '../health/provider.js';
import type { DrainPort, NodePatch } from '../drain/port.js';
import type { PodSnapshot } from '../drain/pod.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger } from '../runtime/logger.js';
import { executeActions } from './executor.js';
import { AutoRepairMetrics } from './metrics.js';
import { Mutex } from './mutex.js';

class InMemoryDrainPortForTest implements DrainPort {
  node: NodeSnapshot = { metadata: { name: 'n1' }, spec: {} };
  pods: PodSnapshot[] = [
    {
      metadata: {
        name: 'web-1',
        namespace: 'ns',
        ownerReferences: [{ kind: 'ReplicaSet', name: 'web', controller: true }],
      },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running' },
    },
  ];
  readonly log: string[] = [];
  async getNode(): Promise<NodeSnapshot | undefined> {
    return this.node;
  }
  async patchNode(_name: string, patch: NodePatch): Promise<void> {
    this.log.push(`patch ${JSON.stringify(patch)}`);
    if (patch.unschedulable !== undefined)
      this.node = { ...this.node, spec: { ...this.node.spec, unschedulable: patch.unschedulable } };
  }
  async listPodsOnNode(): Promise<PodSnapshot[]> {
    return this.pods;
  }
  async evictPod(pod: { namespace: string; name: string }) {
    this.log.push(`evict ${pod.namespace}/${pod.name}`);
    this.pods = this.pods.filter((p) => p.metadata?.name !== pod.name);
    return { kind: 'Evicted' as const };
  }
  async deletePod() {
    return { kind: 'Deleted' as const };
  }
}

const reason = 'KubeletUnreachable: Ready=Unknown for more than 10m';
const repair = (dryRun: boolean): RepairAction[] => [
  { type: 'Cordon', reason, dryRun },
  {
    type: 'Drain',
    reason,
    dryRun,
    unreachable: false,
    timeoutMs: 60_000,
    outOfServiceAfterMs: 60_000,
  },
  {
    type: 'Remediate',
    reason,
    dryRun,
    action: 'SoftReboot',
    actionId: 'n1/1/SoftReboot-1',
    step: 0,
    attempt: 1,
    replay: false,
  },
];

function setup() {
  const port = new InMemoryDrainPortForTest();
  const provider = new DryRunRebootProvider();
  const events: EventInput[] = [];
  const outcomes: ActionOutcome[] = [];
  const order: string[] = [];
  const deps = {
    drainPort: port,
    provider,
    metrics: new AutoRepairMetrics(new Registry()),
    event: async (e: EventInput) => {
      events.push(e);
      order.push(`event ${e.reason}`);
    },
    log: silentLogger,
    now: () => 42,
    // The drain looks again after the evictions; a virtual clock keeps that instant.
    drainClock: { now: () => 0, sleep: async () => undefined },
  };
  const target = (signal = new AbortController().signal) => ({
    node: 'n1',
    providerID: 'openstack:///abc',
    signal,
    recordOutcome: async (o: ActionOutcome) => {
      outcomes.push(o);
      order.push(`outcome ${o.result}`);
    },
  });
  return { port, provider, events, outcomes, order, deps, target };
}

describe('executeActions', () => {
  it('cordons, drains, reboots, and records the outcome before announcing it', async () => {
    const s = setup();
    const r = await executeActions(repair(false), s.target(), s.deps);
    expect(r).toEqual({ remediated: true, aborted: false });
    expect(s.port.log).toEqual(['patch {"unschedulable":true}', 'evict ns/web-1']);
    expect(s.provider.requests).toEqual([
      {
        node: 'n1',
        providerID: 'openstack:///abc',
        action: 'SoftReboot',
        actionId: 'n1/1/SoftReboot-1',
        replay: false,
      },
    ]);
    expect(s.outcomes).toEqual([
      {
        actionId: 'n1/1/SoftReboot-1',
        result: 'Succeeded',
        at: 42,
        message: 'dry-run: would SoftReboot n1',
      },
    ]);
    expect(s.order).toEqual([
      'event Cordoned',
      'event Drained',
      'outcome Succeeded',
      'event RemediationSucceeded',
    ]);
  });

  it('dry-run actions change nothing in the cluster but say what they would do', async () => {
    const s = setup();
    await executeActions(repair(true), s.target(), s.deps);
    expect(s.port.log).toEqual([]);
    expect(s.events.filter((e) => e.reason === 'DryRun').map((e) => e.action)).toEqual([
      'Cordon',
      'Drain',
    ]);
    // The dry-run provider is the one that receives Remediate in dry-run mode: it records only.
    expect(s.provider.executedActionIds()).toEqual(['n1/1/SoftReboot-1']);
  });

  it('a stopping controller runs nothing more and records no outcome', async () => {
    const s = setup();
    const stop = new AbortController();
    stop.abort();
    const r = await executeActions(repair(false), s.target(stop.signal), s.deps);
    expect(r).toEqual({ remediated: false, aborted: true });
    expect(s.provider.requests).toEqual([]);
    expect(s.outcomes).toEqual([]);
  });

  it('a provider that throws counts as a failed attempt, with its message', async () => {
    const s = setup();
    const failing = {
      name: 'broken',
      execute: async () => Promise.reject(new Error('Nova answered 503')),
    };
    await executeActions(repair(false).slice(2), s.target(), { ...s.deps, provider: failing });
    expect(s.outcomes).toEqual([
      { actionId: 'n1/1/SoftReboot-1', result: 'Failed', at: 42, message: 'Nova answered 503' },
    ]);
    expect(s.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'RemediationFailed',
      action: 'SoftReboot',
    });
  });

  it('an uncordon failure is thrown so the decision is retried', async () => {
    const s = setup();
    s.port.patchNode = async () => Promise.reject(new Error('connection refused'));
    s.port.node = { metadata: { name: 'n1' }, spec: { unschedulable: true } };
    await expect(
      executeActions(
        [{ type: 'Uncordon', reason: 'ok', dryRun: false, removeOutOfServiceTaint: true }],
        s.target(),
        s.deps,
      ),
    ).rejects.toThrow('connection refused');
    expect(s.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'ActionFailed',
      action: 'Uncordon',
    });
  });
});

describe('Mutex', () => {
  it('runs critical sections one at a time, in order, and survives a throwing one', async () => {
    const m = new Mutex();
    const trace: string[] = [];
    const section = (id: string, ms: number, fail = false) =>
      m.run(async () => {
        trace.push(`${id} in`);
        await new Promise((r) => setTimeout(r, ms));
        trace.push(`${id} out`);
        if (fail) throw new Error(id);
        return id;
      });
    const results = await Promise.allSettled([
      section('a', 20),
      section('b', 1, true),
      section('c', 1),
    ]);
    expect(trace).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
