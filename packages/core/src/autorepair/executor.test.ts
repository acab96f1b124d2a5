// executeActions with test doubles for its ports: an in-memory DrainPort, the built-in
// DryRunProvider (a real, recording provider) and, for outcomes the dry-run provider never
// gives, FakeMachineProviderForTest (answers what the test sets, following the port).
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { NodeSnapshot } from '../health/node.js';
import type { ActionOutcome, DrainReport, RepairAction } from '../health/decide.js';
import type { FenceRecord } from '../health/state.js';
import type { RemediationStepKind } from '../health/policy.js';
import type { PowerState } from '../health/machine.js';
import { DryRunProvider } from '../provider/dry-run.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import type { DrainPort, EvictionResult, NodePatch } from '../drain/port.js';
import type { PodSnapshot } from '../drain/pod.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger } from '../runtime/logger.js';
import { executeActions } from './executor.js';
import { AutoRepairMetrics } from './metrics.js';
import { Mutex } from './mutex.js';
import { ManualClock } from '../runtime/clock.js';

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
    if (patch.addTaints !== undefined)
      this.node = {
        ...this.node,
        spec: {
          ...this.node.spec,
          taints: [...(this.node.spec?.taints ?? []), ...patch.addTaints],
        },
      };
  }
  async listPodsOnNode(): Promise<PodSnapshot[]> {
    return this.pods;
  }
  async evictPod(pod: { namespace: string; name: string }): Promise<EvictionResult> {
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
    remediationId: 'n1/1',
    startedAt: 0,
    firstPass: true,
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
    issuedAt: 7,
    step: 0,
    attempt: 1,
    replay: false,
  },
];

/** FAKE MachineProvider: answers execute() and fence() with what the test set; records calls. */
class FakeMachineProviderForTest implements MachineProvider {
  readonly name = 'fake-for-test';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  readonly requests: ActionRequest[] = [];
  readonly fenceQueries: FenceQuery[] = [];
  constructor(
    public outcome: ProviderOutcome,
    public fenceAnswer: FenceStatus = { kind: 'NotFenced', reason: 'reset still pending' },
  ) {}
  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    return this.outcome;
  }
  async fence(q: FenceQuery): Promise<FenceStatus> {
    this.fenceQueries.push({ ...q });
    return this.fenceAnswer;
  }
}

function setup() {
  const port = new InMemoryDrainPortForTest();
  const provider = new DryRunProvider();
  const events: EventInput[] = [];
  const outcomes: ActionOutcome[] = [];
  const order: string[] = [];
  const fences: FenceRecord[] = [];
  const drains: DrainReport[] = [];
  const clock = new ManualClock(0, { sleepAdvances: true });
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
    // The drain's clock: the tests move it to pass the drain timeout.
    clock,
  };
  const target = (signal = new AbortController().signal) => ({
    node: 'n1',
    providerID: 'openstack:///abc',
    signal,
    recordOutcome: async (o: ActionOutcome) => {
      outcomes.push(o);
      order.push(`outcome ${o.result}`);
    },
    recordFence: async (f: FenceRecord) => {
      fences.push(f);
    },
    recordDrain: async (d: DrainReport) => {
      drains.push(d);
      order.push(`drain ${d.ended?.outcome ?? 'progress'}`);
    },
  });
  return { port, provider, events, outcomes, fences, drains, order, deps, target, clock };
}

