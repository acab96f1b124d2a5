// The DeleteNode step after an accepted Replace, through executeActions, with test doubles for
// its ports: an in-memory Node API (InMemoryNodesForTest) and FenceAnswerProviderForTest
// (answers fence() with what the test sets). The order of calls is the contract: identity,
// fence, persist the fence, then the delete with the uid precondition.
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { RepairAction } from '../health/decide.js';
import type { ReplaceReport } from '../health/replace.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import type { DrainPort } from '../drain/port.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger } from '../runtime/logger.js';
import { executeActions, type ExecutorDeps } from './executor.js';
import { AutoRepairMetrics } from './metrics.js';
import type { NodeDeletePort, NodeIdentity } from './replace-step.js';

class InMemoryNodesForTest implements NodeDeletePort {
  node: NodeIdentity | undefined = { uid: 'uid-1', providerID: 'openstack:///abc' };
  /** What the delete meets: the node read, another object under the name, or nothing. */
  onDelete: 'Deleted' | 'NotFound' | 'Conflict' = 'Deleted';
  constructor(private readonly log: string[]) {}
  async getNode(): Promise<NodeIdentity | undefined> {
    this.log.push('get');
    return this.node;
  }
  async deleteNode(_name: string, uid: string): Promise<'Deleted' | 'NotFound' | 'Conflict'> {
    this.log.push(`delete uid=${uid}`);
    return this.onDelete;
  }
}

