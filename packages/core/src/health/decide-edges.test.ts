// Edge paths of the state machine: startup timeout, stale heartbeats, recovery after giving
// up, a manual retry after giving up, pause and deletion in the middle of a repair.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-04-01T00:00:00Z');

function policy(input: unknown = {}): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** Decide, then record success for any Remediate action (as the shell does). */
function step(d: RepairDecision): RepairState {
  let s = d.nextState!;
  for (const a of d.actions)
    if (a.type === 'Remediate')
      s = recordOutcome(s, { actionId: a.actionId, result: 'Succeeded', at: d.at });
  return s;
}

describe('state machine edges', () => {
  it('a node that never posts status is repaired after nodeStartupTimeout (strictly after: requeued for remaining + 1 ms)', () => {
    const p = policy({ nodeStartupTimeout: '10m' });
    const node = buildNode({ name: 'n', ready: undefined, created: T0 });
    const early = decideRepair({ nodeName: 'n', node }, undefined, p, T0 + 4 * MIN);
    expect(early).toMatchObject({ phase: 'Suspect', requeueAfterMs: 6 * MIN + 1, actions: [] });
    expect(
      decideRepair({ nodeName: 'n', node }, early.nextState, p, T0 + 10 * MIN).actions,
    ).toEqual([]);
    const late = decideRepair({ nodeName: 'n', node }, early.nextState, p, T0 + 10 * MIN + 1);
    expect(late.cause).toEqual({
      kind: 'NotStarted',
      message: 'Node failed to report startup in 10m',
    });
    expect(late.actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
    // "Kubelet never posted node status." from the node lifecycle controller counts as not started too.
    const never = buildNode({ name: 'n', ready: 'neverUpdated', created: T0, since: T0 + MIN });
    expect(
      decideRepair({ nodeName: 'n', node: never }, undefined, p, T0 + 11 * MIN).cause.kind,
    ).toBe('NotStarted');
  });

  it('stale heartbeats count only when the policy enables them, and the drain treats the node as unreachable', () => {
    const node = buildNode({ name: 'n', ready: 'ready', since: T0, heartbeat: T0 });
    expect(
      decideRepair({ nodeName: 'n', node }, undefined, policy(), T0 + 60 * MIN).actions,
    ).toEqual([]);
    const d = decideRepair(
      { nodeName: 'n', node },
      undefined,
      policy({ staleHeartbeatTimeout: '20m' }),
      T0 + 21 * MIN,
    );
    expect(d.cause.kind).toBe('StaleHeartbeat');
    expect(d.actions.find((a) => a.type === 'Drain')).toMatchObject({ unreachable: true });
  });

  it('after giving up, a node that recovers on its own is uncordoned once Ready for the minimum period', () => {
    const p = policy({ ladder: [{ action: 'SoftReboot', timeout: '5m' }], minHealthyPeriod: '5m' });
    const down = buildNode({ name: 'n', ready: 'unknown', since: T0 });
    let s = step(decideRepair({ nodeName: 'n', node: down }, undefined, p, T0 + 11 * MIN));
    const gaveUp = decideRepair({ nodeName: 'n', node: down }, s, p, T0 + 17 * MIN);
    expect(gaveUp).toMatchObject({ phase: 'Failed', actions: [{ type: 'GiveUp' }] });
    s = gaveUp.nextState!;
    expect(decideRepair({ nodeName: 'n', node: down }, s, p, T0 + 60 * MIN)).toMatchObject({
      phase: 'Failed',
      actions: [],
    });
    const up = buildNode({ name: 'n', ready: 'ready', since: T0 + 61 * MIN, unschedulable: true });
    const waiting = decideRepair({ nodeName: 'n', node: up }, s, p, T0 + 62 * MIN);
    expect(waiting).toMatchObject({ phase: 'Failed', actions: [], requeueAfterMs: 4 * MIN });
    const back = decideRepair({ nodeName: 'n', node: up }, waiting.nextState, p, T0 + 66 * MIN);
    expect(back).toMatchObject({ phase: 'Healthy', actions: [{ type: 'Uncordon' }] });
  });

  it('after giving up, a new manual trigger value starts over at the first step and still uncordons what we cordoned', () => {
    const p = policy({
      ladder: [
        { action: 'SoftReboot', timeout: '5m' },
        { action: 'HardReboot', timeout: '5m' },
      ],
    });
    const down = buildNode({ name: 'n', ready: 'unknown', since: T0 });
    let s = step(decideRepair({ nodeName: 'n', node: down }, undefined, p, T0 + 11 * MIN));
    s = step(decideRepair({ nodeName: 'n', node: down }, s, p, T0 + 17 * MIN));
    const failed = decideRepair({ nodeName: 'n', node: down }, s, p, T0 + 23 * MIN);
    expect(failed.phase).toBe('Failed');
    // We cordoned it; an operator asks for another round.
    const asked = buildNode({
      name: 'n',
      ready: 'unknown',
      since: T0,
      unschedulable: true,
      annotations: { 'noderepair.io/repair-now': 'again' },
    });
    const retry = decideRepair({ nodeName: 'n', node: asked }, failed.nextState, p, T0 + 30 * MIN);
    expect(retry.actions.map((a) => (a.type === 'Remediate' ? a.action : a.type))).toEqual([
      'Drain',
      'SoftReboot',
    ]);
    s = step(retry);
    const up = buildNode({
      name: 'n',
      ready: 'ready',
      since: T0 + 31 * MIN,
      unschedulable: true,
      annotations: { 'noderepair.io/repair-now': 'again' },
    });
    const done = decideRepair({ nodeName: 'n', node: up }, s, p, T0 + 40 * MIN);
    expect(done).toMatchObject({ phase: 'Healthy', actions: [{ type: 'Uncordon' }] });
    expect(done.nextState?.handledTrigger).toBe('again');
  });

  it('pause in the middle of a repair freezes it; deletion forgets it; shutdown holds the next attempt', () => {
    const p = policy();
    const down = buildNode({ name: 'n', ready: 'unknown', since: T0 });
    const s = step(decideRepair({ nodeName: 'n', node: down }, undefined, p, T0 + 11 * MIN));
    const paused = buildNode({
      name: 'n',
      ready: 'unknown',
      since: T0,
      annotations: { 'cluster.x-k8s.io/paused': '' },
    });
    const frozen = decideRepair({ nodeName: 'n', node: paused }, s, p, T0 + 60 * MIN);
    expect(frozen).toMatchObject({ phase: 'Verifying', actions: [], signal: 'paused' });
    expect(frozen.nextState?.remediation).toEqual(s.remediation);
    expect(decideRepair({ nodeName: 'n', node: undefined }, s, p, T0 + 60 * MIN)).toMatchObject({
      nextState: undefined,
      actions: [{ type: 'Forget' }],
    });
    const shutting = buildNode({ name: 'n', ready: 'shuttingDown', since: T0 + 20 * MIN });
    const held = decideRepair({ nodeName: 'n', node: shutting }, s, p, T0 + 60 * MIN);
    expect(held.actions).toEqual([]);
    expect(held.reason).toMatch(/shutting down.*paused until it finishes/);
  });
});