describe('executeActions', () => {
  it('cordons, drains, reboots, and records the outcome before announcing it', async () => {
    const s = setup();
    // First pass: cordon, evict; the pod was still listed, so the drain goes on later and
    // the action waits.
    const pass1 = await executeActions(repair(false), s.target(), s.deps);
    expect(pass1).toEqual({ remediated: false, aborted: false, retryAfterMs: 5000 });
    expect(s.provider.requests).toEqual([]);
    // Second pass (the reconciler's requeue): nothing left, the drain's end is recorded,
    // then the action runs.
    const after = repair(false).slice(1);
    const r = await executeActions(after, s.target(), s.deps);
    expect(r).toEqual({ remediated: true, aborted: false });
    expect(s.port.log).toEqual(['patch {"unschedulable":true}', 'evict ns/web-1']);
    expect(s.drains).toEqual([
      { remediationId: 'n1/1', lastEvictedAt: 0 },
      { remediationId: 'n1/1', ended: { at: 42, outcome: 'Drained' } },
    ]);
    expect(s.provider.requests).toEqual([
      {
        node: 'n1',
        providerID: 'openstack:///abc',
        action: 'SoftReboot',
        actionId: 'n1/1/SoftReboot-1',
        issuedAt: 7,
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
      'drain progress',
      'event Draining',
      'event Drained',
      'drain Drained',
      'outcome Succeeded',
      'event ActionAccepted',
    ]);
  });

  it('a PodDisruptionBudget that never allows eviction holds the action, not the worker, until the drain timeout', async () => {
    const s = setup();
    s.port.evictPod = async (pod: { namespace: string; name: string }) => {
      s.port.log.push(`refused ${pod.namespace}/${pod.name}`);
      return { kind: 'TooManyRequests' as const };
    };
    // Each pass returns at once and asks to be looked at again; the action is not sent.
    for (const t of [0, 5000, 30_000]) {
      s.clock.setTime(t);
      const r = await executeActions(repair(false).slice(1), s.target(), s.deps);
      expect(r).toEqual({ remediated: false, aborted: false, retryAfterMs: 5000 });
    }
    // Near the timeout the next look is at the timeout, not later.
    s.clock.setTime(58_000);
    expect(await executeActions(repair(false).slice(1), s.target(), s.deps)).toEqual({
      remediated: false,
      aborted: false,
      retryAfterMs: 2000,
    });
    expect(s.provider.requests).toEqual([]);
    expect(s.drains).toEqual([]);
    expect(s.events.filter((e) => e.reason === 'Draining')).toHaveLength(4);
    expect(s.events[0]).toMatchObject({ type: 'Warning', reason: 'Draining' });
    // drain.timeout after the recorded start: the end is recorded, then the action goes
    // out exactly as after a drain timeout before.
    s.clock.setTime(60_000);
    const r = await executeActions(repair(false).slice(1), s.target(), s.deps);
    expect(r).toEqual({ remediated: true, aborted: false });
    expect(s.drains).toEqual([{ remediationId: 'n1/1', ended: { at: 42, outcome: 'TimedOut' } }]);
    expect(s.order.slice(-4)).toEqual([
      'event DrainIncomplete',
      'drain TimedOut',
      'outcome Succeeded',
      'event ActionAccepted',
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

  it('Rejected is a failed attempt, with its message', async () => {
    const s = setup();
    const p = new FakeMachineProviderForTest({ kind: 'Rejected', message: 'server is locked' });
    const r = await executeActions(repair(false).slice(2), s.target(), { ...s.deps, provider: p });
    expect(r).toEqual({ remediated: true, aborted: false });
    expect(s.outcomes).toEqual([
      { actionId: 'n1/1/SoftReboot-1', result: 'Failed', at: 42, message: 'server is locked' },
    ]);
    expect(s.events.at(-1)).toMatchObject({ type: 'Warning', reason: 'RemediationFailed' });
  });

  it('Unavailable (or a throw) records nothing: no attempt is used, the caller waits and re-asks', async () => {
    const s = setup();
    const p = new FakeMachineProviderForTest({
      kind: 'Unavailable',
      message: 'Nova answered 503',
      maybeSent: true,
      retryAfterMs: 20_000,
    });
    const r = await executeActions(repair(false).slice(2), s.target(), { ...s.deps, provider: p });
    expect(r).toEqual({ remediated: false, aborted: false, retryAfterMs: 20_000 });
    expect(s.outcomes).toEqual([]);
    expect(s.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'ProviderUnavailable',
      action: 'SoftReboot',
    });
    expect(s.events.at(-1)?.note).toContain('no attempt used');
    const unavailable = await s.deps.metrics.providerUnavailable.get();
    expect(unavailable.values[0]).toMatchObject({ value: 1, labels: { action: 'SoftReboot' } });

    // Without Retry-After: the backoff, growing with the number of re-issues.
    const throwing: MachineProvider = {
      name: 'broken',
      actions: p.actions,
      execute: async () => Promise.reject(new Error('socket hang up')),
      fence: (q) => p.fence(q),
    };
    const replayed = repair(false)
      .slice(2)
      .map((a) => ({ ...a, replay: true, replays: 2 }));
    const r2 = await executeActions(replayed, s.target(), { ...s.deps, provider: throwing });
    expect(r2).toEqual({ remediated: false, aborted: false, retryAfterMs: 20_000 });
    expect(s.outcomes).toEqual([]);
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

describe('a Node deleted and re-created under the same name during a repair', () => {
  /** The old Node (uid old) is replaced by a new one (uid new, with a pod of its own) after `afterPatches` patches. */
  function replacedAfter(afterPatches: number) {
    const s = setup();
    s.port.node = { metadata: { name: 'n1', uid: 'old' } as NodeSnapshot['metadata'], spec: {} };
    const replace = () => {
      s.port.node = { metadata: { name: 'n1', uid: 'new' } as NodeSnapshot['metadata'], spec: {} };
      s.port.pods = [
        {
          metadata: {
            name: 'new-1',
            namespace: 'ns',
            ownerReferences: [{ kind: 'ReplicaSet', name: 'new', controller: true }],
          },
          spec: { nodeName: 'n1' },
          status: { phase: 'Running' },
        },
      ];
    };
    if (afterPatches === 0) replace();
    else {
      const patch = s.port.patchNode.bind(s.port);
      let n = 0;
      s.port.patchNode = async (name, p) => {
        await patch(name, p);
        if (++n === afterPatches) replace();
      };
    }
    const target = { ...s.target(), uid: 'old' };
    return { ...s, target };
  }

  it('between the cordon and the drain: the new Node is not cordoned or drained, and no action is sent', async () => {
    const s = replacedAfter(1);
    const r = await executeActions(repair(false), s.target, s.deps);
    expect(r).toEqual({ remediated: false, aborted: false });
    // The old Node was cordoned; the new one is neither cordoned nor drained.
    expect(s.port.log).toEqual(['patch {"unschedulable":true,"uid":"old"}']);
    expect(s.port.node.metadata).toMatchObject({ uid: 'new' });
    expect(s.port.node.spec?.unschedulable).not.toBe(true);
    expect(s.port.pods.map((p) => p.metadata?.name)).toEqual(['new-1']);
    expect(s.provider.requests).toEqual([]);
    expect(s.outcomes).toEqual([]);
    expect(s.drains).toEqual([]);
    expect(s.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'ActionFailed',
      action: 'Drain',
      note: expect.stringMatching(
        /drain stopped.*Node n1 is another object now \(uid new, not old\)/,
      ),
    });
  });

  it('before the cordon: the refused cordon stops the repair, nothing is drained or sent', async () => {
    const s = replacedAfter(0);
    const r = await executeActions(repair(false), s.target, s.deps);
    expect(r).toEqual({ remediated: false, aborted: false });
    expect(s.port.log).toEqual([]);
    expect(s.port.node.spec?.unschedulable).not.toBe(true);
    expect(s.port.pods.map((p) => p.metadata?.name)).toEqual(['new-1']);
    expect(s.provider.requests).toEqual([]);
    expect(s.events.map((e) => `${e.reason} ${e.action}`)).toEqual(['ActionFailed Cordon']);
  });
});

describe('the fence step: the out-of-service taint only once the machine is fenced', () => {
  const fence = (action: RemediationStepKind): RepairAction => ({
    type: 'Fence',
    action,
    actionId: `n1/1/${action}-1`,
    issuedAt: 7,
    bootIdBefore: 'boot-1',
    dryRun: false,
    reason: 'test',
  });
  const down = (bootID = 'boot-1'): NodeSnapshot => ({
    metadata: { name: 'n1' },
    spec: { unschedulable: true, providerID: 'openstack:///abc' },
    status: {
      conditions: [{ type: 'Ready', status: 'Unknown' }],
      nodeInfo: { bootID },
    },
  });
  const tainted = (port: InMemoryDrainPortForTest) =>
    (port.node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service');

  it('no taint while the provider says NotFenced or cannot be asked, and the bootID is unchanged', async () => {
    const s = setup();
    s.port.node = down();
    const p = new FakeMachineProviderForTest({ kind: 'Accepted', message: 'ok' });
    await executeActions([fence('HardReboot')], s.target(), { ...s.deps, provider: p });
    p.fenceAnswer = { kind: 'Unavailable', reason: 'Nova 503', retryAfterMs: 9000 };
    const r = await executeActions([fence('HardReboot')], s.target(), { ...s.deps, provider: p });
    expect(r.retryAfterMs).toBe(9000);
    expect(tainted(s.port)).toBe(false);
    expect(s.fences).toEqual([]);
    expect(p.fenceQueries[0]).toMatchObject({
      node: 'n1',
      providerID: 'openstack:///abc',
      actionId: 'n1/1/HardReboot-1',
      action: 'HardReboot',
      issuedAt: 7,
    });
    expect(s.events.map((e) => e.reason)).toEqual(['AwaitingFence', 'AwaitingFence']);
  });

  it('the taint is added once the provider reports the machine Fenced, and the event says how', async () => {
    const s = setup();
    s.port.node = down();
    const p = new FakeMachineProviderForTest(
      { kind: 'Accepted', message: 'ok' },
      { kind: 'Fenced', how: 'PoweredOff', evidence: 'server SHUTOFF' },
    );
    await executeActions([fence('Replace')], s.target(), { ...s.deps, provider: p });
    expect(tainted(s.port)).toBe(true);
    expect(s.fences).toEqual([
      {
        at: 42,
        actionId: 'n1/1/Replace-1',
        how: 'PoweredOff',
        evidence: 'provider fake-for-test: server SHUTOFF',
        taintAdded: true,
      },
    ]);
    expect(s.events.at(-1)).toMatchObject({ reason: 'Fenced', action: 'Fence' });
    expect(s.events.at(-1)?.note).toContain('server SHUTOFF');
  });

  it('after a HardReboot, a new bootID fences even when the provider cannot tell', async () => {
    const s = setup();
    s.port.node = down('boot-2');
    const p = new FakeMachineProviderForTest({ kind: 'Accepted', message: 'ok' });
    await executeActions([fence('HardReboot')], s.target(), { ...s.deps, provider: p });
    expect(tainted(s.port)).toBe(true);
    expect(s.fences[0]).toMatchObject({ how: 'ResetObserved', taintAdded: true });
    expect(s.fences[0]?.evidence).toContain('boot-1 to boot-2');
  });

  it('a SoftReboot never fences, whatever the provider or the bootID says', async () => {
    const s = setup();
    s.port.node = down('boot-2');
    const p = new FakeMachineProviderForTest(
      { kind: 'Accepted', message: 'ok' },
      { kind: 'Fenced', how: 'ResetObserved', evidence: 'lying provider' },
    );
    await executeActions([fence('SoftReboot')], s.target(), { ...s.deps, provider: p });
    expect(tainted(s.port)).toBe(false);
    expect(s.fences).toEqual([]);
  });

  it('a taint someone else added is left as is and not recorded as ours', async () => {
    const s = setup();
    s.port.node = {
      ...down('boot-2'),
      spec: {
        unschedulable: true,
        taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'x', effect: 'NoExecute' }],
      },
    };
    const p = new FakeMachineProviderForTest({ kind: 'Accepted', message: 'ok' });
    await executeActions([fence('HardReboot')], s.target(), { ...s.deps, provider: p });
    expect(s.port.log).toEqual([]);
    expect(s.fences[0]).toMatchObject({ taintAdded: false });
  });

  it('a Node that now belongs to another machine (same name, other providerID) is never tainted', async () => {
    const s = setup();
    s.port.node = down('boot-2');
    const p = new FakeMachineProviderForTest(
      { kind: 'Accepted', message: 'ok' },
      { kind: 'Fenced', how: 'Deleted', evidence: 'old server deleted' },
    );
    const other = { ...fence('Replace'), providerID: 'openstack:///old' };
    await executeActions([other], s.target(), { ...s.deps, provider: p });
    expect(p.fenceQueries).toEqual([]);
    expect(tainted(s.port)).toBe(false);
    expect(s.fences).toEqual([]);
  });

  it('no pods left, or Ready again: nothing to fence for', async () => {
    const s = setup();
    s.port.node = down('boot-2');
    s.port.pods = [];
    const p = new FakeMachineProviderForTest({ kind: 'Accepted', message: 'ok' });
    await executeActions([fence('HardReboot')], s.target(), { ...s.deps, provider: p });
    expect(p.fenceQueries).toEqual([]);
    expect(tainted(s.port)).toBe(false);
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

// A drain that ran over several reconciles ends, and the HardReboot decided before it began
// would go out in the same pass: a person may have stopped the machine during the drain
// (found by the simulator, POLICY=hard-first seeds 101 and 144). The power state is asked
// once more, and only a running, crashed or gone machine lets the action go (power-after-drain.ts).
describe('executeActions: the power action after a drain of several passes', () => {
  class PoweredProviderForTest extends FakeMachineProviderForTest {
    readonly powerQueries: string[] = [];
    constructor(public power: PowerState | Error) {
      super({ kind: 'Accepted', message: '' });
    }
    async powerState(m: { node: string; providerID: string }): Promise<PowerState> {
      this.powerQueries.push(m.providerID);
      if (this.power instanceof Error) throw this.power;
      return this.power;
    }
  }
  const hardAfterDrain = (firstPass: boolean, action: RemediationStepKind = 'HardReboot') =>
    repair(false)
      .slice(1)
      .map((a): RepairAction => {
        if (a.type === 'Drain') return { ...a, firstPass };
        if (a.type === 'Remediate') return { ...a, action, actionId: `n1/1/${action}-1` };
        return a;
      });
  async function drained(
    power: PowerState | Error,
    firstPass = false,
    action?: RemediationStepKind,
  ) {
    const s = setup();
    s.port.pods = [];
    const provider = new PoweredProviderForTest(power);
    const r = await executeActions(hardAfterDrain(firstPass, action), s.target(), {
      ...s.deps,
      provider,
    });
    return { s, provider, r };
  }

  it('a machine stopped on request during the drain: the HardReboot is not sent, nothing recorded', async () => {
    const { s, provider, r } = await drained({
      kind: 'Off',
      byRequest: true,
      evidence: 'stop by user alice',
    });
    expect(provider.powerQueries).toEqual(['openstack:///abc']);
    expect(provider.requests).toEqual([]);
    expect(s.outcomes).toEqual([]);
    expect(r).toEqual({ remediated: false, aborted: false, retryAfterMs: 5000 });
    // The drain's end is recorded: the next reconcile re-issues through the decision's gate.
    expect(s.drains).toEqual([{ remediationId: 'n1/1', ended: { at: 42, outcome: 'Drained' } }]);
    expect(s.events.at(-1)).toMatchObject({ type: 'Normal', reason: 'NodeShutDown' });
    expect(s.events.at(-1)?.note).toContain('stop by user alice');
  });

  it('no answer (an outage, a throw): not sent, a Warning', async () => {
    for (const power of [
      { kind: 'Unavailable', reason: 'Nova 503' } as const,
      new Error('socket hang up'),
    ]) {
      const { s, provider, r } = await drained(power);
      expect(provider.requests).toEqual([]);
      expect(r.retryAfterMs).toBe(5000);
      expect(s.events.at(-1)).toMatchObject({ type: 'Warning', reason: 'ProviderUnavailable' });
    }
  });

  it('running, crashed (off, no request) or gone: sent in the same pass', async () => {
    for (const power of [
      { kind: 'On' } as const,
      { kind: 'Off', byRequest: false, evidence: 'crashed' } as const,
      { kind: 'Gone', evidence: 'deleted' } as const,
    ]) {
      const { provider, r } = await drained(power);
      expect(provider.powerQueries).toHaveLength(1);
      expect(provider.requests.map((q) => q.action)).toEqual(['HardReboot']);
      expect(r.remediated).toBe(true);
    }
  });

  it('asks nothing when the drain began in this pass or the action cannot power a machine on', async () => {
    const stopped = { kind: 'Off', byRequest: true, evidence: 'stop' } as const;
    const first = await drained(stopped, true);
    expect(first.provider.powerQueries).toEqual([]);
    expect(first.provider.requests).toHaveLength(1);
    const soft = await drained(stopped, false, 'SoftReboot');
    expect(soft.provider.powerQueries).toEqual([]);
    expect(soft.provider.requests.map((q) => q.action)).toEqual(['SoftReboot']);
  });
});