class FenceAnswerProviderForTest implements MachineProvider {
  readonly name = 'fence-answer-test';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  answer: FenceStatus | Error = { kind: 'NotFenced', reason: 'still deleting' };
  constructor(private readonly log: string[]) {}
  async execute(_req: ActionRequest): Promise<ProviderOutcome> {
    this.log.push('execute');
    return { kind: 'Accepted', message: '' };
  }
  async fence(q: FenceQuery): Promise<FenceStatus> {
    this.log.push(`fence ${q.action} ${q.actionId} ${q.providerID}`);
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

const unusedDrainPort = {} as DrainPort;

function setup() {
  const log: string[] = [];
  const nodes = new InMemoryNodesForTest(log);
  const provider = new FenceAnswerProviderForTest(log);
  const events: EventInput[] = [];
  const reports: ReplaceReport[] = [];
  const metrics = new AutoRepairMetrics(new Registry());
  const deps: ExecutorDeps = {
    drainPort: unusedDrainPort,
    provider,
    metrics,
    event: async (e) => {
      events.push(e);
    },
    log: silentLogger,
    now: () => 5000,
    nodes,
  };
  const target = {
    node: 'n1',
    recordOutcome: async () => undefined,
    recordReplace: async (r: ReplaceReport) => {
      log.push(`record ${r.fenced !== undefined ? 'fenced' : JSON.stringify(r.unavailable)}`);
      reports.push(r);
    },
    signal: new AbortController().signal,
  };
  const replaced = async () =>
    (await metrics.ended.get()).values.find((v) => v.labels.outcome === 'Replaced')?.value ?? 0;
  return { log, nodes, provider, events, reports, deps, target, replaced };
}

const step = (
  extra: Partial<Extract<RepairAction, { type: 'DeleteNode' }>> = {},
): RepairAction => ({
  type: 'DeleteNode',
  reason: 'test',
  dryRun: false,
  cause: 'KubeletUnreachable',
  action: 'Replace',
  actionId: 'n1/1/Replace-1',
  issuedAt: 1000,
  providerID: 'openstack:///abc',
  ...extra,
});

describe('the DeleteNode step after an accepted Replace', () => {
  it('not fenced: nothing deleted, the answer recorded, AwaitingFence says why', async () => {
    const s = setup();
    const r = await executeActions([step()], s.target, s.deps);
    expect(r.replaced).toBeUndefined();
    expect(s.log).toEqual(['get', 'fence Replace n1/1/Replace-1 openstack:///abc', 'record false']);
    expect(s.events.map((e) => e.reason)).toEqual(['AwaitingFence']);
    expect(s.events[0]?.note).toMatch(/Node deletion withheld.*still deleting/);
    expect(await s.replaced()).toBe(0);
  });

  it('a "not fenced" answer asked at or after the deadline is reported as notFencedAt (it lets the step time out); one before it is not', async () => {
    const s = setup();
    await executeActions([step({ deadline: 6000 })], s.target, s.deps); // now 5000
    await executeActions([step({ deadline: 5000 })], s.target, s.deps);
    s.provider.answer = { kind: 'Unavailable', reason: 'HTTP 503' };
    await executeActions([step({ deadline: 5000 })], s.target, s.deps);
    // The identity check refusing past the deadline is such an answer too.
    s.nodes.node = { uid: 'uid-2', providerID: 'openstack:///other' };
    await executeActions([step({ deadline: 5000 })], s.target, s.deps);
    expect(s.reports).toEqual([
      { actionId: 'n1/1/Replace-1', unavailable: false },
      { actionId: 'n1/1/Replace-1', unavailable: false, notFencedAt: 5000 },
      { actionId: 'n1/1/Replace-1', unavailable: { at: 5000 } },
      { actionId: 'n1/1/Replace-1', unavailable: false, notFencedAt: 5000 },
    ]);
  });

  it('a Node re-created under the name with the same providerID (a rebuild) is never deleted, even with the fence persisted', async () => {
    const s = setup();
    s.nodes.node = { uid: 'uid-2', providerID: 'openstack:///abc' };
    const fenced = { how: 'Deleted', evidence: 'server gone' };
    const r = await executeActions([step({ fenced })], { ...s.target, uid: 'uid-1' }, s.deps);
    expect(r.replaced).toBeUndefined();
    expect(s.log.filter((l) => l.startsWith('delete'))).toEqual([]);
    expect(s.events.map((e) => e.reason)).toEqual(['NodeDeleteWithheld']);
    expect(s.events[0]?.note).toMatch(/another object now \(uid uid-2, not uid-1/);
  });

  it('a record that finds the Node re-created stops the decision with a Warning; one that finds it gone stops quietly', async () => {
    const { NodeReplacedError } = await import('../drain/port.js');
    const s = setup();
    s.provider.answer = { kind: 'Fenced', how: 'Deleted', evidence: 'server gone' };
    const recreated = {
      ...s.target,
      recordReplace: async () => {
        throw new NodeReplacedError('n1', 'uid-1', 'uid-2');
      },
    };
    const r = await executeActions([step()], recreated, s.deps);
    expect(r.replaced).toBeUndefined();
    expect(s.log.filter((l) => l.startsWith('delete'))).toEqual([]);
    expect(s.events.map((e) => e.reason)).toEqual(['ActionFailed']);
    expect(s.events[0]?.note).toMatch(
      /no further action of this repair runs: Node n1 is another object now/,
    );
    s.events.length = 0;
    const gone = {
      ...s.target,
      recordReplace: async () => {
        throw new NodeReplacedError('n1', 'uid-1', undefined);
      },
    };
    await executeActions([step()], gone, s.deps);
    expect(s.events).toEqual([]);
  });

  it('an unreachable provider (or one that throws) is recorded as unavailable, never as fenced', async () => {
    const s = setup();
    s.provider.answer = { kind: 'Unavailable', reason: 'HTTP 503', retryAfterMs: 7000 };
    const r = await executeActions([step()], s.target, s.deps);
    expect(r.retryAfterMs).toBe(7000);
    s.provider.answer = new Error('socket hang up');
    await executeActions([step()], s.target, s.deps);
    expect(s.reports).toEqual([
      { actionId: 'n1/1/Replace-1', unavailable: { at: 5000 } },
      { actionId: 'n1/1/Replace-1', unavailable: { at: 5000 } },
    ]);
    expect(s.log.filter((l) => l.startsWith('delete'))).toEqual([]);
  });

  it('fenced: the fence is persisted, then the Node deleted with the uid checked; NodeReplaced names who recreates capacity', async () => {
    const s = setup();
    s.provider.answer = { kind: 'Fenced', how: 'Deleted', evidence: 'server gone' };
    const r = await executeActions([step()], s.target, s.deps);
    expect(r.replaced).toBe(true);
    expect(s.log).toEqual([
      'get',
      'fence Replace n1/1/Replace-1 openstack:///abc',
      'record fenced',
      'delete uid=uid-1',
    ]);
    expect(s.reports[0]).toEqual({
      actionId: 'n1/1/Replace-1',
      fenced: { at: 5000, how: 'Deleted', evidence: 'provider fence-answer-test: server gone' },
    });
    expect(s.events.map((e) => e.reason)).toEqual(['NodeReplaced']);
    expect(s.events[0]?.note).toMatch(/^Node deleted: the machine openstack:\/\/\/abc was fenced/);
    expect(s.events[0]?.note).toMatch(/node group's owner .* must recreate the capacity/);
    expect(await s.replaced()).toBe(1);
  });

  it('the lease lost while the provider is asked: neither the fence persisted nor the Node deleted', async () => {
    const s = setup();
    const lease = new AbortController();
    s.provider.answer = { kind: 'Fenced', how: 'Deleted', evidence: 'server gone' };
    const fence = s.provider.fence.bind(s.provider);
    s.provider.fence = async (q) => {
      const answer = await fence(q);
      lease.abort(); // the lease is lost while the answer is on its way
      return answer;
    };
    const r = await executeActions([step()], { ...s.target, signal: lease.signal }, s.deps);
    expect(r.replaced).toBeUndefined();
    expect(s.log).toEqual(['get', 'fence Replace n1/1/Replace-1 openstack:///abc']);
    expect(await s.replaced()).toBe(0);
  });

  it('already fenced (a restart between the fence and the delete): deletes without asking again', async () => {
    const s = setup();
    const r = await executeActions(
      [step({ fenced: { how: 'Deleted', evidence: 'server gone' } })],
      s.target,
      s.deps,
    );
    expect(r.replaced).toBe(true);
    expect(s.log).toEqual(['get', 'delete uid=uid-1']);
  });

  it('another machine under the name (providerID differs), or no providerID recorded: never deleted, never asked', async () => {
    for (const [node, providerID] of [
      [{ uid: 'uid-2', providerID: 'openstack:///other' }, 'openstack:///abc'],
      [{ uid: 'uid-1', providerID: 'openstack:///abc' }, undefined],
    ] as const) {
      const s = setup();
      s.nodes.node = node;
      s.provider.answer = { kind: 'Fenced', how: 'Deleted', evidence: 'server gone' };
      const action = step({ fenced: undefined });
      if (providerID === undefined) delete (action as { providerID?: string }).providerID;
      const r = await executeActions([action], s.target, s.deps);
      expect(r.replaced).toBeUndefined();
      expect(s.log).toEqual(['get', 'record false']);
      expect(s.events.map((e) => e.reason)).toEqual(['NodeDeleteWithheld']);
      expect(await s.replaced()).toBe(0);
    }
  });

  it('the Node already gone, or replaced by another object between the read and the delete: Replaced, nothing else deleted', async () => {
    const gone = setup();
    gone.nodes.node = undefined;
    expect((await executeActions([step()], gone.target, gone.deps)).replaced).toBe(true);
    expect(gone.log).toEqual(['get']);
    expect(gone.events[0]?.note).toMatch(/already deleted/);

    const swapped = setup();
    swapped.provider.answer = { kind: 'Fenced', how: 'Deleted', evidence: 'server gone' };
    swapped.nodes.onDelete = 'Conflict';
    expect((await executeActions([step()], swapped.target, swapped.deps)).replaced).toBe(true);
    expect(swapped.events[0]?.note).toMatch(/another object and is left alone/);
  });

  it('dry-run: nothing read, asked or deleted', async () => {
    const s = setup();
    await executeActions([step({ dryRun: true })], s.target, s.deps);
    expect(s.log).toEqual([]);
    expect(s.events).toEqual([]);
  });
});
